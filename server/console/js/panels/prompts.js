// Prompts waiting for an answer (engine/prompts.py): the choices the GM must make.
// Answering sends the `answer` message {prompt, choice}; the prompt leaves the state.

import { h } from "../dom.js";
import { registerPanel } from "../registry.js";
import { t, pick } from "../i18n.js";
import { toast } from "../ui.js";

async function answer(ctx, prompt, choice, button) {
  if (button) button.disabled = true;
  const reply = await ctx.app.conn.answer(prompt.id, choice);
  if (reply.type !== "ack") {
    if (button) button.disabled = false;
    if (reply.type === "reject" && ctx.isGM) return; // shown as a refusal notice
    toast(t("rejected", { reason: `${reply.rule ? reply.rule + " " : ""}${pick(reply.reason)}` }), "error");
  }
}

function render(ctx) {
  const prompts = Object.values(ctx.data || {});
  if (!prompts.length) return null;
  return h("div.prompts", prompts.map((p) => {
    const mine = ctx.isGM || p.to === "players" || p.to === `player:${ctx.app.player}`;
    let free = null;
    if (p.free && mine) {
      const input = h("input", { type: "text", maxlength: 200, "aria-label": t("prompt.free") });
      free = h("form.prompt-free", { on: { submit: (ev) => { ev.preventDefault(); if (input.value.trim()) answer(ctx, p, input.value.trim(), null); } } },
        input, h("button.primary", { type: "submit" }, t("prompt.answer")));
    }
    return h("div.prompt", { dataset: { prompt: p.id } },
      h("div.prompt-head", h("span.muted.small", t("prompt.to", { to: p.to }), ` · ${p.id}`),
        p.to === "gm" ? [" ", ctx.gmBadge(p.id)] : null),
      h("div.prompt-text", pick(p)),
      mine ? h("div.prompt-choices", p.choices.map((c) => h("button.primary", {
        type: "button", dataset: { choice: c.id },
        on: { click: (ev) => answer(ctx, p, c.id, ev.currentTarget) },
      }, pick(c)))) : null,
      free);
  }));
}

registerPanel({
  id: "prompts",
  key: "prompts",
  area: "side",
  order: 0,
  title: () => t("prompt.title"),
  secret: (path, state) => {
    if (path[0] !== "prompts") return false;
    if (path.length === 1) return false;
    const p = state?.prompts?.[path[1]];
    return !!p && (p.to === "gm" || ["resume", "context"].includes(String(path[2])));
  },
  render,
});
