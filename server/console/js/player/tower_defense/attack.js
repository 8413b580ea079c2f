// Tower defense, PC attack phase, for one PC (TD-ATK-1..4, TD-DATA): shoot (`td.attack`),
// 魔眼 (`td.special`), melee (`td.melee`), move to an adjacent fort (`td.move`), reload
// (`td.reload`). Targets the weapon reaches are listed first — computed here only as a
// hint (reach.js); the server decides and its refusal shows under the control.

import { h } from "../../dom.js";
import { t } from "../../i18n.js";
import { actButton, feedback, field, input, localError, readRoll, rollChoice, select, send, val } from "../common.js";
import { neighbours, reaches } from "./reach.js";
import { asGM } from "./as_gm.js";

const fortName = (td, id) => td.forts[id]?.name ?? id;

function whereText(td, g) {
  if (g.waiting) return t("ptd.where.waiting");
  if (g.fort) return fortName(td, g.fort);
  if (!g.at) return t("ptd.where.entry", { d: td.directions[g.direction]?.name ?? g.direction });
  return t("ptd.where.passage");
}

/** Groups as options: those `spec` reaches from `fort` first, the others after. */
function targets(td, spec, fort) {
  const groups = Object.values(td.groups || {});
  const near = groups.filter((g) => reaches(td, spec, fort, g));
  const far = groups.filter((g) => !near.includes(g));
  const opt = (g, ok) => ({ value: g.id, group: t(ok ? "ptd.in_range" : "ptd.out_of_range"),
                            label: `${g.name} ×${g.count} — ${whereText(td, g)}` });
  return [...near.map((g) => opt(g, true)), ...far.map((g) => opt(g, false))];
}

function targetField(ctx, key, options) {
  if (!options.length) return h("p.muted.small.pl-no-groups", t("ptd.no_groups"));
  return field(t("ptd.target"), select(ctx, key, options, { label: t("ptd.target"), name: "target" }), "wide");
}

function weaponOptions(list) {
  return list.map(({ spec }) => ({ value: spec.id, label: spec.name }));
}

/** Weapons of `pc` of one kind, with their specs. */
function weaponsOf(td, pc, kind) {
  return Object.values(pc.weapons).map((state) => ({ state, spec: td.weapons[state.weapon] }))
    .filter((w) => w.spec && w.spec.kind === kind);
}

function attackForm(ctx, td, pc, firearms) {
  const key = `${pc.id}.attack`;
  const wid = val(ctx, `${key}.weapon`, firearms[0].spec.id);
  const { spec, state } = firearms.find((w) => w.spec.id === wid) || firearms[0];
  const left = Math.max(0, spec.attacks_per_round - state.used);
  const options = targets(td, spec, pc.fort);
  const ammo = spec.special_ammo ? field(t("ptd.ammo"), select(ctx, `${key}.ammo`, [
    { value: "normal", label: t("ptd.ammo.normal") },
    { value: "special", label: `${spec.special_ammo.name} (${state.special_left})` },
  ], { label: t("ptd.ammo"), name: "ammo" })) : null;
  const go = (button) => {
    const group = val(ctx, `${key}.target`);
    const action = { kind: "td.attack", pc: pc.id, weapon: spec.id, group };
    if (spec.special_ammo && val(ctx, `${key}.ammo`) === "special") action.ammo = "special";
    const lines = readRoll(ctx, key);
    if (lines === null) {
      const shots = Number.parseInt(val(ctx, `${key}.shots`, "1"), 10);
      if (!(shots >= 1)) return localError(ctx, key, t("ptd.bad_shots"));
      action.shots = shots;
    } else if (!lines.length) {
      return localError(ctx, key, t("pl.need_lines"));
    } else {
      action.results = lines;
    }
    return send(ctx, key, action, button);
  };
  const pasting = val(ctx, `${key}.mode`, "engine") === "paste";
  return h("section.pl-form.pl-attack", { dataset: { control: key } },
    h("div.pl-form-title", t("ptd.attack")),
    h("div.pl-row",
      field(t("ptd.weapon"), select(ctx, `${key}.weapon`, weaponOptions(firearms),
        { label: t("ptd.weapon"), redraw: true, name: "weapon" })),
      targetField(ctx, `${key}.target`, options)),
    h("div.pl-row",
      pasting ? null : field(t("ptd.shots"), input(ctx, `${key}.shots`, {
        type: "number", min: 1, max: spec.attacks_per_round, step: 1, inputmode: "numeric",
        name: "shots", "aria-label": t("ptd.shots"), class: "pl-shots" }, String(Math.max(1, Math.min(left, state.loaded ?? left) || 1)))),
      pasting ? null : h("span.muted.small.pl-left", t("ptd.shots_left", { n: left })),
      ammo),
    rollChoice(ctx, key, { many: true }),
    h("div.pl-row", actButton(asGM(ctx, t("ptd.fire")), go, { dataset: { act: "attack" }, disabled: !options.length })),
    feedback(ctx, key));
}

function moveForm(ctx, td, pc) {
  const key = `${pc.id}.move`;
  const near = pc.fort ? [...neighbours(td, pc.fort)] : [];
  return h("section.pl-form.pl-move", { dataset: { control: key } },
    h("div.pl-form-title", asGM(ctx, t("ptd.move"))),
    near.length ? h("div.pl-buttons", near.map((id) => h("button.pl-fort", {
      type: "button", dataset: { fort: id },
      on: { click: (ev) => send(ctx, key, { kind: "td.move", pc: pc.id, to: id }, ev.currentTarget) },
    }, `→ ${fortName(td, id)}`))) : h("p.muted.small", t("ptd.move.none")),
    feedback(ctx, key));
}

function reloadForm(ctx, pc, firearms) {
  const key = `${pc.id}.reload`;
  const list = firearms.filter(({ spec }) => spec.magazine !== null && spec.magazine !== undefined);
  if (!list.length) return null;
  return h("section.pl-form.pl-reload", { dataset: { control: key } },
    h("div.pl-buttons", list.map(({ spec, state }) => h("button.pl-reload-btn", {
      type: "button", dataset: { weapon: spec.id },
      on: { click: (ev) => send(ctx, key, { kind: "td.reload", pc: pc.id, weapon: spec.id }, ev.currentTarget) },
    }, `${asGM(ctx, t("ptd.reload"))}: ${spec.name} (${state.loaded ?? "?"}/${spec.magazine})`))),
    feedback(ctx, key));
}

function meleeForm(ctx, td, pc, melees) {
  const key = `${pc.id}.melee`;
  const wid = val(ctx, `${key}.weapon`, melees[0].spec.id);
  const { spec } = melees.find((w) => w.spec.id === wid) || melees[0];
  const moves = [{ value: "", label: t("ptd.melee.stay") },
    ...(pc.fort ? [...neighbours(td, pc.fort)] : []).map((id) => ({ value: id, label: `→ ${fortName(td, id)}` }))];
  const to = val(ctx, `${key}.to`, "");
  const options = targets(td, spec, to || pc.fort);
  const go = (button) => {
    const action = { kind: "td.melee", pc: pc.id, weapon: spec.id, group: val(ctx, `${key}.target`) };
    if (val(ctx, `${key}.to`, "")) action.to = val(ctx, `${key}.to`);
    const lines = readRoll(ctx, key);
    if (lines !== null) {
      if (!lines.length) return localError(ctx, key, t("pl.need_lines"));
      action.result = lines[0];
    }
    return send(ctx, key, action, button);
  };
  return h("section.pl-form.pl-melee", { dataset: { control: key } },
    h("div.pl-form-title", t("ptd.melee")),
    h("div.pl-row",
      melees.length > 1 ? field(t("ptd.weapon"), select(ctx, `${key}.weapon`, weaponOptions(melees),
        { label: t("ptd.weapon"), redraw: true, name: "weapon" })) : h("b.small", spec.name),
      field(t("ptd.melee.to"), select(ctx, `${key}.to`, moves, { label: t("ptd.melee.to"), redraw: true, name: "to" })),
      targetField(ctx, `${key}.target`, options)),
    rollChoice(ctx, key),
    h("div.pl-row", actButton(asGM(ctx, t("ptd.melee.go")), go, { dataset: { act: "melee" }, disabled: !options.length })),
    feedback(ctx, key));
}

function eyeForm(ctx, td, pc, eyes) {
  const key = `${pc.id}.eye`;
  const { spec } = eyes[0];
  const options = targets(td, spec, pc.fort);
  const go = (button) => {
    const action = { kind: "td.special", pc: pc.id, weapon: spec.id, group: val(ctx, `${key}.target`) };
    const lines = readRoll(ctx, key);
    if (lines !== null) {
      if (!lines.length) return localError(ctx, key, t("pl.need_lines"));
      action.result = lines[0];
    }
    return send(ctx, key, action, button);
  };
  return h("section.pl-form.pl-eye", { dataset: { control: key } },
    h("div.pl-form-title", t("ptd.eye"), " ", h("span.muted.small", spec.name)),
    h("div.pl-row", targetField(ctx, `${key}.target`, options)),
    rollChoice(ctx, key),
    h("div.pl-row", actButton(asGM(ctx, t("ptd.eye.go")), go, { dataset: { act: "eye" }, disabled: !options.length })),
    feedback(ctx, key));
}

/** Every control the PC has in the PC attack phase. */
export function attackForms(ctx, td, pc) {
  const firearms = weaponsOf(td, pc, "firearm");
  const melees = weaponsOf(td, pc, "melee");
  const eyes = weaponsOf(td, pc, "eye");
  return [
    firearms.length ? attackForm(ctx, td, pc, firearms) : null,
    eyes.length ? eyeForm(ctx, td, pc, eyes) : null,
    melees.length ? meleeForm(ctx, td, pc, melees) : null,
    moveForm(ctx, td, pc),
    firearms.length ? reloadForm(ctx, pc, firearms) : null,
  ];
}
