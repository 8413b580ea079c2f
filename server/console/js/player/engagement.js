// The player's engagement controls (engine/engagement, seed 004): one card per own
// character — row, counters, partners and who it may still melee at the setup — with
// its declarations: approach (ENG-ACT-1), melee (ENG-ACT-2), the defence when it is
// attacked or an ally is (evade, guard, cover: ENG-GUARD, ENG-COVER), the BCDice line of
// a check that waits for it, and the handover questions it is asked (ENG-HAND-1). Each
// check is rolled by komasync, pasted, or rolled in the VTT chat. The server refuses
// what is not allowed, with the rule and the reason shown under the control. The GM panel
// (panels/engagement.js) draws the same card for whoever the GM plays (issue 30).

import { h } from "../dom.js";
import { registerPanel } from "../registry.js";
import { t } from "../i18n.js";
import { actButton, feedback, field, input, localError, select, send, val } from "./common.js";
import {
  ENG_STRINGS, ROLL_MODES, characters, counterText, nameOf, partners, rollFields, setupTargets,
} from "../panels/engagement_view.js";

const STRINGS = {
  ja: {
    "pe.title": "あなたのキャラクター（接近状態）", "pe.row": "列: {row}", "pe.to_front": "前衛へ", "pe.to_back": "後衛へ",
    "pe.partners": "接近中: {names}", "pe.alone": "接近状態なし", "pe.setup": "セットアップの近接攻撃: {names}",
    "pe.setup_used": "セットアップの近接攻撃は使用済み",
    "pe.approach": "接近", "pe.melee": "近接攻撃", "pe.target": "対象", "pe.dp": "DP", "pe.grazes": "グレイズ",
    "pe.roll": "ダイス", "pe.roll.engine": "komasyncで振る", "pe.roll.paste": "BCDiceの結果を貼る", "pe.roll.vtt": "VTTのチャットで振る",
    "pe.line": "BCDiceの結果（1行）", "pe.defend": "防御", "pe.attacked": "「{a}」の{what}が「{t}」に来ています",
    "pe.report": "結果を送る", "pe.your_roll": "{what}の結果を待っています（{dice}D{sides}{base}）",
    "pe.handover": "「{p}」と新しい接近状態ができました。離脱しますか？（ENG-HAND-1）",
    "pe.need_line": "結果の行を貼り付けてください。",
  },
  en: {
    "pe.title": "Your characters (engagement)", "pe.row": "row: {row}", "pe.to_front": "to front", "pe.to_back": "to back",
    "pe.partners": "engaged with: {names}", "pe.alone": "not engaged", "pe.setup": "setup melee: {names}",
    "pe.setup_used": "setup melee used",
    "pe.approach": "Approach", "pe.melee": "Melee", "pe.target": "target", "pe.dp": "DP", "pe.grazes": "grazes",
    "pe.roll": "dice", "pe.roll.engine": "roll with komasync", "pe.roll.paste": "paste a BCDice result", "pe.roll.vtt": "roll in the VTT chat",
    "pe.line": "BCDice result (one line)", "pe.defend": "Defend", "pe.attacked": "{a}'s {what} is coming at {t}",
    "pe.report": "Send the result", "pe.your_roll": "Your {what} result is awaited ({dice}D{sides}{base})",
    "pe.handover": "A new engagement with {p} formed. Leave it? (ENG-HAND-1)",
    "pe.need_line": "Paste the result line.",
  },
};

const mine = (ctx, c) => c.side === "pc" && (c.owner === ctx.player || c.movers.includes(ctx.player));

function rollInputs(ctx, key) {
  const mode = val(ctx, `${key}.roll`, "engine");
  return [
    field(t("pe.roll"), select(ctx, `${key}.roll`, ROLL_MODES.map((m) => ({ value: m, label: t(`pe.roll.${m}`) })),
      { dflt: "engine", label: t("pe.roll"), name: "roll", redraw: true })),
    mode === "paste" ? field(t("pe.line"), input(ctx, `${key}.line`, { type: "text", name: "line", "aria-label": t("pe.line") }, ""), "wide") : null,
  ];
}

const rollOf = (ctx, key, melee) => rollFields(val(ctx, `${key}.roll`, "engine"), String(val(ctx, `${key}.line`, "")).trim(), melee);

function declare(ctx, c, key, body, button) {
  const roll = rollOf(ctx, key, body.kind === "engagement.melee");
  if (roll === null) {
    localError(ctx, key, t("pe.need_line"));
    return;
  }
  send(ctx, key, { ...body, combatant: c.id, ...roll }, button);
}

function approachForm(ctx, c, chars) {
  const key = `pe.${c.id}.approach`;
  const foes = chars.filter((o) => o.side !== c.side && o.side !== "neutral");
  return h("div.pe-form", { dataset: { form: "approach" } }, h("div.pl-row",
    field(t("pe.target"), select(ctx, `${key}.target`, foes.map((o) => ({ value: o.id, label: o.name })), { label: t("pe.target"), name: "target" })),
    field(t("pe.dp"), input(ctx, `${key}.dp`, { type: "number", min: 0, max: 100, name: "dp", "aria-label": t("pe.dp") }, 3)),
    rollInputs(ctx, key),
    actButton(t("pe.approach"), (button) => declare(ctx, c, key, { kind: "engagement.approach",
      target: val(ctx, `${key}.target`, foes[0]?.id), dp: Number(val(ctx, `${key}.dp`, 3)) || 0 }, button),
    { dataset: { act: "engagement.approach" } })), feedback(ctx, key));
}

function meleeForm(ctx, c, targets) {
  const key = `pe.${c.id}.melee`;
  return h("div.pe-form", { dataset: { form: "melee" } }, h("div.pl-row",
    field(t("pe.target"), select(ctx, `${key}.target`, targets.map((id) => ({ value: id, label: nameOf(ctx.state, id) })),
      { label: t("pe.target"), name: "target" })),
    field(t("pe.dp"), select(ctx, `${key}.dp`, ["1", "3", "6"].map((d) => ({ value: d, label: d })), { dflt: "3", label: t("pe.dp"), name: "dp" })),
    field(t("pe.grazes"), input(ctx, `${key}.grazes`, { type: "number", min: 0, max: 100, name: "grazes", "aria-label": t("pe.grazes") }, 0)),
    rollInputs(ctx, key),
    actButton(t("pe.melee"), (button) => declare(ctx, c, key, { kind: "engagement.melee",
      target: val(ctx, `${key}.target`, targets[0]), dp: Number(val(ctx, `${key}.dp`, "3")),
      grazes: Number(val(ctx, `${key}.grazes`, 0)) || 0 }, button), { dataset: { act: "engagement.melee" } })),
  feedback(ctx, key));
}

/** The open attack waits for this character's answer (the server's `awaiting`): it is
 * the target, or an ally who could still guard or cover for it. */
function defenceForm(ctx, c) {
  const x = ctx.data.exchange;
  const w = x?.awaiting;
  if (!w || (w.what !== "defence" && w.what !== "cover")) return null;
  if (!w.who.includes(c.id) && w.decides !== c.id) return null;
  const self = x.target === c.id;
  const kinds = self ? (x.attack === "approach" ? ["none"] : ["evade", "guard", "none"]) : (x.attack === "approach" ? ["cover"] : ["guard", "cover"]);
  const key = `pe.${c.id}.defend`;
  const what = t(`eng.attack.${x.attack}`);
  return h("div.pe-form.pe-defend", { dataset: { form: "defend" } },
    h("div.small", t("pe.attacked", { a: nameOf(ctx.state, x.attacker), what, t: nameOf(ctx.state, x.target) })),
    h("div.pl-row",
      field(t("pe.defend"), select(ctx, `${key}.kind`, kinds.map((k) => ({ value: k, label: t(`eng.def.${k}`) })),
        { dflt: kinds[0], label: t("pe.defend"), name: "defence" })),
      field(t("pe.dp"), input(ctx, `${key}.dp`, { type: "number", min: 0, max: 100, name: "dp", "aria-label": t("pe.dp") }, 2)),
      rollInputs(ctx, key),
      actButton(t("pe.defend"), (button) => {
        const kind = val(ctx, `${key}.kind`, kinds[0]);
        const body = { kind: "engagement.defend", defence: kind, dp: kind === "none" ? 0 : Number(val(ctx, `${key}.dp`, 2)) || 0 };
        if (kind === "none") send(ctx, key, { ...body, combatant: c.id }, button);
        else declare(ctx, c, key, body, button);
      }, { dataset: { act: "engagement.defend" } })),
    feedback(ctx, key));
}

/** A check of this character waits for its BCDice line. */
function rollForm(ctx, c) {
  const x = ctx.data.exchange;
  const check = x?.check;
  const awaited = x?.awaiting?.what;
  if (!check || !["attack_check", "defence_check", "damage"].includes(awaited) || !x.awaiting.who.includes(c.id)) return null;
  const key = `pe.${c.id}.roll`;
  const what = t(check.purpose === "damage" ? "eng.what.damage" : "eng.what.check");
  return h("div.pe-form.pe-roll", { dataset: { form: "roll" } },
    h("div.small", t("pe.your_roll", { what, dice: check.dice, sides: check.sides, base: check.base >= 0 ? `+${check.base}` : String(check.base) })),
    h("div.pl-row", field(t("pe.line"), input(ctx, `${key}.line`, { type: "text", name: "line", "aria-label": t("pe.line") }, ""), "wide"),
      actButton(t("pe.report"), (button) => send(ctx, key, { kind: "engagement.roll", combatant: c.id,
        result: String(val(ctx, `${key}.line`, "")).trim() || "-" }, button), { dataset: { act: "engagement.roll" } })),
    feedback(ctx, key));
}

/** ENG-HAND-1 questions to this player about this character: prompts of kind
 * `engagement.handover` whose `about.leaving` is it (`about.from`: the partner it leaves). */
function handovers(ctx, c) {
  return Object.values(ctx.state.prompts || {}).filter((q) => q.kind === "engagement.handover" && q.about?.leaving === c.id).map((q) => {
    const key = `pe.offer.${q.id}`;
    const answer = (choice) => (button) => send(ctx, key, { kind: "answer", prompt: q.id, choice }, button);
    return h("div.pe-handover", { dataset: { offer: q.id, from: q.about.from || "" } },
      h("div.small", t("pe.handover", { p: nameOf(ctx.state, q.about.from) })),
      h("div.pl-row", actButton(t("eng.leave"), answer("leave"), { dataset: { choice: "leave" } }),
        h("button", { type: "button", dataset: { choice: "stay" }, on: { click: (ev) => answer("stay")(ev.currentTarget) } }, t("eng.stay"))),
      feedback(ctx, key));
  });
}

/** One character's card with every declaration open to it now (the GM's console draws it too). */
export function engagementCard(ctx, c, chars) {
  const e = ctx.data;
  const names = partners(e, c.id).map((id) => nameOf(ctx.state, id));
  const setup = setupTargets(e, c.id);
  const meleeTargets = e.phase === "setup" ? setup : partners(e, c.id);
  const other = (c.row || "front") === "front" ? "back" : "front";
  const rowKey = `pe.${c.id}.row`;
  const free = e.active && !e.exchange;
  return h("li.pl-card.pe-card", { dataset: { combatant: c.id } },
    h("div.pl-row", h("b.pl-pc-name", c.name), h("span.small", t("pe.row", { row: t(`eng.row.${c.row || "none"}`) })),
      h("button.link.small", { type: "button", dataset: { act: "engagement.row", row: other },
        on: { click: (ev) => send(ctx, rowKey, { kind: "engagement.row", combatant: c.id, row: other }, ev.currentTarget) } },
      t(`pe.to_${other}`)), h("span.small.muted", counterText(ctx.state, c))),
    feedback(ctx, rowKey),
    h("div.small.pe-partners", names.length ? t("pe.partners", { names: names.join("・") }) : t("pe.alone")),
    e.active && e.phase === "setup" && names.length ? h("div.small.pe-setup", e.used?.[c.id]?.setup_melee === e.turn
      ? t("pe.setup_used") : t("pe.setup", { names: setup.map((id) => nameOf(ctx.state, id)).join("・") || t("eng.nobody") })) : null,
    handovers(ctx, c), rollForm(ctx, c), defenceForm(ctx, c),
    free && e.phase === "main" ? approachForm(ctx, c, chars) : null,
    free && meleeTargets.length && e.phase !== "cleanup" ? meleeForm(ctx, c, meleeTargets) : null);
}

registerPanel({
  id: "player_engagement",
  key: "engagement",
  area: "side",
  order: 7,
  roles: ["player"],
  title: () => t("pe.title"),
  strings: { ja: { ...ENG_STRINGS.ja, ...STRINGS.ja }, en: { ...ENG_STRINGS.en, ...STRINGS.en } },
  render(ctx) {
    const chars = characters(ctx.state);
    const own = chars.filter((c) => mine(ctx, c));
    if (!own.length) return null;
    return h("ul.plain.pe-cards", own.map((c) => engagementCard(ctx, c, chars)));
  },
});
