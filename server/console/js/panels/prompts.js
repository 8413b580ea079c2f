// Prompts waiting for an answer (engine/prompts.py): the choices the GM must make, and on
// a player's page the ones addressed to them ("players" or "player:<id>", e.g. BASE-CHOICE).
// Answering sends the `answer` message {prompt, choice}; the prompt leaves the state.

import { h } from "../dom.js";
import { registerPanel } from "../registry.js";
import { t, pick } from "../i18n.js";
import { toast } from "../ui.js";
import { audienceWords, promptKindWords, rememberPrompt } from "../words.js";
import { asGMBadge } from "../player/common.js";

async function answer(ctx, prompt, choice, button) {
  if (button) button.disabled = true;
  const reply = await ctx.app.conn.answer(prompt.id, choice);
  if (reply.type === "ack") return;
  if (button) button.disabled = false;
  if (!ctx.isGM) {
    // A player sees the refusal inside the prompt, beside the choices.
    (ctx.ui.refused ||= {})[prompt.id] = reply;
    ctx.refresh();
    return;
  }
  if (reply.type === "reject") return; // shown as a refusal notice
  toast(t("rejected", { reason: `${reply.rule ? reply.rule + " " : ""}${pick(reply.reason)}` }), "error");
}

function refusal(ctx, prompt) {
  const e = ctx.ui.refused?.[prompt.id];
  if (!e) return null;
  return h("div.pl-refusal", { role: "alert", dataset: { rule: e.rule || "", code: e.code || "" } },
    e.rule ? [h("code.pl-rule", e.rule), " "] : null, pick(e.reason));
}

function render(ctx) {
  const prompts = Object.values(ctx.data || {});
  if (!prompts.length) return null;
  return h("div.prompts", prompts.map((p) => {
    const mine = ctx.isGM || (ctx.isPlayer && (p.to === "players" || p.to === `player:${ctx.player}`));
    rememberPrompt(p.id, p.to);
    // the GM answering a player's question answers for them: said on the prompt and in the log
    const forPlayer = ctx.isGM && String(p.to || "").startsWith("player") ? asGMBadge(
      p.to === "players" ? t("to.players") : audienceWords(p.to, ctx.state)) : null;
    let free = null;
    if (p.free && mine) {
      const input = h("input", { type: "text", maxlength: 200, "aria-label": t("prompt.free"), dataset: { keep: `free.${p.id}` } });
      free = h("form.prompt-free", { on: { submit: (ev) => { ev.preventDefault(); if (input.value.trim()) answer(ctx, p, input.value.trim(), null); } } },
        input, h("button.primary", { type: "submit" }, t("prompt.answer")));
    }
    return h("div.prompt", { dataset: { prompt: p.id } },
      h("div.prompt-head", { dataset: { to: p.to, kind: p.kind || "choice" } },
        h("span.muted.small", t("prompt.to", { to: audienceWords(p.to, ctx.state) }),
          " · ", h("span.prompt-kind", promptKindWords(p.kind))),
        p.to === "gm" ? [" ", ctx.gmBadge(p.id)] : null),
      h("div.prompt-text", pick(p)),
      forPlayer ? h("div.prompt-as-gm", forPlayer) : null,
      mine ? h("div.prompt-choices", p.choices.map((c) => h("button.primary", {
        type: "button", dataset: { choice: c.id },
        on: { click: (ev) => answer(ctx, p, c.id, ev.currentTarget) },
      }, pick(c)))) : null,
      free, refusal(ctx, p));
  }));
}

registerPanel({
  id: "prompts",
  key: "prompts",
  area: "side",
  order: 0,
  title: (ctx) => t(ctx.isGM ? "prompt.title" : "prompt.title.player"),
  secret: (path, state) => {
    if (path[0] !== "prompts") return false;
    if (path.length === 1) return false;
    const p = state?.prompts?.[path[1]];
    return !!p && (p.to === "gm" || ["resume", "context"].includes(String(path[2])));
  },
  render,
});
