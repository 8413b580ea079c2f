// Room settings (engine/control.py): how rules are enforced (`room.enforcement`) and
// whether dice results typed on the player page count (`room.player_rolls`; lines a
// bridge reads from the VTT's own dice always do). GM only; each change is one logged
// action, and a refusal shows beside the control.

import { h } from "../dom.js";
import { registerPanel } from "../registry.js";
import { t, pick } from "../i18n.js";

const SETTINGS = [
  { key: "enforcement", kind: "room.enforcement", modes: ["enforce", "warn", "off"] },
  { key: "player_rolls", kind: "room.player_rolls", modes: ["refuse", "allow"] },
];

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
    setting.key === "player_rolls" ? h("div.muted.small", t("room.player_rolls.hint")) : null,
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
            en: "whether dice results typed on the player page count" }],
  render: (ctx) => h("div.room-settings", SETTINGS.map((s) => control(ctx, s))),
});
