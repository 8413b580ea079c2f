// Base battle (rules.md BASE-*, docs/bases.md): bases with GP, state, attributes, elements
// with their counts, and the manual triggers waiting for the GM (conditions the engine
// cannot evaluate, BASE-COND-5). Hidden bases / GP / element parts carry the "GM only"
// badge. Actions: `bases.round` (command, key `r`), `bases.fire` (manual triggers; `active`
// switches a constant effect), `bases.reveal` (a base or one element).

import { h } from "../dom.js";
import { asGMWords } from "../words.js";
import { registerPanel } from "../registry.js";
import { t, pick } from "../i18n.js";

const K = "bases";
const STATES = ["active", "stopped", "excited", "destroyed"];
const ELEMENT_FIELDS = ["gp_conditions", "constants", "events"];

const STRINGS = {
  ja: {
    "bases.do.report": "{character}について報告: {happening}",
    "bases.do.round": "ラウンドを進める",
    "bases.do.fire": "「{element}」を発動",
    "bases.do.trigger": "{character}が「{event}」を誘発",
    "bases.do.effect": "効果を適用: {effect}",
    "bases.do.reveal": "{base}を公開",
    "bases.do.count": "人数を更新: {side}",
    "bases.do.summary": "{base}の概要を更新",
    "bases.do.end": "戦闘を終える",
    "bases.do.element": "{base}の{kind}",
    "bases.do.element.cond": "{base}の{kind}（{cond}）",
    "bases.title": "拠点戦闘",
    "bases.round": "第{n}ラウンド",
    "bases.battle": "戦闘種別",
    "bases.gp": "GP", "bases.base_gp": "基本GP", "bases.state": "状態",
    "bases.state.active": "活動", "bases.state.stopped": "停止", "bases.state.excited": "励起",
    "bases.state.destroyed": "撃破",
    "bases.side.pc": "PC側", "bases.side.enemy": "敵側", "bases.side.none": "中立",
    "bases.attr.core": "コア", "bases.attr.permanent": "永久",
    "bases.gp_hidden": "GP非公開",
    "bases.hidden_parts": "非公開: {parts}", "bases.part.element": "全体", "bases.part.name": "名前", "bases.part.condition": "条件", "bases.part.effect": "効果", "bases.part.delta": "GPの増減", "bases.part.count": "回数",
    "bases.el.gp_conditions": "GP変化条件", "bases.el.constants": "常時効果", "bases.el.events": "イベント",
    "bases.applied": "適用{n}回", "bases.fired": "発動 {n}/{max}", "bases.on": "有効", "bases.off": "無効",
    "bases.manual": "手動の誘発（GMが判断）",
    "bases.manual.none": "待っている手動の誘発はありません。",
    "bases.fire": "発動",
    "bases.manual_on": "GM判断で有効",
    "bases.note": "GMメモ",
    "bases.notes": "シナリオの注意",
    "bases.sides": "戦場のキャラクター",
    "bases.outcome": "決着",
    "bases.none": "拠点はありません。",
    "bases.next_round": "次のラウンドへ",
    "bases.reveal.base": "存在を公開", "bases.reveal.gp": "GPも公開", "bases.reveal.all": "すべて公開",
    "bases.switch_on": "有効にする", "bases.switch_off": "無効にする",
    "bases.defined": "定義された条件",
  },
  en: {
    "bases.do.report": "reported for {character}: {happening}",
    "bases.do.round": "moved on to the next round",
    "bases.do.fire": "fired “{element}”",
    "bases.do.trigger": "{character} triggered “{event}”",
    "bases.do.effect": "applied an effect: {effect}",
    "bases.do.reveal": "revealed {base}",
    "bases.do.count": "updated the head count: {side}",
    "bases.do.summary": "updated the summary of {base}",
    "bases.do.end": "ended the battle",
    "bases.do.element": "{kind} of {base}",
    "bases.do.element.cond": "{kind} of {base} ({cond})",
    "bases.title": "Base battle",
    "bases.round": "Round {n}",
    "bases.battle": "battle type",
    "bases.gp": "GP", "bases.base_gp": "base GP", "bases.state": "state",
    "bases.state.active": "active", "bases.state.stopped": "stopped", "bases.state.excited": "excited",
    "bases.state.destroyed": "destroyed",
    "bases.side.pc": "PC side", "bases.side.enemy": "enemy side", "bases.side.none": "neutral",
    "bases.attr.core": "core", "bases.attr.permanent": "permanent",
    "bases.gp_hidden": "GP hidden",
    "bases.hidden_parts": "hidden: {parts}", "bases.part.element": "the whole element", "bases.part.name": "name", "bases.part.condition": "condition", "bases.part.effect": "effect", "bases.part.delta": "GP change", "bases.part.count": "count",
    "bases.el.gp_conditions": "GP change conditions", "bases.el.constants": "Constant effects", "bases.el.events": "Events",
    "bases.applied": "applied {n}×", "bases.fired": "fired {n}/{max}", "bases.on": "on", "bases.off": "off",
    "bases.manual": "Manual triggers (the GM decides)",
    "bases.manual.none": "No manual trigger is waiting.",
    "bases.fire": "Fire",
    "bases.manual_on": "on by the GM's word",
    "bases.note": "GM note",
    "bases.notes": "Scenario notes",
    "bases.sides": "Characters on the field",
    "bases.outcome": "Outcome",
    "bases.none": "No bases.",
    "bases.next_round": "Next round",
    "bases.reveal.base": "Reveal base", "bases.reveal.gp": "Reveal GP", "bases.reveal.all": "Reveal all",
    "bases.switch_on": "Switch on", "bases.switch_off": "Switch off",
    "bases.defined": "Defined conditions",
  },
};

const B = (path, rule, ja, en) => ({ path: [K, "bases", "*", ...path], rule, ja, en });
const RULES = [
  B(["gp"], "BASE-GP-2", "GPは0未満にならない", "GP never goes below 0"),
  B(["gp"], "BASE-GP-3", "GPが0になると撃破状態になる", "GP reaching 0 destroys the base"),
  B(["base_gp"], "BASE-GP-1", "GPの初期値", "the initial GP"),
  B(["state"], "BASE-ST-1", "活動・停止・励起・撃破のどれか一つ", "exactly one of active, stopped, excited, destroyed"),
  B(["state"], "BASE-TR-2", "停止中の励起は再起動、励起中の停止は鎮静（打ち消し合う）",
    "exciting a stopped base restarts it; stopping an excited one calms it"),
  B(["hidden"], "BASE-OPT-2", "非公開の拠点はプレイヤーに送られない", "a hidden base never reaches the players"),
  B(["gp_hidden"], "BASE-OPT-2", "GPは0になった時に公開される", "the GP shows when it reaches 0"),
  B(["events", "*", "fired"], "BASE-EL-1", "発動回数まで、条件を満たすたびに発動", "fires each time its condition holds, up to its count"),
  B(["gp_conditions", "*", "applied"], "BASE-EL-1", "条件を満たすたびにGPが変化", "GP changes each time the condition holds"),
  B(["constants", "*", "manual_on"], "BASE-COND-5", "エンジンが判定できない条件はGMが判断", "conditions the engine cannot evaluate are the GM's call"),
  B(["constants", "*", "active"], "BASE-EL-1", "条件を満たしている間だけ有効", "applies while its condition holds"),
  { path: [K, "sides", "*", "on_field"], rule: "BASE-COND-5", ja: "登場・戦闘不能・回復・退場の報告で増減",
    en: "follows the reports of entered / incapacitated / recovered / left" },
  { path: [K, "sides", "*", "incapacitated"], rule: "BASE-TYPE-1", ja: "全員戦闘不能の陣営は敗北（戦闘種別による）",
    en: "a side all incapacitated loses (per the battle type)" },
  { path: [K, "round"], rule: "BASE-COND-1", ja: "【Nラウンド〜】の条件に使われる", en: "used by 【N round〜】 conditions" },
];

const hasManual = (el) => (el.conditions || []).some((b) => b.manual !== null && b.manual !== undefined);
const condText = (el) => (el.conditions || []).map((b) => b.text).join(" / ");

function stateBadge(s) {
  return h("span", { class: `badge state-${s}` }, t(`bases.state.${s}`));
}

function reveal(ctx, what) {
  return ctx.act({ kind: "bases.reveal", what: "all", ...what });
}

function fire(ctx, element, extra = {}) {
  return ctx.act({ kind: "bases.fire", element, ...extra });
}

/** What to call an element: its name, else (GP change conditions) its condition text. */
function label(el) {
  return el.name || condText(el) || el.id;
}

function elementRow(ctx, base, field, el, i) {
  const path = [K, "bases", base.id, field, i];
  const hidden = el.hidden || [];
  let counts;
  if (field === "gp_conditions") {
    counts = [h("span.badge", `${el.delta > 0 ? "+" : ""}${el.delta ?? "?"}`), " ",
      ctx.editable([...path, "applied"], el.applied ?? 0, { type: "int", display: t("bases.applied", { n: el.applied ?? 0 }) })];
  } else if (field === "events") {
    counts = ctx.editable([...path, "fired"], el.fired ?? 0, { type: "int",
      display: t("bases.fired", { n: el.fired ?? 0, max: el.count ?? "∞" }) });
  } else {
    counts = ctx.editable([...path, "active"], !!el.active, { type: "bool", display: el.active ? t("bases.on") : t("bases.off") });
  }
  return h("li.base-element", { dataset: { element: el.id } },
    h("span.el-name", el.name ?? ""), el.name ? " " : null, counts,
    hidden.length ? [" ", ctx.gmBadge(hidden.includes("element") ? el.id : undefined),
      h("span.muted.small", ` ${t("bases.hidden_parts", { parts: hidden.map((p) => t(`bases.part.${p}`)).join("・") })}`),
      ctx.isGM ? [" ", h("button.small", { type: "button", dataset: { revealElement: el.id },
        on: { click: () => reveal(ctx, { element: el.id }) } }, t("reveal"))] : null] : null,
    condText(el) ? h("div.small.muted.el-cond", condText(el)) : null,
    el.effect ? h("div.small.el-effect", el.effect) : null);
}

function manualTriggers(ctx, bases) {
  const items = [];
  for (const base of bases) {
    for (const field of ["constants", "events", "gp_conditions"]) {
      (base[field] || []).forEach((el) => {
        if (!hasManual(el)) return;
        if (field === "events" && el.count !== null && el.count !== undefined && (el.fired ?? 0) >= el.count) return;
        const manual = el.conditions.filter((b) => b.manual).map((b) => b.manual).join(" / ");
        let control = null;
        if (ctx.isGM && field === "constants") {
          control = [h("span.small", `${t("bases.manual_on")}: ${el.manual_on ? t("bases.on") : t("bases.off")} `),
            h("button.small.primary", { type: "button", dataset: { fire: el.id },
              on: { click: () => fire(ctx, el.id, { active: !el.manual_on }) } },
            el.manual_on ? t("bases.switch_off") : t("bases.switch_on"))];
        } else if (ctx.isGM) {
          control = h("button.small.primary", { type: "button", dataset: { fire: el.id },
                                                on: { click: () => fire(ctx, el.id) } }, t("bases.fire"));
        }
        items.push(h("li.manual-trigger", { dataset: { element: el.id } },
          h("b", base.name), " — ", label(el), " ", h("span.muted.small", `(${t(`bases.el.${field}`)})`),
          field === "gp_conditions" ? h("span.badge", ` ${el.delta > 0 ? "+" : ""}${el.delta}`) : null,
          h("div.small", manual || condText(el)), control));
      });
    }
  }
  return h("section.sub.bases-manual", h("h4", t("bases.manual")),
    items.length ? h("ul.plain", items) : h("p.muted.small", t("bases.manual.none")));
}

/** BASE-OPT-2 reveal: the base's existence, its GP too, or everything in it. */
function revealButtons(ctx, base) {
  if (!ctx.isGM) return null;
  const anyElement = ELEMENT_FIELDS.some((f) => (base[f] || []).some((el) => (el.hidden || []).length));
  const choices = [];
  if (base.hidden) choices.push(["base", t("bases.reveal.base")]);
  if (base.gp_hidden) choices.push(["gp", t("bases.reveal.gp")]);
  if (anyElement || choices.length) choices.push(["all", t("bases.reveal.all")]);
  if (!choices.length) return null;
  return h("span.reveal-buttons", choices.map(([what, text]) => [" ", h("button.small", {
    type: "button", dataset: { reveal: base.id, what },
    on: { click: () => reveal(ctx, { base: base.id, what }) } }, text)]));
}

function baseCard(ctx, base) {
  const path = [K, "bases", base.id];
  const attrs = (base.attributes || []).map((a) => h("span.badge.attr", t(`bases.attr.${a}`) === `bases.attr.${a}` ? a : t(`bases.attr.${a}`)));
  const gp = "gp" in base
    ? [ctx.editable([...path, "gp"], base.gp, { type: "int", label: base.name }), h("span.muted", " / "),
       ctx.editable([...path, "base_gp"], base.base_gp, { type: "int" })]
    : h("span.muted", "?");
  return h("div", { class: `base-card side-${base.side || "none"}${base.hidden ? " hidden-item" : ""}`, dataset: { base: base.id } },
    h("div.base-head",
      h("b.base-name", base.name), " ",
      h("span.muted.small", t(`bases.side.${base.side || "none"}`)), " ", attrs,
      base.hidden ? [" ", ctx.gmBadge(base.id)] : null,
      base.gp_hidden ? [" ", h("span.badge.gm-only", { title: t("gm_only.title") }, t("bases.gp_hidden"))] : null,
      revealButtons(ctx, base)),
    h("div.base-stats",
      h("span", h("span.muted", `${t("bases.gp")} `), gp), " ",
      h("span", h("span.muted", `${t("bases.state")} `), ctx.editable([...path, "state"], base.state, {
        options: STATES.map((s) => ({ value: s, label: t(`bases.state.${s}`) })), display: stateBadge(base.state) }))),
    base.summary ? h("div.small", base.summary) : null,
    base.note ? h("div.small.base-note", ctx.gmBadge(), ` ${t("bases.note")}: ${base.note}`) : null,
    ELEMENT_FIELDS.filter((f) => (base[f] || []).length).map((f) => h("div.base-elements",
      h("div.muted.small", t(`bases.el.${f}`)),
      h("ul.plain", base[f].map((el, i) => elementRow(ctx, base, f, el, i))))));
}

function render(ctx) {
  const bs = ctx.data;
  const bases = Object.values(bs.bases || {});
  const sides = bs.sides ? h("span.small.bases-sides", h("span.muted", `${t("bases.sides")}: `),
    Object.entries(bs.sides).map(([side, c]) => h("span", `${t(`bases.side.${side}`)} `,
      ctx.editable([K, "sides", side, "on_field"], c.on_field ?? 0, { type: "int" }), " / ",
      ctx.editable([K, "sides", side, "incapacitated"], c.incapacitated ?? 0, { type: "int" }), " "))) : null;
  const defined = Object.entries(bs.defined || {});
  return h("div.bases",
    h("div.td-status",
      h("span", ctx.editable([K, "round"], bs.round ?? 0, { type: "int", display: t("bases.round", { n: bs.round ?? 0 }) })),
      bs.battle ? h("span.small", `${t("bases.battle")}: ${bs.battle.name} (${bs.battle.rule})`) : null,
      bs.outcome ? h("span.badge.bad", `${t("bases.outcome")}: ${pick(bs.outcome)}`) : null,
      sides),
    bs.summary ? h("p.small", bs.summary) : null,
    bases.length ? h("div.base-grid", bases.map((b) => baseCard(ctx, b))) : h("p.muted", t("bases.none")),
    manualTriggers(ctx, bases),
    defined.length ? h("section.sub", h("h4", t("bases.defined")), h("ul.plain.small",
      defined.map(([name, d]) => h("li", h("b", `【${name}】`), " ", d.text)))) : null,
    bs.notes && bs.notes.length ? h("section.sub", h("h4", t("bases.notes"), " ", ctx.gmBadge()),
      h("ul.plain.small", bs.notes.map((n) => h("li", n)))) : null);
}

/** The timeline's sentence for a `bases.*` action, with names from the state. */
function describe(a, state, entry) {
  const b = state[K];
  if (!b || !String(a.kind || "").startsWith("bases.")) return null;
  const name = (table, id) => (table && table[id] && table[id].name) || id || "";
  const happening = a.happening ? t(`pb.h.${a.happening}`) : "";
  const p = {
    character: name(b.characters, a.character) || t(`bases.side.${a.side || "pc"}`),
    happening: happening.startsWith("pb.h.") ? a.happening : happening,
    element: elementName(b, a.element), event: elementName(b, a.event),
    effect: typeof a.effect === "string" ? a.effect : JSON.stringify(a.effect ?? ""),
    base: name(b.bases, a.base), side: t(`bases.side.${a.side || "pc"}`),
  };
  const key = `bases.do.${a.kind.slice(6)}`;
  const text = t(key, p);
  if (text === key) return null;
  // a character's trigger or report the GM sent for it (panels/bases_act.js) says so
  const acted = (a.kind === "bases.trigger" || a.kind === "bases.report") && a.character;
  return acted ? asGMWords(entry?.actor, b.characters?.[a.character]?.player, state, text) : text;
}

/** An element by its name, else its base's name and kind with its condition (never its id). */
function elementName(b, id) {
  if (!id) return "";
  for (const base of Object.values(b.bases || {})) {
    for (const field of ELEMENT_FIELDS) {
      const el = (base[field] || []).find((e) => e.id === id);
      if (el) {
        const cond = condText(el);
        return el.name || t(cond ? "bases.do.element.cond" : "bases.do.element",
          { base: base.name, kind: t(`bases.el.${field}`), cond });
      }
    }
  }
  return id;
}

registerPanel({
  id: "bases",
  key: K,
  describe,
  order: 20,
  title: () => t("bases.title"),
  strings: STRINGS,
  rules: RULES,
  secret: (path, state) => {
    if (path[0] !== K) return false;
    if (path[1] === "notes") return true;
    if (path[1] !== "bases" || path.length < 3) return false;
    const base = state?.[K]?.bases?.[path[2]];
    if (!base) return false;
    if (base.hidden || path[3] === "note") return true;
    if (base.gp_hidden && (path[3] === "gp" || path[3] === "base_gp")) return true;
    if (ELEMENT_FIELDS.includes(String(path[3])) && path.length >= 5) {
      return (base[path[3]]?.[path[4]]?.hidden || []).length > 0;
    }
    return false;
  },
  headline: (ctx) => `${t("bases.title")} ${t("bases.round", { n: ctx.data.round ?? 0 })}`,
  commands: [{
    id: "bases.round",
    key: "r",
    label: () => t("bases.next_round"),
    enabled: (ctx) => !ctx.data.outcome,
    run: (ctx) => ctx.act({ kind: "bases.round" }),
  }],
  render,
});
