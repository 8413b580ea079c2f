// Room settings (engine/control.py): how rules are enforced (`room.enforcement`),
// whether dice results typed on the player page count (`room.player_rolls`; lines a
// bridge reads from the VTT's own dice always do) and what a VTT action nobody can be
// credited with may do (`room.uncredited`). GM only; each change is one logged action,
// and a refusal shows beside the control.

import { h } from "../dom.js";
import { registerPanel } from "../registry.js";
import { t, pick } from "../i18n.js";

const SETTINGS = [
  { key: "enforcement", kind: "room.enforcement", modes: ["enforce", "warn", "off"] },
  { key: "player_rolls", kind: "room.player_rolls", modes: ["refuse", "allow"] },
  { key: "uncredited", kind: "room.uncredited", modes: ["moves", "gm_side"] },
];

const HINTS = new Set(["player_rolls", "uncredited"]);

const STRINGS = {
  ja: {
    "room.title": "部屋の設定",
    "room.enforcement": "ルールの適用",
    "room.enforcement.enforce": "適用する（違反は拒否）",
    "room.enforcement.warn": "警告のみ（適用してGMに通知）",
    "room.enforcement.off": "適用しない",
    "room.player_rolls": "プレイヤー画面で入力したダイス結果",
    "room.player_rolls.refuse": "使わない（VTTのダイスかkomasyncで振る）",
    "room.player_rolls.allow": "使う",
    "room.player_rolls.hint": "ブリッジがVTTのダイス出力から読んだ結果は常に使います。",
    "room.uncredited": "VTT上の誰の操作か分からない操作",
    "room.uncredited.moves": "誰のものでもないコマを動かすだけ（判断はしない）",
    "room.uncredited.gm_side": "GM側（エネミー・GMのユニット）の判断もする",
    "room.uncredited.hint": "VTTがプレイヤーの操作をすべて区別できる場合（ユーザーの対応づけ済み）にだけ「GM側の判断もする」にしてください。プレイヤーのキャラクターはどちらでも動かせません。",
    "room.refused": "変更できません: {why}",
  },
  en: {
    "room.title": "Room settings",
    "room.enforcement": "Rules",
    "room.enforcement.enforce": "enforce (refuse what breaks them)",
    "room.enforcement.warn": "warn only (apply and tell the GM)",
    "room.enforcement.off": "off",
    "room.player_rolls": "Dice results typed on the player page",
    "room.player_rolls.refuse": "refuse (roll on the VTT or with komasync)",
    "room.player_rolls.allow": "accept",
    "room.player_rolls.hint": "Results a bridge reads from the VTT's own dice output always count.",
    "room.uncredited": "VTT actions nobody can be credited with",
    "room.uncredited.moves": "only move pieces no player owns (no decisions)",
    "room.uncredited.gm_side": "also decide for the GM's side (enemies, GM units)",
    "room.uncredited.hint": "Choose “also decide” only if your VTT tells every player's action apart (its users matched to players). A player's character is never moved either way.",
    "room.refused": "Not changed: {why}",
  },
};

async function change(ctx, setting, mode, select) {
  select.disabled = true;
  const reply = await ctx.act({ kind: setting.kind, mode }, { quiet: true });
  select.disabled = false;
  (ctx.ui.refused ||= {})[setting.key] = reply.type === "ack" ? null : reply;
  ctx.refresh();
}

function control(ctx, setting) {
  const current = ctx.data[setting.key];
  const select = h("select", {
    name: setting.key, "aria-label": t(`room.${setting.key}`),
    on: { change: (ev) => change(ctx, setting, ev.target.value, ev.target) },
  }, setting.modes.map((m) => h("option", { value: m, selected: m === current }, t(`room.${setting.key}.${m}`))));
  const refused = ctx.ui.refused?.[setting.key];
  return h("div.room-setting", { dataset: { setting: setting.key } },
    h("label", h("span", t(`room.${setting.key}`)), " ", select),
    HINTS.has(setting.key) ? h("div.muted.small", t(`room.${setting.key}.hint`)) : null,
    refused ? h("div.form-error", { role: "alert" }, t("room.refused", { why: pick(refused.reason) })) : null);
}

registerPanel({
  id: "room",
  key: "meta",
  order: 850,
  roles: ["gm"],
  title: () => t("room.title"),
  strings: STRINGS,
  rules: [{ path: ["meta", "player_rolls"], rule: "GM", ja: "プレイヤー画面で入力したダイス結果を使うか",
            en: "whether dice results typed on the player page count" },
          { path: ["meta", "uncredited"], rule: "GM", ja: "誰の操作か分からないVTT上の操作にできること",
            en: "what a VTT action nobody is credited with may do" }],
  render: (ctx) => h("div.room-settings", SETTINGS.map((s) => control(ctx, s))),
});
