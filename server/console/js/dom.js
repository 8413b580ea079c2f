// Tiny DOM helpers: no framework, no build step.

/**
 * h("div.card", {attrs}, ...children) — create an element.
 * The tag may carry "#id" and ".class" suffixes ("input#secret.big"). attrs: `class`, `style` (object), `dataset`
 * (object), `on` (object of event handlers), anything else as an attribute
 * (false/null/undefined are skipped, true sets an empty attribute).
 */
export function h(tag, attrs, ...children) {
  const [head, ...classes] = tag.split(".");
  const [name, id] = head.split("#");
  const svg = SVG_TAGS.has(name);
  const el = svg ? document.createElementNS("http://www.w3.org/2000/svg", name)
                 : document.createElement(name);
  if (classes.length) el.setAttribute("class", classes.join(" "));
  if (id) el.id = id;
  if (attrs && (typeof attrs !== "object" || attrs instanceof Node || Array.isArray(attrs))) {
    children.unshift(attrs);
    attrs = null;
  }
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === false || v === null || v === undefined) continue;
    if (k === "class") {
      const prev = el.getAttribute("class");
      el.setAttribute("class", prev ? `${prev} ${v}` : v);
    } else if (k === "style" && typeof v === "object") {
      Object.assign(el.style, v);
    } else if (k === "dataset") {
      for (const [dk, dv] of Object.entries(v)) if (dv !== undefined && dv !== null) el.dataset[dk] = dv;
    } else if (k === "on") {
      for (const [ev, fn] of Object.entries(v)) el.addEventListener(ev, fn);
    } else if (k === "value" && !svg) {
      el.value = v;
    } else if (k === "checked" && !svg) {
      el.checked = !!v;
    } else {
      el.setAttribute(k, v === true ? "" : String(v));
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else if (c instanceof Node) el.appendChild(c);
    else el.appendChild(document.createTextNode(String(c)));
  }
}

const SVG_TAGS = new Set(["svg", "g", "rect", "circle", "line", "polyline", "polygon", "path",
  "text", "title", "defs", "marker", "tspan"]);

export function clear(el) {
  while (el.firstChild) el.removeChild(el.firstChild);
  return el;
}

/** "table/pieces/knight" — a path as a readable string. */
export function pathText(path) {
  return path.map(String).join("/");
}

/** Stable key of a path (used in data attributes and maps). */
export function pathKey(path) {
  return JSON.stringify(path);
}

export function fmtValue(v) {
  if (v === null || v === undefined) return "—";
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

/** A time of day in the UI's language (Intl with the page's lang, not the browser's locale). */
export function fmtClock(epochSeconds) {
  if (!epochSeconds) return "";
  const lang = document.documentElement.lang || undefined;
  return new Intl.DateTimeFormat(lang, { hour: "2-digit", minute: "2-digit", second: "2-digit" })
    .format(new Date(epochSeconds * 1000));
}

/** A short random id for client message ids. */
export function newId(prefix = "c") {
  const rnd = Array.from(crypto.getRandomValues(new Uint8Array(6)), (b) => b.toString(16).padStart(2, "0")).join("");
  return `${prefix}-${rnd}`;
}
