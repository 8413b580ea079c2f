// One tower-defense PC's card (rules.md TD-*): its weapons and the controls of the phase —
// setup (setup.js), the PC attack phase (attack.js). Drawn for the player's own PCs on the
// player page (controls.js) and for any PC the GM plays in the console
// (panels/tower_defense_gm.js): there every control is marked 「GMとして」.

import { h } from "../../dom.js";
import { addStrings, t } from "../../i18n.js";
import { phaseName } from "../../phases.js";
import { meBadge } from "../common.js";
import { placeForm, trapForm } from "./setup.js";
import { attackForms } from "./attack.js";
import { asGMBadge } from "./as_gm.js";

addStrings({
  ja: {
    "ptd.title": "あなたのPC",
    "ptd.none": "このプレイヤーのPCはいません。",
    "ptd.at": "現在地", "ptd.unplaced": "未配置",
    "ptd.acted": "このフェイズ: {list}",
    "ptd.acted.attack": "射撃", "ptd.acted.move": "移動", "ptd.acted.reload": "リロード",
    "ptd.acted.melee": "近接攻撃", "ptd.acted.special": "魔眼",
    "ptd.wait": "{phase}です。PCが行動するのはPC攻撃フェイズです。",
    "ptd.over": "決着しました: {outcome}",
    "ptd.loaded": "装填 {n}/{m}", "ptd.unlimited": "弾数∞", "ptd.used": "今ラウンド {n}/{m}回",
    "ptd.special_left": "{ammo} 残り{n}",
    "ptd.range": "射程 {r}",
    "ptd.place": "初期配置の砦（準備中だけ）",
    "ptd.trap": "罠を仕掛ける", "ptd.trap.count": "設置済みの罠 {n}/{limit}",
    "ptd.trap.passage": "通路", "ptd.trap.kind": "種類", "ptd.trap.skill": "技能",
    "ptd.trap.set": "罠を仕掛ける", "ptd.lateral": "横",
    "ptd.attack": "射撃", "ptd.weapon": "武器", "ptd.target": "目標グループ",
    "ptd.in_range": "射程内（目安）", "ptd.out_of_range": "射程外かも（サーバーが判定）",
    "ptd.no_groups": "目標になるグループがいません。",
    "ptd.shots": "回数", "ptd.bad_shots": "回数は1以上の整数です。", "ptd.shots_left": "このラウンドあと{n}回", "ptd.ammo": "弾",
    "ptd.ammo.normal": "通常弾", "ptd.fire": "射撃する",
    "ptd.move": "隣の砦へ移動", "ptd.move.none": "つながった砦がありません。",
    "ptd.reload": "リロード", "ptd.melee": "近接攻撃", "ptd.melee.stay": "移動しない",
    "ptd.melee.to": "先に移動", "ptd.melee.go": "近接攻撃する",
    "ptd.eye": "魔眼", "ptd.eye.go": "魔眼を使う",
    "ptd.where.entry": "{d}（出現地点）", "ptd.where.passage": "通路上", "ptd.where.waiting": "通路で待機",
  },
  en: {
    "ptd.title": "Your PCs",
    "ptd.none": "This player has no PC.",
    "ptd.at": "at", "ptd.unplaced": "not placed",
    "ptd.acted": "this phase: {list}",
    "ptd.acted.attack": "shot", "ptd.acted.move": "moved", "ptd.acted.reload": "reloaded",
    "ptd.acted.melee": "melee", "ptd.acted.special": "evil eye",
    "ptd.wait": "It is the {phase} phase. PCs act in the PC attack phase.",
    "ptd.over": "The battle is decided: {outcome}",
    "ptd.loaded": "loaded {n}/{m}", "ptd.unlimited": "ammo ∞", "ptd.used": "this round {n}/{m}",
    "ptd.special_left": "{ammo} left {n}",
    "ptd.range": "range {r}",
    "ptd.place": "Starting fort (setup only)",
    "ptd.trap": "Set a trap", "ptd.trap.count": "traps set {n}/{limit}",
    "ptd.trap.passage": "passage", "ptd.trap.kind": "kind", "ptd.trap.skill": "skill",
    "ptd.trap.set": "Set the trap", "ptd.lateral": "lateral",
    "ptd.attack": "Shoot", "ptd.weapon": "weapon", "ptd.target": "target group",
    "ptd.in_range": "in range (hint)", "ptd.out_of_range": "maybe out of range (the server decides)",
    "ptd.no_groups": "No group to target.",
    "ptd.shots": "shots", "ptd.bad_shots": "Shots must be a whole number, 1 or more.", "ptd.shots_left": "{n} left this round", "ptd.ammo": "ammo",
    "ptd.ammo.normal": "normal", "ptd.fire": "Shoot",
    "ptd.move": "Move to an adjacent fort", "ptd.move.none": "No fort is joined to this one.",
    "ptd.reload": "Reload", "ptd.melee": "Melee", "ptd.melee.stay": "stay",
    "ptd.melee.to": "move first", "ptd.melee.go": "Attack in melee",
    "ptd.eye": "Evil eye", "ptd.eye.go": "Use the evil eye",
    "ptd.where.entry": "{d} (entry)", "ptd.where.passage": "on a passage", "ptd.where.waiting": "waiting on a passage",
  },
});

function weaponLine(td, pc) {
  return h("ul.plain.pl-weapons", Object.values(pc.weapons).map((w) => {
    const spec = td.weapons[w.weapon] || { name: w.weapon };
    const bits = [];
    if (spec.kind === "firearm") {
      bits.push(spec.magazine === null || spec.magazine === undefined ? t("ptd.unlimited")
        : t("ptd.loaded", { n: w.loaded ?? "?", m: spec.magazine }));
    }
    if (spec.special_ammo) bits.push(t("ptd.special_left", { ammo: spec.special_ammo.name, n: w.special_left }));
    bits.push(t("ptd.used", { n: w.used, m: spec.attacks_per_round ?? "?" }));
    bits.push(t("ptd.range", { r: spec.range ?? "∞" }));
    return h("li", { dataset: { weapon: w.weapon } }, h("b", spec.name), " ", h("span.muted.small", bits.join(" · ")));
  }));
}

/** What the server said belongs to a phase: a new phase starts with clean controls. */
export function freshPhase(ctx, td) {
  const phase = `${td.round}/${td.phase}`;
  if (ctx.ui.phase !== phase) {
    ctx.ui.phase = phase;
    ctx.ui.out = {};
  }
}

/** The card of `pc`: its head, weapons and the phase's controls. */
export function pcCard(ctx, td, pc) {
  const fort = pc.fort ? td.forts[pc.fort]?.name ?? pc.fort : t("ptd.unplaced");
  const acted = (pc.acted || []).map((a) => t(`ptd.acted.${a}`));
  let body;
  if (td.outcome !== "none") {
    body = h("p.muted.small", t("ptd.over", { outcome: t(`td.outcome.${td.outcome}`) }));
  } else if (td.phase === "setup") {
    body = [placeForm(ctx, td, pc), trapForm(ctx, td, pc)];
  } else if (td.phase === "pc_attack") {
    body = attackForms(ctx, td, pc);
  } else {
    body = h("p.muted.small.pl-wait", t("ptd.wait", { phase: phaseName("tower_defense", td.phase) }));
  }
  return h("div.pl-card", { dataset: { pc: pc.id, fort: pc.fort || "" } },
    h("div.pl-card-head", h("b.pl-pc-name", pc.name), " ",
      ctx.isGM ? asGMBadge() : meBadge(), " ",
      h("span.small", h("span.muted", `${t("ptd.at")}: `), h("span.pl-pc-fort", fort)),
      acted.length ? h("span.badge.warn.pl-acted", t("ptd.acted", { list: acted.join("・") })) : null),
    weaponLine(td, pc),
    body);
}
