// What a userscript manager does with a script, for the chromium tests: read the metadata
// block and decide whether the script runs on a page. Written from the public
// descriptions of the format (Violentmonkey "Metadata Block" page; Chrome's match
// patterns), not from any manager's code:
//
// - the block is at the very beginning: first line `// ==UserScript==`, last line
//   `// ==/UserScript==`; every line between starts with `//`;
// - a key line is `// @key value` (key without spaces, value = the rest, trimmed); a key
//   may repeat (`@match`, `@grant`) and may be localised (`@name:ja`); other `//` lines
//   are comments;
// - `@name` is required;
// - a match pattern is `<scheme>://<host><path>`: scheme `*` = http or https; host `*`,
//   `*.example.com` (the domain and its subdomains) or exact; path a glob where `*`
//   matches anything (the query string is part of the path).
(function () {
  "use strict";
  const START = "// ==UserScript==";
  const END = "// ==/UserScript==";

  function parseMeta(text) {
    const lines = String(text).replace(/^\uFEFF/, "").split(/\r?\n/);
    if (lines[0] !== START) return { ok: false, error: "the file does not start with // ==UserScript==" };
    const meta = {};
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i];
      if (line === END) {
        if (!meta.name) return { ok: false, error: "@name is required" };
        return { ok: true, meta, end: i };
      }
      if (!line.startsWith("//")) return { ok: false, error: `line ${i + 1} inside the block is not a // comment` };
      const m = /^\/\/ @(\S+)(?:[ \t]+(.*))?$/.exec(line);
      if (!m) continue;
      (meta[m[1]] = meta[m[1]] || []).push((m[2] || "").trim());
    }
    return { ok: false, error: "no // ==/UserScript== line" };
  }

  function globToRegExp(glob) {
    return new RegExp("^" + glob.split("*").map((p) => p.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*") + "$");
  }

  function matches(pattern, href) {
    const m = /^(\*|https?|file):\/\/(\*|\*\.[^/*]+|[^/*]+)(\/.*)$/.exec(pattern);
    if (!m) return false;
    const url = new URL(href);
    const scheme = url.protocol.slice(0, -1);
    if (m[1] === "*" ? !["http", "https"].includes(scheme) : m[1] !== scheme) return false;
    const host = m[2];
    if (host !== "*") {
      if (host.startsWith("*.")) {
        const base = host.slice(2);
        if (url.hostname !== base && !url.hostname.endsWith("." + base)) return false;
      } else if (url.hostname !== host) return false;
    }
    return globToRegExp(m[3]).test(url.pathname + url.search);
  }

  window.__manager = { parseMeta, matches };
})();
