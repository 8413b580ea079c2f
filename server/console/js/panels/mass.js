// Mass combat (rules.md MASS-*): both sides' front and back rows with each unit's
// strength bar, attack/defence and formation; the turn and its step; the battle order
// with the unit to act; the pending attack; active strategies and uses left.
// Command: next step (`mass.next_step`, key `n`).

import { h } from "../dom.js";
import { registerPanel } from "../registry.js";
import { asGMWords } from "../words.js";
import { t, pick } from "../i18n.js";
import { nextPhase, phaseName, phaseSpec, phases } from "../phases.js";

const K = "mass";

const STRINGS = {
  ja: {
    "ms.title": "マスコンバット",
    "ms.turn": "第{n}ターン",
    "ms.next": "次へ: {step}", "ms.end_turn": "ターン終了",
    "ms.outcome.none": "決着前", "ms.outcome.won": "{side}の勝利", "ms.outcome.draw": "引き分け",
    "ms.front": "前列", "ms.back": "後列", "ms.unplaced": "未配置", "ms.routed": "敗走",
    "ms.commander": "総大将", "ms.strength": "戦力", "ms.attack": "攻", "ms.defence": "防",
    "ms.attack.long": "攻撃力", "ms.defence.long": "防御力",
    "ms.formation": "陣形", "ms.active": "作戦", "ms.lp": "LP", "ms.leader": "指揮官",
    "ms.acted": "行動済み", "ms.delayed": "遅延", "ms.acting": "行動中", "ms.npc": "GM",
    "ms.order": "行動順", "ms.order.none": "（戦闘ステップで決まります）",
    "ms.pending": "攻撃中", "ms.die": "ダイス{d}", "ms.die.fixed": "（固定）",
    "ms.white_flag": "白旗", "ms.decoy": "囮",
    "ms.strategies": "作戦と残り回数", "ms.unit": "部隊", "ms.owned_f": "陣形",
    "ms.unlimited": "∞", "ms.stones": "投石部隊（ターン終了時）", "ms.none": "なし",
    "ms.mods": "このターンの修正",
    "ms.split_pending": "余り1点待ち", "ms.split_pending.long": "戦力が奇数: 余りの1点の振り分けを待っています（値は切り捨て）",
    "ms.side": "陣営", "ms.row": "配置",
    "ms.do.next_step": "次のステップへ（{step}）",
    "ms.do.strength": "「{unit}」の最大戦力を決める（{ability}）",
    "ms.do.pick": "「{unit}」の陣形・作戦を取得（{n}個）",
    "ms.do.deploy": "「{unit}」を{row}へ",
    "ms.do.formation": "「{unit}」の陣形を{formation}に",
    "ms.do.attack": "「{unit}」が「{target}」を攻撃",
    "ms.do.defend": "「{unit}」が防御",
    "ms.do.reorganize": "「{unit}」が再編成",
    "ms.do.delay": "「{unit}」が行動を遅らせる",
    "ms.do.strategy": "「{unit}」が作戦「{strategy}」を使う",
    "ms.do.adjust": "「{unit}」をGMが調整（{note}）",
    "ms.do.declare": "戦争の結果を宣言（{winner}）",
  },
  en: {
    "ms.title": "Mass combat",
    "ms.turn": "Turn {n}",
    "ms.next": "Next: {step}", "ms.end_turn": "End the turn",
    "ms.outcome.none": "undecided", "ms.outcome.won": "{side} wins", "ms.outcome.draw": "draw",
    "ms.front": "Front row", "ms.back": "Back row", "ms.unplaced": "Not placed", "ms.routed": "routed",
    "ms.commander": "commander-in-chief", "ms.strength": "strength", "ms.attack": "A", "ms.defence": "D",
    "ms.attack.long": "attack", "ms.defence.long": "defence",
    "ms.formation": "formation", "ms.active": "strategy", "ms.lp": "LP", "ms.leader": "leader",
    "ms.acted": "acted", "ms.delayed": "delayed", "ms.acting": "acting", "ms.npc": "GM",
    "ms.order": "Order", "ms.order.none": "(set when the battle step begins)",
    "ms.pending": "Attacking", "ms.die": "die {d}", "ms.die.fixed": " (fixed)",
    "ms.white_flag": "white flag", "ms.decoy": "decoy",
    "ms.strategies": "Strategies and uses left", "ms.unit": "unit", "ms.owned_f": "formations",
    "ms.unlimited": "∞", "ms.stones": "Stone throwers (at turn end)", "ms.none": "none",
    "ms.mods": "this turn",
    "ms.split_pending": "odd point pending", "ms.split_pending.long": "odd strength: waiting for where the extra point goes (values rounded down)",
    "ms.side": "side", "ms.row": "row",
    "ms.do.next_step": "moved on from the {step} step",
    "ms.do.strength": "set “{unit}”'s max strength ({ability})",
    "ms.do.pick": "took formations and strategies for “{unit}” ({n})",
    "ms.do.deploy": "put “{unit}” in the {row}",
    "ms.do.formation": "chose {formation} for “{unit}”",
    "ms.do.attack": "“{unit}” attacked “{target}”",
    "ms.do.defend": "“{unit}” defended",
    "ms.do.reorganize": "“{unit}” reorganized",
    "ms.do.delay": "“{unit}” delayed",
    "ms.do.strategy": "“{unit}” used the strategy {strategy}",
    "ms.do.adjust": "the GM adjusted “{unit}” ({note})",
    "ms.do.declare": "declared the war's outcome ({winner})",
  },
};

const R = (path, rule, ja, en) => ({ path: [K, ...path], rule, ja, en });
const RULES = [
  R(["units", "*", "max_strength"], "MASS-PREP-1", "魅力か愛の判定の達成値（総大将は3D6合算）",
    "a 魅力 or 愛 check's total (3D6 for the commander-in-chief)"),
  R(["units", "*", "strength"], "MASS-PREP-2", "0で敗走。最大戦力を超えない",
    "0 = routed; never above max strength"),
  R(["units", "*", "strength"], "MASS-DMG-1", "攻撃力−防御力のダメージ（最低1）", "attack − defence damage (at least 1)"),
  R(["units", "*", "routed"], "MASS-PREP-2", "戦力0で敗走", "routed at strength 0"),
  R(["units", "*", "uses"], "MASS-DATA", "作戦ごとの使用回数", "each strategy's use count"),
  R(["units", "*", "row"], "MASS-T-1", "前列の部隊数は後列以上", "the front row holds at least as many units as the back"),
  R(["units", "*", "attack_base"], "MASS-T-2", "戦力÷2に陣形の修正。次の戦力配置まで変わらない",
    "strength ÷ 2 changed by the formation; fixed until the next deployment"),
  R(["units", "*", "defence_base"], "MASS-T-2", "戦力÷2に陣形の修正。次の戦力配置まで変わらない",
    "strength ÷ 2 changed by the formation; fixed until the next deployment"),
  R(["units", "*", "attack"], "MASS-STRAT-1", "陣形後の値＋このターンの修正（0未満にならない）",
    "the formation's value + this turn's changes (never below 0)"),
  R(["units", "*", "defence"], "MASS-STRAT-1", "陣形後の値＋このターンの修正（0未満にならない）",
    "the formation's value + this turn's changes (never below 0)"),
  R(["units", "*", "formation"], "MASS-T-2", "取得済みの陣形から1つ", "one owned formation"),
  R(["units", "*", "lp"], "MASS-DMG-2", "ダメージの一部をLPで受けられる", "may take damage on LP"),
  R(["step"], "MASS-T-3", "戦力配置 → 戦術決定 → 戦闘", "deployment → tactics → battle"),
  R(["outcome"], "MASS-END", "全滅か総大将の敗走で決着", "ends when a side is wiped out or its commander routs"),
];

// A GM-run unit's leader numbers, picks and uses are the GM's (engine Unit.redact).
const GM_FIELDS = new Set(["abilities", "mental", "skills", "weapon_base", "intellect_base", "lp",
                           "formations", "strategies", "uses", "ability_used"]);
/** A step's name, from the table the server sent (MASS-T-*). */
const stepName = (s) => phaseName(K, s);
const isMine = (ctx, u) => !!ctx.player && u.player === ctx.player;

/** The row a unit counts as this turn (速攻前進 / 速攻後退). */
export function rowOf(u) {
  let row = u.row;
  for (const m of u.mods || []) {
    if (m.flags?.includes("treat_front")) row = "front";
    else if (m.flags?.includes("treat_back")) row = "back";
  }
  return row;
}

function outcomeText(ms) {
  if (ms.outcome === "won") return t("ms.outcome.won", { side: sideName(ms, ms.winner) });
  return t(`ms.outcome.${ms.outcome}`);
}

function sideName(ms, id) {
  const s = ms.sides?.[id];
  return s ? pick({ ja: s.name, en: s.en || s.name }) : id;
}

function strengthBar(ctx, u) {
  const max = u.max_strength ?? 0;
  const ratio = max > 0 ? Math.max(0, Math.min(1, u.strength / max)) : 0;
  return h("div.ms-strength", { dataset: { strength: u.strength, max } },
    h("div.ms-bar", h("div.ms-bar-fill", { style: { width: `${Math.round(ratio * 100)}%` } })),
    h("span.ms-strength-num", ctx.editable([K, "units", u.id, "strength"], u.strength, { type: "int", label: `${u.name} ${t("ms.strength")}` }),
      h("span.muted", " / "),
      ctx.editable([K, "units", u.id, "max_strength"], u.max_strength, { type: "int", label: `${u.name} max` })));
}

function unitCard(ctx, ms, u) {
  const acting = ms.current === u.id;
  const cls = ["ms-unit", `side-${u.side}`, u.routed ? "routed" : "", acting ? "acting" : "", isMine(ctx, u) ? "mine" : ""];
  const player = u.player ? (ctx.state.meta?.players?.[u.player]?.name || u.player) : t("ms.npc");
  const mods = (u.mods || []).map((m) => {
    const bits = [m.attack ? `${t("ms.attack")}${m.attack > 0 ? "+" : ""}${m.attack}` : "",
                  m.defence ? `${t("ms.defence")}${m.defence > 0 ? "+" : ""}${m.defence}` : "",
                  ...(m.flags || [])].filter(Boolean);
    return `${m.strategy}${bits.length ? ` ${bits.join(" ")}` : ""}`;
  });
  return h("div", { class: cls.filter(Boolean).join(" "), dataset: { unit: u.id, row: rowOf(u) || "", side: u.side } },
    h("div.ms-unit-head",
      acting ? h("span.ms-acting", { title: t("ms.acting") }, "▶") : null,
      h("b.ms-unit-name", u.name),
      u.commander ? h("span.badge.warn.ms-commander", t("ms.commander")) : null,
      isMine(ctx, u) ? h("span.badge.me", t("pl.you")) : null,
      u.routed ? h("span.badge.bad", t("ms.routed")) : null,
      u.acted ? h("span.badge", t("ms.acted")) : null,
      u.delayed ? h("span.badge.warn", t("ms.delayed")) : null),
    h("div.ms-unit-sub.small.muted", `${u.leader || ""}${u.leader ? " · " : ""}${player}`,
      // MASS-T-1 the row, a picker in the GM's override editor (前列/後列)
      ctx.isGM ? [" · ", ctx.editable([K, "units", u.id, "row"], u.row, {
        display: u.row ? t(`ms.${u.row}`) : t("ms.unplaced"), label: `${u.name} ${t("ms.row")}` })] : null),
    strengthBar(ctx, u),
    h("div.ms-values",
      // Published effective values (base + this turn's mods, never below 0); the base in brackets.
      h("span.ms-atk", { title: t("ms.attack.long") }, `${t("ms.attack")} `,
        h("b", String(u.attack)), h("span.muted.small", ` (${u.attack_base})`)),
      h("span.ms-def", { title: t("ms.defence.long") }, `${t("ms.defence")} `,
        h("b", String(u.defence)), h("span.muted.small", ` (${u.defence_base})`)),
      u.split_pending ? h("span.badge.warn.ms-split-pending", { title: t("ms.split_pending.long") }, t("ms.split_pending")) : null,
      u.lp !== undefined && u.lp !== null ? h("span.ms-lp", `${t("ms.lp")} `,
        ctx.editable([K, "units", u.id, "lp"], u.lp, { type: "int", label: `${u.name} LP` })) : null),
    h("div.ms-formation.small", h("span.muted", `${t("ms.formation")}: `), u.formation || "—",
      u.active ? [h("span.muted", ` · ${t("ms.active")}: `), h("span.ms-active", u.active)] : null),
    mods.length ? h("div.ms-mods.small", h("span.muted", `${t("ms.mods")}: `), mods.join(" / ")) : null);
}

function sideBlock(ctx, ms, side) {
  const units = Object.values(ms.units).filter((u) => u.side === side.id);
  const rows = [["front", t("ms.front")], ["back", t("ms.back")]];
  const live = units.filter((u) => !u.routed);
  const unplaced = live.filter((u) => !u.row);
  const routed = units.filter((u) => u.routed);
  const count = (row) => live.filter((u) => u.row === row).length;
  return h("section.sub.ms-side", { dataset: { side: side.id } },
    h("h4", sideName(ms, side.id), h("span.muted.small", ` ${t("ms.front")} ${count("front")} · ${t("ms.back")} ${count("back")}`)),
    rows.map(([row, label]) => h("div.ms-row", { dataset: { row } },
      h("div.ms-row-label", label),
      h("div.ms-row-units", live.filter((u) => u.row === row).map((u) => unitCard(ctx, ms, u))))),
    unplaced.length ? h("div.ms-row", { dataset: { row: "none" } }, h("div.ms-row-label", t("ms.unplaced")),
      h("div.ms-row-units", unplaced.map((u) => unitCard(ctx, ms, u)))) : null,
    routed.length ? h("div.ms-row.ms-routed", { dataset: { row: "routed" } }, h("div.ms-row-label", t("ms.routed")),
      h("div.ms-row-units", routed.map((u) => unitCard(ctx, ms, u)))) : null);
}

function orderStrip(ms) {
  if (!ms.order?.length) return h("div.ms-order", h("span.muted", `${t("ms.order")}: ${t("ms.order.none")}`));
  return h("ol.ms-order", { "aria-label": t("ms.order") }, ms.order.map((id) => {
    const u = ms.units[id];
    if (!u) return null;
    const cls = [u.acted ? "acted" : "", u.routed ? "routed" : "", ms.current === id ? "current" : "", u.delayed ? "delayed" : ""];
    return h("li", { class: cls.filter(Boolean).join(" ") || null, dataset: { unit: id } },
      ms.current === id ? "▶ " : "", u.name, u.delayed ? ` (${t("ms.delayed")})` : "");
  }));
}

function pendingAttack(ms) {
  const a = ms.attack;
  if (!a) return null;
  const who = (id) => ms.units[id]?.name ?? id;
  return h("div.ms-pending", { dataset: { attack: a.id } },
    h("b", `${t("ms.pending")}: `), `${who(a.attacker)} → ${who(a.target)}`,
    a.die !== null && a.die !== undefined ? h("span.badge", t("ms.die", { d: a.die }), a.fixed ? t("ms.die.fixed") : "") : null,
    a.white_flag ? h("span.badge.warn", t("ms.white_flag")) : null,
    a.decoy ? h("span.badge.warn", t("ms.decoy")) : null);
}

function strategiesTable(ctx, ms) {
  const units = Object.values(ms.units).filter((u) => u.strategies);
  if (!units.length) return null;
  return h("table.grid-table.ms-strategies",
    h("thead", h("tr", h("th", t("ms.unit")), h("th", t("ms.strategies")), h("th", t("ms.owned_f")))),
    h("tbody", units.map((u) => h("tr", { class: [u.routed ? "broken" : "", isMine(ctx, u) ? "mine" : ""].filter(Boolean).join(" ") || null,
                                           dataset: { unit: u.id } },
      h("td", u.name, !u.player && ctx.isGM ? [" ", ctx.gmBadge()] : null,
        u.active ? h("div.small", h("span.muted", `${t("ms.active")}: `), h("b", u.active)) : null),
      h("td", (u.strategies || []).map((s, i) => {
        const left = u.uses?.[s];
        const shown = left === null || left === undefined ? t("ms.unlimited") : String(left);
        return [i ? " " : "", h("span", { class: `ms-use${left === 0 ? " spent" : ""}${u.active === s ? " active" : ""}`, dataset: { strategy: s } },
          s, " ", left === null || left === undefined ? h("span.muted", shown)
            : ctx.editable([K, "units", u.id, "uses", s], left, { type: "int", display: shown, label: `${u.name} ${s}` }))];
      })),
      h("td.small", (u.formations || []).join("・"))))));
}

function stonesList(ms) {
  if (!ms.stones?.length) return null;
  return h("div.ms-stones.small", h("b", `${t("ms.stones")}: `),
    ms.stones.map((s) => `${ms.units[s.user]?.name ?? s.user} → ${ms.units[s.target]?.name ?? s.target}`).join("、"));
}

function render(ctx) {
  const ms = ctx.data;
  const stepOptions = phases(K).map((s) => ({ value: s.id, label: stepName(s.id) }));
  const status = h("div.ms-status",
    h("span.ms-turn", ctx.editable([K, "turn"], ms.turn, { type: "int", display: t("ms.turn", { n: ms.turn }) })),
    h("span.ms-step", ctx.editable([K, "step"], ms.step, { options: stepOptions, display: stepName(ms.step) })),
    ms.outcome !== "none" ? h("span", { class: `badge ${ms.outcome === "won" ? "good" : "warn"} ms-outcome` }, outcomeText(ms)) : null);
  return h("div.ms",
    status,
    orderStrip(ms),
    pendingAttack(ms),
    stonesList(ms),
    h("div.ms-sides", Object.values(ms.sides).map((s) => sideBlock(ctx, ms, s))),
    h("section.sub", h("h4", t("ms.strategies")), strategiesTable(ctx, ms) || h("p.muted", t("ms.none"))));
}

// The GM's own moves (not one unit's): never "as GM".
const GM_OWN = new Set(["mass.next_step", "mass.adjust", "mass.declare"]);

/** The timeline's sentence for a `mass.*` action, with names from the state; a unit's action
 * the GM took for it (its own unit or an absent player's) says 「GMとして」. */
function describe(a, state, entry) {
  const actor = entry?.actor;
  const ms = state[K];
  if (!ms || !String(a.kind || "").startsWith("mass.")) return null;
  const unit = (id) => ms.units?.[id]?.name || id || "?";
  const p = {
    unit: unit(a.unit), target: unit(a.target), step: stepName(a.expect || ms.step),
    ability: a.value !== undefined && a.value !== null ? String(a.value) : a.ability || "",
    n: (a.formations?.length || 0) + (a.strategies?.length || 0), row: t(a.row === "front" ? "ms.front" : "ms.back"),
    formation: a.formation || "", strategy: a.strategy || "", note: a.note || "",
    winner: a.winner ? sideName(ms, a.winner) : t("ms.outcome.draw"),
  };
  const key = `ms.do.${a.kind.slice(5)}`;
  const text = t(key, p);
  if (text === key) return null;
  return a.unit && !GM_OWN.has(a.kind) ? asGMWords(actor, ms.units?.[a.unit]?.player, state, text) : text;
}

registerPanel({
  id: "mass",
  describe,
  key: K,
  order: 12,
  title: () => t("ms.title"),
  strings: STRINGS,
  rules: RULES,
  secret: (path, state) => path[0] === K && path[1] === "units" && path.length > 3
    && GM_FIELDS.has(String(path[3])) && !state?.[K]?.units?.[path[2]]?.player,
  headline: (ctx) => {
    const ms = ctx.data;
    const turn = ms.turn ? `${t("ms.turn", { n: ms.turn })} · ` : "";
    return `${turn}${stepName(ms.step)}${ms.outcome !== "none" ? ` · ${outcomeText(ms)}` : ""}`;
  },
  // The step the GM closes next (MASS-T-3): dry-run after an override, so the editor
  // shows what it would bring (a unit left at strength 0 routs: MASS-PREP-2).
  lookahead: (ms) => (ms.outcome === "none" && phaseSpec(K, ms.step)?.ends === "gm"
    ? { kind: "mass.next_step", expect: ms.step } : null),
  commands: [{
    id: "mass.next_step",
    key: "n",
    label: (ctx) => (ctx.data.step === "battle" ? t("ms.end_turn") : t("ms.next", { step: stepName(nextPhase(K, ctx.data.step) || "over") })),
    enabled: (ctx) => ctx.data.outcome === "none",
    run: (ctx) => ctx.act({ kind: "mass.next_step", expect: ctx.data.step }),
  }],
  render,
});
