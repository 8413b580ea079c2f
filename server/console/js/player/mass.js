// The player's mass combat controls (rules.md MASS-*): one card per unit this player
// leads. Preparation: max strength (`mass.strength`) and picks (`mass.pick`); deployment:
// the row and the odd point (`mass.deploy`); tactics: the formation (`mass.formation`);
// battle, on the unit's turn: attack / defend / reorganize / delay; strategies
// (`mass.strategy`) in any step of a turn. Prompts (rebalance, odd point, reactions, LP)
// are answered in the prompts panel. Shown only to players (`roles`).
//
// `unitCard` is also the GM's: panels/mass_act.js draws it for any unit with `asGM`
// (issue 30, the GM acts for any actor): the same controls, marked 「GMとして」.

import { h } from "../dom.js";
import { registerPanel } from "../registry.js";
import { t, pick } from "../i18n.js";
import { actButton, asGMBadge, feedback, field, localError, meBadge, readRoll, rollChoice, select, send, setVal, val } from "./common.js";
import { rowOf } from "../panels/mass.js";

const REACTIONS = new Set(["decoy", "information", "white_flag"]);
const FORMATION_CHANGE = new Set(["formation_change", "formation_change_fast"]);

const STRINGS = {
  ja: {
    "pms.title": "あなたの部隊",
    "pms.none": "このプレイヤーの部隊はいません。",
    "pms.strength": "最大戦力の判定", "pms.ability": "能力値", "pms.lp_cost": "（LP1点）",
    "pms.check": "判定する", "pms.set": "最大戦力 {n}",
    "pms.picks": "陣形と作戦の取得", "pms.skill": "技能", "pms.limit": "取得できる数: {n}（選択中 {k}）",
    "pms.free": "無条件で取得", "pms.initiative": "戦争行動値",
    "pms.init.initiative": "行動値 {n}", "pms.init.intellect": "知力の基準値 {n}",
    "pms.pick": "取得する",
    "pms.row": "配置", "pms.front": "前列へ", "pms.back": "後列へ",
    "pms.odd": "余りの1点（奇数のとき）", "pms.odd.ask": "あとで聞く", "pms.odd.attack": "攻撃力", "pms.odd.defence": "防御力",
    "pms.formation": "このターンの陣形",
    "pms.turn": "あなたの部隊の行動です", "pms.wait": "いま行動するのは「{name}」です。",
    "pms.acted": "このターンは行動済みです。",
    "pms.attack": "攻撃", "pms.target": "目標", "pms.bonus": "前列同士: +1D6", "pms.no_bonus": "ボーナスなし",
    "pms.illegal": "後列同士は攻撃できません",
    "pms.defend": "防御（+1D6）", "pms.reorganize": "再編成（縦列陣形・戦力+1）", "pms.delay": "行動遅延",
    "pms.strategy": "作戦（行動を使わない）", "pms.strategy.pick": "作戦", "pms.strategy.target": "対象",
    "pms.strategy.none": "使える作戦がありません。", "pms.strategy.use": "作戦を使う",
    "pms.strategy.reaction": "囮作戦・情報操作・偽りの白旗は、攻撃されたときの問いで使います。",
    "pms.no_target": "（対象なし）", "pms.change_to": "変更先の陣形", "pms.uses": "残り{n}",
    "pms.routed": "この部隊は敗走しました。", "pms.over": "戦争は決着しました。",
    "pms.waiting.prep": "GMが戦争を始めるのを待っています。",
    "pms.gm.turn": "GMとして：「{name}」の行動です",
    "pms.gm.player": "プレイヤー: {name}",
    "pms.gm.npc": "GMの部隊",
  },
  en: {
    "pms.title": "Your units",
    "pms.none": "This player leads no unit.",
    "pms.strength": "Max strength check", "pms.ability": "ability", "pms.lp_cost": " (1 LP)",
    "pms.check": "Roll the check", "pms.set": "max strength {n}",
    "pms.picks": "Formations and strategies", "pms.skill": "skill", "pms.limit": "picks allowed: {n} (chosen {k})",
    "pms.free": "always owned", "pms.initiative": "war initiative",
    "pms.init.initiative": "initiative {n}", "pms.init.intellect": "知力 base value {n}",
    "pms.pick": "Take these",
    "pms.row": "Row", "pms.front": "Front row", "pms.back": "Back row",
    "pms.odd": "The odd point (odd strength)", "pms.odd.ask": "ask me later", "pms.odd.attack": "attack", "pms.odd.defence": "defence",
    "pms.formation": "Formation this turn",
    "pms.turn": "Your unit's turn", "pms.wait": "'{name}' acts now.",
    "pms.acted": "Acted this turn.",
    "pms.attack": "Attack", "pms.target": "target", "pms.bonus": "front vs front: +1D6", "pms.no_bonus": "no bonus",
    "pms.illegal": "back row cannot attack back row",
    "pms.defend": "Defend (+1D6)", "pms.reorganize": "Reorganize (column, +1 strength)", "pms.delay": "Delay",
    "pms.strategy": "Strategy (no action spent)", "pms.strategy.pick": "strategy", "pms.strategy.target": "target",
    "pms.strategy.none": "No strategy to use.", "pms.strategy.use": "Use the strategy",
    "pms.strategy.reaction": "Decoy, disinformation and the false white flag are used from the prompt when an attack comes.",
    "pms.no_target": "(no target)", "pms.change_to": "change to", "pms.uses": "{n} left",
    "pms.routed": "This unit has been routed.", "pms.over": "The war is decided.",
    "pms.waiting.prep": "Waiting for the GM to start the war.",
    "pms.gm.turn": "As GM: “{name}” acts now",
    "pms.gm.player": "player: {name}",
    "pms.gm.npc": "the GM's unit",
  },
};

const unitName = (ms, id) => ms.units[id]?.name ?? id;

// -- preparation ------------------------------------------------------------------------------

function strengthForm(ctx, ms, u) {
  const key = `${u.id}.strength`;
  const s = ms.settings || {};
  const abilities = [...(s.abilities || ["魅力", "愛"]), ...(s.lp_abilities || ["ボディ", "テクニック"])];
  const lpCost = new Set(s.lp_abilities || ["ボディ", "テクニック"]);
  const options = abilities.map((a) => ({ value: a, label: `${a}${u.abilities?.[a] !== undefined ? ` (${u.abilities[a]})` : ""}${lpCost.has(a) ? t("pms.lp_cost") : ""}` }));
  const go = (button) => {
    const action = { kind: "mass.strength", unit: u.id, ability: val(ctx, `${key}.ability`) };
    const lines = readRoll(ctx, key);
    if (lines !== null) {
      if (!lines.length) return localError(ctx, key, t("pl.need_lines"));
      action.result = lines[0];
    }
    return send(ctx, key, action, button);
  };
  if (u.max_strength !== null && u.max_strength !== undefined) {
    return h("section.pl-form.pms-strength", { dataset: { control: key } },
      h("div.pl-form-title", t("pms.strength"), " ", h("b", t("pms.set", { n: u.max_strength }))), feedback(ctx, key));
  }
  return h("section.pl-form.pms-strength", { dataset: { control: key } },
    h("div.pl-form-title", t("pms.strength"), u.commander ? h("span.muted.small", " (3D6)") : null),
    h("div.pl-row", field(t("pms.ability"), select(ctx, `${key}.ability`, options, { label: t("pms.ability"), name: "ability" }))),
    rollChoice(ctx, key),
    h("div.pl-row", actButton(t("pms.check"), go, { dataset: { act: "strength" } })),
    feedback(ctx, key));
}

function checkList(ctx, key, ids, free, owned) {
  return h("div.pms-checks", ids.map((id) => {
    const k = `${key}.${id}`;
    const on = free.includes(id) || val(ctx, k, owned.includes(id));
    return h("label.pl-check", { dataset: { pick: id } },
      h("input", { type: "checkbox", checked: on, disabled: free.includes(id), dataset: { keep: k },
                   on: { change: (ev) => { setVal(ctx, k, ev.target.checked); ctx.refresh(); } } }),
      " ", id, free.includes(id) ? h("span.muted.small", ` (${t("pms.free")})`) : null);
  }));
}

function picksForm(ctx, ms, u) {
  const key = `${u.id}.pick`;
  const s = ms.settings || {};
  const freeF = s.free_formations || ["縦列陣形"];
  const freeS = s.free_strategies || ["全軍退却"];
  const skills = (s.pick_skills || ["知力", "本能"]).map((x) => ({ value: x, label: `${x} ${u.skills?.[x] ?? 0}` }));
  const skill = val(ctx, `${key}.skill`, skills[0]?.value);
  const limit = Math.max(0, Math.floor(((u.mental || 0) + (u.skills?.[skill] || 0)) / 2));
  const fIds = Object.keys(ms.formations);
  const sIds = Object.keys(ms.strategies);
  const chosen = (ids, sub, free, owned) => ids.filter((id) => !free.includes(id) && val(ctx, `${key}.${sub}.${id}`, owned.includes(id)));
  const formations = chosen(fIds, "f", freeF, u.formations || []);
  const strategies = chosen(sIds, "s", freeS, u.strategies || []);
  const init = [{ value: "initiative", label: t("pms.init.initiative", { n: u.initiative }) }];
  if (u.intellect_base !== null && u.intellect_base !== undefined) init.push({ value: "intellect", label: t("pms.init.intellect", { n: u.intellect_base }) });
  const go = (button) => send(ctx, key, {
    kind: "mass.pick", unit: u.id, skill, formations, strategies, initiative_from: val(ctx, `${key}.init`, u.initiative_from),
  }, button);
  const n = formations.length + strategies.length;
  return h("section.pl-form.pms-picks", { dataset: { control: key } },
    h("div.pl-form-title", t("pms.picks"), " ",
      h("span", { class: `small ${n > limit ? "pms-over" : "muted"}` }, t("pms.limit", { n: limit, k: n }))),
    h("div.pl-row",
      field(t("pms.skill"), select(ctx, `${key}.skill`, skills, { label: t("pms.skill"), name: "skill", redraw: true })),
      field(t("pms.initiative"), select(ctx, `${key}.init`, init, { dflt: u.initiative_from, label: t("pms.initiative"), name: "init" }))),
    h("div.pms-pick-cols",
      h("div", h("div.small.muted", t("ms.owned_f")), checkList(ctx, `${key}.f`, fIds, freeF, u.formations || [])),
      h("div", h("div.small.muted", t("pms.strategy.pick")), checkList(ctx, `${key}.s`, sIds, freeS, u.strategies || []))),
    h("div.pl-row", actButton(t("pms.pick"), go, { dataset: { act: "pick" } })),
    feedback(ctx, key));
}

// -- a turn -----------------------------------------------------------------------------------

function deployForm(ctx, ms, u) {
  const key = `${u.id}.deploy`;
  const oddOpts = ["ask", "attack", "defence"].map((o) => ({ value: o, label: t(`pms.odd.${o}`) }));
  const go = (row, button) => {
    const odd = val(ctx, `${key}.odd`, u.odd || "ask");
    const action = { kind: "mass.deploy", unit: u.id, row };
    if (odd !== "ask") action.odd = odd;
    return send(ctx, key, action, button);
  };
  return h("section.pl-form.pms-deploy", { dataset: { control: key } },
    h("div.pl-form-title", t("pms.row")),
    h("div.pl-buttons", ["front", "back"].map((row) => h("button.pl-row-btn", {
      type: "button", dataset: { row }, "aria-pressed": u.row === row ? "true" : "false",
      on: { click: (ev) => go(row, ev.currentTarget) },
    }, t(`pms.${row}`)))),
    u.strength % 2 ? h("div.pl-row", field(t("pms.odd"), select(ctx, `${key}.odd`, oddOpts, { dflt: u.odd || "ask", label: t("pms.odd"), name: "odd" }))) : null,
    feedback(ctx, key));
}

function formationForm(ctx, ms, u) {
  const key = `${u.id}.formation`;
  return h("section.pl-form.pms-formation", { dataset: { control: key } },
    h("div.pl-form-title", t("pms.formation")),
    h("div.pl-buttons", (u.formations || []).map((f) => h("button.pl-formation", {
      type: "button", dataset: { formation: f }, "aria-pressed": u.formation === f ? "true" : "false",
      title: ms.formations[f] ? `${ms.formations[f].ja_text} / ${ms.formations[f].en_text}` : "",
      on: { click: (ev) => send(ctx, key, { kind: "mass.formation", unit: u.id, formation: f }, ev.currentTarget) },
    }, f))),
    feedback(ctx, key));
}

function battleForm(ctx, ms, u, asGM) {
  const key = `${u.id}.battle`;
  if (u.acted) return h("p.muted.small.pms-acted", t("pms.acted"));
  if (ms.current !== u.id) {
    return h("p.muted.small.pms-wait", t("pms.wait", { name: ms.current ? unitName(ms, ms.current) : "—" }));
  }
  const mine = rowOf(u);
  const foes = Object.values(ms.units).filter((x) => x.side !== u.side && !x.routed);
  const targets = foes.map((x) => {
    const tr = rowOf(x);
    const illegal = mine === "back" && tr === "back";
    const hint = illegal ? t("pms.illegal") : (mine === "front" && tr === "front" ? t("pms.bonus") : t("pms.no_bonus"));
    return { value: x.id, label: `${x.name} (${t(tr === "front" ? "ms.front" : "ms.back")} · ${t("ms.defence")}${x.defence}) — ${hint}`, disabled: illegal };
  });
  const attack = (button) => {
    const action = { kind: "mass.attack", unit: u.id, target: val(ctx, `${key}.target`) };
    const lines = readRoll(ctx, key);
    if (lines !== null) {
      if (!lines.length) return localError(ctx, key, t("pl.need_lines"));
      action.result = lines[0];
    }
    return send(ctx, key, action, button);
  };
  const simple = (kind) => (button) => send(ctx, key, { kind, unit: u.id }, button);
  return h("section.pl-form.pms-battle", { dataset: { control: key } },
    h("div.pl-form-title", h("b", asGM ? t("pms.gm.turn", { name: u.name }) : t("pms.turn")), " ", h("span.muted.small", `${t("ms.attack")} ${u.attack} / ${t("ms.defence")} ${u.defence}`)),
    targets.length ? h("div.pl-row", field(t("pms.target"), select(ctx, `${key}.target`, targets, { label: t("pms.target"), name: "target" }), "wide")) : null,
    rollChoice(ctx, key),
    h("div.pl-row",
      targets.some((x) => !x.disabled) ? actButton(t("pms.attack"), attack, { dataset: { act: "attack" } }) : null,
      actButton(t("pms.defend"), simple("mass.defend"), { dataset: { act: "defend" } }),
      actButton(t("pms.reorganize"), simple("mass.reorganize"), { dataset: { act: "reorganize" } }),
      u.delayed ? null : actButton(t("pms.delay"), simple("mass.delay"), { dataset: { act: "delay" } })),
    feedback(ctx, key));
}

function strategyForm(ctx, ms, u) {
  const key = `${u.id}.strategy`;
  const usable = (u.strategies || []).filter((s) => {
    const spec = ms.strategies[s];
    const left = u.uses?.[s];
    return spec && !REACTIONS.has(spec.effect) && (left === null || left === undefined || left > 0)
      && (spec.effect !== "stones" || ms.step === "tactics");
  });
  if (!usable.length) {
    return h("section.pl-form.pms-strategy", { dataset: { control: key } },
      h("div.pl-form-title", t("pms.strategy")), h("p.muted.small", t("pms.strategy.none")), feedback(ctx, key));
  }
  const options = usable.map((s) => {
    const left = u.uses?.[s];
    return { value: s, label: left === null || left === undefined ? `${s} (∞)` : `${s} (${t("pms.uses", { n: left })})` };
  });
  const sid = val(ctx, `${key}.pick`, usable[0]);
  const spec = ms.strategies[sid] || {};
  const units = Object.values(ms.units).filter((x) => !x.routed);
  const targetOpts = [{ value: "", label: t("pms.no_target") }, ...units.map((x) => ({ value: x.id, label: `${x.name} (${ms.sides[x.side]?.name ?? x.side})` }))];
  const go = (button) => {
    const action = { kind: "mass.strategy", unit: u.id, strategy: val(ctx, `${key}.pick`) };
    const target = val(ctx, `${key}.target`, "");
    if (target) action.target = target;
    if (FORMATION_CHANGE.has(spec.effect)) action.formation = val(ctx, `${key}.formation`);
    const lines = readRoll(ctx, key);
    if (lines !== null) {
      if (!lines.length) return localError(ctx, key, t("pl.need_lines"));
      action.results = lines;
    }
    return send(ctx, key, action, button);
  };
  return h("section.pl-form.pms-strategy", { dataset: { control: key } },
    h("div.pl-form-title", t("pms.strategy")),
    h("div.pl-row",
      field(t("pms.strategy.pick"), select(ctx, `${key}.pick`, options, { label: t("pms.strategy.pick"), name: "strategy", redraw: true })),
      field(t("pms.strategy.target"), select(ctx, `${key}.target`, targetOpts, { dflt: "", label: t("pms.strategy.target"), name: "target" })),
      FORMATION_CHANGE.has(spec.effect) ? field(t("pms.change_to"), select(ctx, `${key}.formation`,
        (u.formations || []).map((f) => ({ value: f, label: f })), { label: t("pms.change_to"), name: "formation" })) : null),
    spec.ja_text ? h("p.small.muted.pms-strategy-text", pick({ ja: spec.ja_text, en: spec.en_text })) : null,
    rollChoice(ctx, key, { many: true }),
    h("div.pl-row", actButton(t("pms.strategy.use"), go, { dataset: { act: "strategy" } })),
    (u.strategies || []).some((s) => REACTIONS.has(ms.strategies[s]?.effect)) ? h("p.small.muted", t("pms.strategy.reaction")) : null,
    feedback(ctx, key));
}

/** Who leads `u`, for the GM's card: its player's name, or the GM's own unit. */
function leadWords(ctx, u) {
  if (!u.player) return t("pms.gm.npc");
  return t("pms.gm.player", { name: ctx.state?.meta?.players?.[u.player]?.name || u.player });
}

/**
 * One unit's card: every control its side may use in this step. `asGM`: the GM plays the
 * unit (its own or an absent player's), marked 「GMとして」 instead of "you".
 */
export function unitCard(ctx, ms, u, { asGM = false } = {}) {
  let body;
  if (ms.outcome !== "none") body = h("p.muted.small", t("pms.over"));
  else if (u.routed) body = h("p.muted.small", t("pms.routed"));
  else if (ms.step === "preparation") body = [strengthForm(ctx, ms, u), picksForm(ctx, ms, u)];
  else {
    const step = { deployment: deployForm, tactics: formationForm, battle: battleForm }[ms.step];
    body = [step ? step(ctx, ms, u, asGM) : null, strategyForm(ctx, ms, u)];
  }
  return h("div.pl-card.pms-card", { class: asGM ? "pms-as-gm" : null, dataset: { unit: u.id, row: u.row || "" } },
    h("div.pl-card-head", h("b.pl-pc-name", u.name), " ", asGM ? [asGMBadge(), h("span.muted.small.pms-lead", leadWords(ctx, u))] : meBadge(),
      u.commander ? h("span.badge.warn", t("ms.commander")) : null,
      h("span.small", h("span.muted", `${t("ms.strength")} `), h("b.pms-strength-now", `${u.strength}/${u.max_strength ?? "?"}`)),
      u.lp !== null && u.lp !== undefined ? h("span.small", h("span.muted", " LP "), h("b", String(u.lp))) : null,
      u.row ? h("span.badge", t(u.row === "front" ? "ms.front" : "ms.back")) : null,
      u.formation ? h("span.badge", u.formation) : null),
    body);
}

/** A new turn or step starts with the controls' answers cleared (they told of the last one); true then. */
export function freshStep(ctx, ms) {
  const now = `${ms.turn}/${ms.step}`;
  if (ctx.ui.step === now) return false;
  ctx.ui.step = now;
  ctx.ui.out = {};
  return true;
}

registerPanel({
  id: "player_mass",
  key: "mass",
  area: "side",
  order: 5,
  roles: ["player"],
  title: () => t("pms.title"),
  strings: STRINGS,
  render(ctx) {
    const ms = ctx.data;
    freshStep(ctx, ms);
    const mine = Object.values(ms.units || {}).filter((u) => u.player && u.player === ctx.player);
    if (!mine.length) return h("p.muted.small", t("pms.none"));
    return h("div.pl-mass", mine.map((u) => unitCard(ctx, ms, u)));
  },
});
