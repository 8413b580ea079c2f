// Shared widgets: toasts, the one popover (override editor, reason dialogs), badges.

import { h, clear } from "./dom.js";
import { t } from "./i18n.js";

export function toast(text, kind = "info", ms = 5000) {
  const box = document.getElementById("toasts");
  if (!box) return;
  const el = h(`div.toast.toast-${kind}`, { role: kind === "error" ? "alert" : "status" }, text);
  box.appendChild(el);
  while (box.children.length > 4) box.removeChild(box.firstChild);
  setTimeout(() => el.remove(), ms);
}

/** The "GM only" badge; `secret` (an id or name) is recorded for the leak checks. */
export function gmBadge(secret) {
  return h("span.badge.gm-only", {
    title: t("gm_only.title"),
    dataset: secret !== undefined && secret !== null ? { secret: String(secret) } : {},
  }, t("gm_only"));
}

let openPop = null;

export function closePopover() {
  if (openPop) {
    const { el, onClose } = openPop;
    openPop = null;
    el.remove();
    if (onClose) onClose();
  }
}

export function popoverOpen() {
  return openPop !== null;
}

/**
 * Show `content` in the single popover, next to `anchor` (an element or null = top
 * centre). Returns the popover element. `onClose` runs when it goes away.
 */
export function showPopover(anchor, content, { onClose, label } = {}) {
  closePopover();
  const el = h("div.popover", { role: "dialog", "aria-label": label || "" }, content);
  document.body.appendChild(el);
  place(el, anchor);
  openPop = { el, onClose, anchor };
  const first = el.querySelector("[autofocus], input, select, textarea, button");
  if (first) first.focus();
  return el;
}

/** Place the open popover again (its content grew or shrank after it opened). */
export function replacePopover() {
  if (openPop) place(openPop.el, openPop.anchor);
}

function place(el, anchor) {
  const vw = document.documentElement.clientWidth;
  const vh = document.documentElement.clientHeight;
  const w = Math.min(el.offsetWidth || 360, vw - 16);
  let left;
  let top;
  if (anchor && anchor.isConnected) {
    const r = anchor.getBoundingClientRect();
    left = r.left;
    top = r.bottom + 6;
    if (top + el.offsetHeight > vh - 8) top = Math.max(8, r.top - el.offsetHeight - 6);
  } else {
    left = (vw - w) / 2;
    top = 64;
  }
  left = Math.max(8, Math.min(left, vw - w - 8));
  top = Math.max(8, Math.min(top, vh - el.offsetHeight - 8));
  el.style.left = `${left}px`;
  el.style.top = `${top}px`;
}

/**
 * Ask for a reason (undo, reveal…): resolves to the text, or null if cancelled.
 * Enter confirms, Escape cancels.
 */
export function askReason(anchor, { title, detail, defaultReason = "", confirm }) {
  return new Promise((resolve) => {
    let done = false;
    const finish = (v) => {
      if (done) return;
      done = true;
      resolve(v);
      closePopover();
    };
    const input = h("input.reason", { type: "text", value: defaultReason, "aria-label": t("undo.reason"),
                                       placeholder: t("undo.reason"), maxlength: 500 });
    const err = h("div.pop-error");
    const submit = (ev) => {
      ev.preventDefault();
      const reason = input.value.trim();
      if (!reason) {
        err.textContent = t("override.need_reason");
        return;
      }
      finish(reason);
    };
    const form = h("form.pop-form", { on: { submit } },
      h("div.pop-title", title),
      detail ? h("div.pop-detail", detail) : null,
      h("label", t("undo.reason"), input),
      err,
      h("div.pop-buttons",
        h("button.primary", { type: "submit" }, confirm || t("ok")),
        h("button", { type: "button", on: { click: () => finish(null) } }, t("cancel"))));
    showPopover(anchor, form, { onClose: () => { if (!done) { done = true; resolve(null); } }, label: title });
    input.select();
  });
}

/** Replace the children of `el` with `node` keeping the scroll position. */
export function swap(el, node) {
  const top = el.scrollTop;
  clear(el).appendChild(node);
  el.scrollTop = top;
}

/**
 * The field with focus inside `body` (marked `data-keep`), to focus again after a
 * re-render: typing in a player's form survives other people's changes.
 */
export function focusKept(body) {
  const el = document.activeElement;
  if (!el || !body.contains(el) || !el.dataset?.keep) return null;
  const key = el.dataset.keep;
  let range = null;
  try {
    if (typeof el.selectionStart === "number") range = [el.selectionStart, el.selectionEnd];
  } catch { /* not a text field */ }
  return {
    restore(root) {
      const again = [...root.querySelectorAll("[data-keep]")].find((e) => e.dataset.keep === key);
      if (!again) return;
      again.focus({ preventScroll: true });
      if (range) {
        try { again.setSelectionRange(...range); } catch { /* not a text field */ }
      }
    },
  };
}
