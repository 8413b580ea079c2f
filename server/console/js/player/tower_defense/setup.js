// Tower defense setup for one PC (TD-PRE-1): pick the starting fort, set a trap.

import { h } from "../../dom.js";
import { t } from "../../i18n.js";
import { asGM } from "./as_gm.js";
import { actButton, feedback, field, localError, readRoll, rollChoice, select, send, val } from "../common.js";

const nameOf = (td, id) => td.forts[id]?.name ?? td.directions[id]?.name ?? id;

/** One button per fort: a tap sends `td.pc.place`; the current fort is pressed. */
export function placeForm(ctx, td, pc) {
  const key = `${pc.id}.place`;
  const forts = Object.values(td.forts).sort((a, b) => a.tier - b.tier || a.cell.x - b.cell.x);
  return h("section.pl-form.pl-place", { dataset: { control: key } },
    h("div.pl-form-title", asGM(ctx, t("ptd.place"))),
    h("div.pl-buttons", forts.map((f) => h("button.pl-fort", {
      type: "button", dataset: { fort: f.id }, "aria-pressed": pc.fort === f.id ? "true" : "false",
      on: { click: (ev) => send(ctx, key, { kind: "td.pc.place", pc: pc.id, fort: f.id }, ev.currentTarget) },
    }, f.name))),
    feedback(ctx, key));
}

/** Passage, kind, skill and the check (rolled or a pasted BCDice line) → `td.trap.set`. */
export function trapForm(ctx, td, pc) {
  const key = `${pc.id}.trap`;
  const settings = td.settings || {};
  const limit = settings.trap_limit ?? "∞";
  const placed = Object.keys(td.traps || {}).length;
  const passages = Object.values(td.passages).map((p) => ({
    value: p.id, label: `${nameOf(td, p.outer)} → ${nameOf(td, p.inner)}${p.lateral ? ` (${t("ptd.lateral")})` : ""}`,
  }));
  const skills = (settings.trap_skills || ["手さばき", "科学"]).map((s) => ({
    value: s, label: pc.skills?.[s] !== undefined ? `${s} (${pc.skills[s]})` : s,
  }));
  const best = [...skills].sort((a, b) => (pc.skills?.[b.value] ?? -1) - (pc.skills?.[a.value] ?? -1))[0]?.value;
  const go = (button) => {
    const action = {
      kind: "td.trap.set", pc: pc.id, passage: val(ctx, `${key}.passage`), trap: val(ctx, `${key}.kind`),
      skill: val(ctx, `${key}.skill`),
    };
    const lines = readRoll(ctx, key);
    if (lines !== null) {
      if (!lines.length) return localError(ctx, key, t("pl.need_lines"));
      action.result = lines[0];
    }
    return send(ctx, key, action, button);
  };
  return h("section.pl-form.pl-trap", { dataset: { control: key } },
    h("div.pl-form-title", t("ptd.trap"), " ", h("span.muted.small", t("ptd.trap.count", { n: placed, limit }))),
    h("div.pl-row",
      field(t("ptd.trap.passage"), select(ctx, `${key}.passage`, passages, { label: t("ptd.trap.passage"), name: "passage" })),
      field(t("ptd.trap.kind"), select(ctx, `${key}.kind`, ["explosive", "snare"].map((k) => ({
        value: k, label: t(`td.trap.${k}`) })), { label: t("ptd.trap.kind"), name: "kind" })),
      field(t("ptd.trap.skill"), select(ctx, `${key}.skill`, skills, { dflt: best, label: t("ptd.trap.skill"), name: "skill" }))),
    rollChoice(ctx, key),
    h("div.pl-row", actButton(asGM(ctx, t("ptd.trap.set")), go, { dataset: { act: "trap" } })),
    feedback(ctx, key));
}
