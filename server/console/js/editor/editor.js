// The scenario editor (GM only): start from a template or open a file, edit the scenario in
// forms generated from its JSON Schema and on the map, see the check's problems live on the
// things they concern, preview the board as the players will see it, save the YAML,
// download it, or create a room from it. Every route is issue 32's HTTP contract
// (docs: /api/scenario/*); nothing here knows a subsystem.

import { h, clear } from "../dom.js";
import { t, pick, lang, addStrings } from "../i18n.js";
import { loadSchema as loadStateSchema, pathWords, fieldAt } from "../schema_form.js";
import { scenarioForm } from "./form.js";
import { drawMap, stateThings } from "./map.js";
import { getAt, setAt, removeAt, keyOf, nodeAt, titleOf, nameOf, mapThings } from "./model.js";

addStrings({
  ja: {
    "ed.title": "シナリオエディタ", "ed.open_editor": "シナリオエディタ",
    "ed.start": "テンプレートから始める", "ed.open_file": "ファイルを開く", "ed.choose_file": "ファイルを選ぶ…", "ed.open_hint": "YAMLのシナリオファイル",
    "ed.problems": "チェック結果", "ed.ok": "問題はありません。", "ed.checking": "チェック中…",
    "ed.line": "{n}行目", "ed.preview": "プレイヤー視点", "ed.preview_on": "プレイヤー視点で表示中",
    "ed.hidden_list": "プレイヤーに見えないもの", "ed.nothing_hidden": "全てプレイヤーに見えます。",
    "ed.save": "保存（YAML）", "ed.download": "ダウンロード", "ed.create_room": "ルームを作成",
    "ed.yaml": "保存するYAML", "ed.room_refused": "ルームを作れません: 問題を直してください。",
    "ed.saved": "{n}行のYAMLを作りました。", "ed.back": "ルーム一覧", "ed.failed": "サーバーが答えません: {why}",
    "ed.form": "シナリオ", "ed.new": "別のシナリオ", "ed.problem_count": "{n}件の問題",
  },
  en: {
    "ed.title": "Scenario editor", "ed.open_editor": "Scenario editor",
    "ed.start": "Start from a template", "ed.open_file": "Open a file", "ed.choose_file": "Choose a file…", "ed.open_hint": "a YAML scenario file",
    "ed.problems": "Check", "ed.ok": "No problems.", "ed.checking": "Checking…",
    "ed.line": "line {n}", "ed.preview": "Player view", "ed.preview_on": "Showing the player view",
    "ed.hidden_list": "Hidden from the players", "ed.nothing_hidden": "The players see everything.",
    "ed.save": "Save (YAML)", "ed.download": "Download", "ed.create_room": "Create room",
    "ed.yaml": "The YAML to save", "ed.room_refused": "Cannot create the room: fix the problems.",
    "ed.saved": "Made {n} lines of YAML.", "ed.back": "Rooms", "ed.failed": "The server does not answer: {why}",
    "ed.form": "Scenario", "ed.new": "Another scenario", "ed.problem_count": "{n} problems",
  },
});

const CHECK_DELAY_MS = 250; // a pause in typing, then one check

/** The editor view. `opts`: secret (the GM's), buttons() (the header's own), openRoom(id, secret). */
export class ScenarioEditor {
  constructor(root, opts) {
    this.root = root;
    this.opts = opts;
    this.schema = null;
    this.templates = [];
    this.data = null;
    this.original = null;
    this.filename = "scenario.yaml";
    this.problems = [];
    this.checking = false;
    this.checks = 0;
    this.msgIds = 0;
    this.ui = { open: new Set(), placing: null, drawing: null, board: {}, selected: null };
    this.preview = null;
    this.yaml = "";
    this.status = "";
    this.el = h("div.editor");
    clear(root).appendChild(this.el);
    this.load();
  }

  destroy() {
    clearTimeout(this.timer);
    this.seq = (this.seq || 0) + 1;
  }

  async load() {
    try {
      const [schema, templates] = await Promise.all([
        fetch("/api/scenario/schema").then((r) => r.json()),
        fetch("/api/scenario/templates").then((r) => r.json()),
      ]);
      this.schema = schema;
      this.templates = templates.templates || [];
    } catch (e) {
      this.status = t("ed.failed", { why: e.message });
    }
    this.render();
  }

  async post(route, body) {
    const res = await fetch(`/api/scenario/${route}`, {
      method: "POST", cache: "no-store", credentials: "omit",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${this.opts.secret}` },
      body: JSON.stringify(body),
    });
    let reply = {};
    try { reply = await res.json(); } catch { /* no body */ }
    return { status: res.status, body: reply };
  }

  // -- starting ------------------------------------------------------------------------------
  async open(yaml, filename) {
    clearTimeout(this.timer); // a check of the scenario before is no longer wanted
    this.seq = (this.seq || 0) + 1;
    this.checking = false;
    const { status, body } = await this.post("open", { yaml, filename });
    if (status !== 200) {
      this.status = pick(body.reason) || String(status);
      this.render();
      return;
    }
    this.problems = body.problems || [];
    if (body.scenario === null || body.scenario === undefined) {
      this.data = null;
      this.status = "";
      this.render();
      return;
    }
    this.data = body.scenario;
    this.original = yaml;
    this.filename = filename;
    this.yaml = "";
    this.preview = null;
    this.ui = { open: new Set(), placing: null, drawing: null, board: {}, selected: null };
    this.render();
  }

  startControls() {
    // The browser's own file button speaks the browser's language: ours is shown instead.
    const file = h("input.ed-file.sr-only", { type: "file", accept: ".yaml,.yml,text/yaml", "aria-label": t("ed.open_file"),
      on: { change: async () => {
        const f = file.files?.[0];
        if (f) await this.open(await f.text(), f.name);
      } } });
    return h("div.ed-start",
      h("div.ed-templates", h("span.ed-label", t("ed.start")),
        this.templates.map((tp) => h("button.ed-template", { type: "button", dataset: { template: tp.id },
          on: { click: () => this.open(tp.yaml, `${tp.id}.yaml`) } }, pick(tp)))),
      h("label.ed-open", h("span", t("ed.open_file")), " ", file,
        h("span.ed-file-button", { "aria-hidden": "true" }, t("ed.choose_file")),
        h("span.muted.small", ` ${t("ed.open_hint")}`)));
  }

  // -- drawing -------------------------------------------------------------------------------
  render() {
    const header = h("header.topbar", h("span.brand", "komasync"), h("span.room-title", t("ed.title")),
      h("span.spacer"), h("span.top-buttons", this.opts.buttons()));
    this.formCol = h("div.ed-col-form");
    this.mapCol = h("div.ed-col-map");
    this.problemsEl = h("section.ed-problems", { "aria-label": t("ed.problems") });
    clear(this.el).append(header);
    if (this.status) this.el.appendChild(h("p.form-error", { role: "alert" }, this.status));
    if (!this.schema) return;
    if (!this.data) {
      this.el.append(h("div.center-page", h("div.card.ed-start-card", h("h1", t("ed.title")), this.startControls(),
        this.problems.length ? this.problemsEl : null)));
      this.renderProblems();
      return;
    }
    this.el.appendChild(h("main.ed-layout", this.formCol, this.mapCol));
    this.renderForm();
    this.renderSide();
  }

  relabel() {
    const keep = this.formBody?.scrollTop;
    this.render();
    if (keep && this.formBody) this.formBody.scrollTop = keep;
  }

  renderForm() {
    const active = document.activeElement;
    const focusPath = active?.dataset?.path;
    const top = this.formBody?.scrollTop ?? 0;
    this.ctx = {
      schema: this.schema, data: this.data, ui: this.ui,
      change: (path, value, structural) => this.change(path, value, structural),
      remove: (path) => { removeAt(this.data, path); this.edited(true); },
      move: (path, by) => this.moveItem(path, by),
      place: (path) => { this.ui.placing = path; this.ui.drawing = null; this.ui.board.held = null; this.renderForm(); this.renderMap(); },
      draw: (path, mode) => { this.ui.drawing = path ? { path, mode } : null; this.ui.placing = null; this.ui.board.held = null; this.renderForm(); this.renderMap(); },
      select: (path, scroll) => this.select(path, scroll),
    };
    this.formBody = h("div.ed-form", scenarioForm(this.ctx));
    clear(this.formCol).append(
      h("div.ed-toolbar", h("h2", t("ed.form")), h("details.ed-switch", h("summary", t("ed.new")), this.startControls())),
      this.formBody);
    this.formBody.scrollTop = top;
    if (focusPath) {
      const again = this.formBody.querySelector(`[data-path="${CSS.escape(focusPath)}"]`);
      if (again && again.focus) again.focus();
    }
    this.markProblems();
  }

  renderSide() {
    this.mapEl = h("div.ed-map-wrap");
    this.hiddenEl = h("div.ed-hidden-list");
    const previewBtn = h("button.ed-preview", { type: "button", "aria-pressed": this.preview ? "true" : "false",
      on: { click: () => this.togglePreview() } }, this.preview ? t("ed.preview_on") : t("ed.preview"));
    this.yamlEl = h("textarea.ed-yaml", { readonly: true, rows: 10, spellcheck: "false", "aria-label": t("ed.yaml") }, this.yaml);
    this.saveNote = h("div.small.muted.ed-save-note", { role: "status" });
    clear(this.mapCol).append(
      h("div.ed-map-tools", previewBtn),
      this.mapEl, this.hiddenEl, this.problemsEl,
      h("section.ed-save",
        h("div.ed-row",
          h("button.primary.ed-save-btn", { type: "button", on: { click: () => this.save() } }, t("ed.save")),
          h("button.ed-download", { type: "button", disabled: !this.yaml, on: { click: () => this.download() } }, t("ed.download")),
          h("button.primary.ed-create-room", { type: "button", on: { click: () => this.createRoom() } }, t("ed.create_room"))),
        this.saveNote, this.yamlEl));
    this.renderMap();
    this.renderProblems();
  }

  renderMap() {
    if (!this.mapEl) return;
    const preview = this.preview;
    const things = preview ? stateThings(preview.gm) : mapThings(this.schema, this.data);
    const board = drawMap({
      schema: this.schema, data: this.data, things, ui: this.ui.board,
      invalid: preview ? null : this.invalidKeys(), selected: this.ui.selected,
      hidden: preview ? (path) => getAt(preview.players, path) === undefined || getAt(preview.players, path) === null : null,
      movable: !preview && !this.ui.placing && !this.ui.drawing,
      move: (cellPath, to) => this.change(cellPath, { x: to.x, y: to.y }, false),
      square: (x, y) => this.square(x, y),
      paint: !preview && this.ui.drawing?.mode === "area" ? (cells) => this.paint(cells) : null,
      keyed: !preview && !!(this.ui.placing || this.ui.drawing),
      piece: (path, cell) => (this.ui.placing || this.ui.drawing ? this.square(cell.x, cell.y) : this.select(path, true)),
    });
    board.dataset.mode = preview ? "preview" : this.ui.drawing ? "draw" : this.ui.placing ? "place" : "edit";
    const focused = this.mapEl.contains(document.activeElement) && document.activeElement.tagName === "svg";
    clear(this.mapEl).appendChild(board);
    if (focused) board.querySelector("svg")?.focus(); // the keyboard keeps its place on the map
    this.renderHidden();
  }

  renderHidden() {
    clear(this.hiddenEl);
    if (!this.preview) return;
    const schema = this.stateSchema;
    // what the players miss, in words: named things and titled fields (bookkeeping has no title)
    const gone = hiddenPaths(this.preview.gm, this.preview.players, []).filter((p) => {
      const v = getAt(this.preview.gm, p);
      return (v && typeof v === "object" && nameOf(v) && (v.name || v.text)) || fieldAt(schema, p)?.meta?.title_ja;
    });
    this.hiddenEl.append(h("h3", t("ed.hidden_list")), gone.length
      ? h("ul", gone.slice(0, 40).map((p) => h("li", { dataset: { path: JSON.stringify(p) } },
        schema ? pathWords(schema, this.preview.gm, p) : p.join(" › "))))
      : h("p.muted", t("ed.nothing_hidden")));
  }

  // -- editing ---------------------------------------------------------------------------------
  change(path, value, structural) {
    setAt(this.data, path, value);
    this.edited(structural);
  }

  edited(structural) {
    if (structural) this.renderForm();
    if (this.preview) this.preview = null;
    this.renderMap();
    this.scheduleCheck();
  }

  moveItem(path, by) {
    const list = getAt(this.data, path.slice(0, -1));
    const i = Number(path[path.length - 1]);
    const j = i + by;
    if (!Array.isArray(list) || j < 0 || j >= list.length) return;
    [list[i], list[j]] = [list[j], list[i]];
    this.edited(true);
  }

  square(x, y) {
    if (this.ui.placing) {
      const path = this.ui.placing;
      this.ui.placing = null;
      this.change(path, { x, y }, true);
      return;
    }
    const d = this.ui.drawing;
    if (!d) return;
    const cells = [...(getAt(this.data, d.path) || [])];
    const at = cells.findIndex((c) => c.x === x && c.y === y);
    if (d.mode === "path") {
      const last = cells[cells.length - 1];
      if (last && last.x === x && last.y === y) return;
      cells.push({ x, y });
    } else if (at >= 0) cells.splice(at, 1);
    else cells.push({ x, y });
    this.change(d.path, cells, true);
  }

  /** Squares dragged over while drawing an area: each one toggles. */
  paint(cells) {
    const d = this.ui.drawing;
    if (!d) return;
    let list = [...(getAt(this.data, d.path) || [])];
    for (const c of cells) {
      const at = list.findIndex((x) => x.x === c.x && x.y === c.y);
      list = at >= 0 ? list.filter((_, i) => i !== at) : [...list, { x: c.x, y: c.y }];
    }
    this.change(d.path, list, true);
  }

  /** Select a thing: its form opens (and scrolls into view) and its piece is marked. */
  select(path, scroll) {
    const same = this.ui.selected && keyOf(this.ui.selected) === keyOf(path);
    this.ui.selected = path;
    if (scroll) {
      let opened = false;
      for (let i = 1; i <= path.length; i += 1) {
        const k = keyOf(path.slice(0, i));
        if (this.ctx?.fields.get(k)?.wrap.tagName === "DETAILS" && !this.ui.open.has(k)) {
          this.ui.open.add(k);
          opened = true;
        }
      }
      if (opened) this.renderForm();
      const f = this.ctx?.fields.get(keyOf(path));
      f?.wrap.scrollIntoView({ block: "nearest" });
      for (const el of this.formBody.querySelectorAll(".ed-item.ed-selected")) el.classList.remove("ed-selected");
      f?.wrap.classList.add("ed-selected");
    }
    if (!same) this.renderMap();
  }

  // -- the check -------------------------------------------------------------------------------
  scheduleCheck() {
    clearTimeout(this.timer);
    this.checking = true;
    this.problemsEl.dataset.state = "pending";
    this.timer = setTimeout(() => this.check(), CHECK_DELAY_MS);
  }

  async check() {
    const seq = (this.seq = (this.seq || 0) + 1);
    let reply;
    try {
      reply = await this.post("check", { scenario: this.data, original: this.original });
    } catch (e) {
      reply = { status: 0, body: { problems: [] } };
      this.status = t("ed.failed", { why: e.message });
    }
    if (seq !== this.seq) return;
    this.checking = false;
    this.checks += 1;
    this.problems = reply.body.problems || [];
    this.markProblems();
    this.renderProblems();
    this.markMap();
  }

  /** The problems' marks on the map, set in place (a redraw mid-click would lose the click). */
  markMap() {
    if (!this.mapEl || this.preview) return;
    const invalid = this.invalidKeys();
    for (const el of this.mapEl.querySelectorAll("g.ed-piece[data-thing], .ed-lines g[data-path]")) {
      const path = JSON.parse(el.dataset.thing || el.dataset.path);
      el.classList.toggle("ed-invalid", invalid.has(keyOf(path)));
    }
  }

  invalidKeys() {
    const out = new Set();
    for (const p of this.problems) {
      const path = p.path || [];
      for (let i = 1; i <= path.length; i += 1) out.add(keyOf(path.slice(0, i)));
    }
    return out;
  }

  /** The field a problem concerns: its own, else the nearest enclosing one drawn. */
  fieldFor(path) {
    for (let i = path.length; i >= 0; i -= 1) {
      const f = this.ctx?.fields.get(keyOf(path.slice(0, i)));
      if (f) return f;
    }
    return null;
  }

  markProblems() {
    if (!this.formBody) return;
    for (const el of this.formBody.querySelectorAll("[aria-invalid]")) {
      el.removeAttribute("aria-invalid");
      el.removeAttribute("aria-describedby");
    }
    for (const el of this.formBody.querySelectorAll(".ed-invalid")) el.classList.remove("ed-invalid");
    for (const el of this.formBody.querySelectorAll(".ed-problem")) el.textContent = "";
    for (const p of this.problems) {
      const f = this.fieldFor(p.path || []);
      if (!f) continue;
      f.wrap.classList.add("ed-invalid");
      f.wrap.dataset.rule = p.rule || "";
      const msg = f.msg || f.wrap.querySelector(".ed-problem");
      if (f.input) {
        f.input.setAttribute("aria-invalid", "true");
        if (msg) { // the sentence is the input's description (read out with it)
          msg.id ||= `ed-problem-${++this.msgIds}`;
          f.input.setAttribute("aria-describedby", msg.id);
        }
      }
      if (msg) msg.append(h("span.ed-problem-text", { dataset: { rule: p.rule || "" } }, pick(p)), " ");
      // the items around a problem open, and say so on their summaries
      for (let el = f.wrap; el && el !== this.formBody; el = el.parentElement) {
        if (el.tagName !== "DETAILS") continue;
        el.classList.add("ed-invalid");
        el.open = true;
        if (el.dataset.path) this.ui.open.add(keyOf(JSON.parse(el.dataset.path)));
      }
    }
  }

  /** "左端砦 › 横": where a problem is, by the names of the things on the way and the titles. */
  whereWords(path) {
    const words = [];
    for (let i = 0; i < path.length; i += 1) {
      const p = path.slice(0, i + 1);
      const v = getAt(this.data, p);
      if (v && typeof v === "object" && !Array.isArray(v) && nameOf(v) && (v.name || v.text)) {
        words.length = 0;
        words.push(nameOf(v));
      } else if (typeof path[i] === "string") {
        const node = nodeAt(this.schema, p);
        words.push(node?.title_ja ? titleOf(node, path[i]) : String(path[i]));
      } else words.push(`#${Number(path[i]) + 1}`);
    }
    return words.join(" › ");
  }

  renderProblems() {
    const el = this.problemsEl;
    if (!el) return;
    el.dataset.state = this.checking ? "pending" : "done";
    el.dataset.count = String(this.problems.length);
    el.dataset.checks = String(this.checks);
    clear(el).append(h("h3", t("ed.problems"), " ",
      h("span.muted.small", this.problems.length ? t("ed.problem_count", { n: this.problems.length }) : "")));
    if (!this.problems.length) {
      el.appendChild(h("p.ed-ok", t("ed.ok")));
      return;
    }
    el.appendChild(h("ul.ed-problem-list", this.problems.map((p) => h("li.ed-problem-item", {
      dataset: { path: JSON.stringify(p.path || []), rule: p.rule || "", line: p.line ?? "" } },
    h("button.link.ed-goto", { type: "button", on: { click: () => this.goTo(p.path || []) } },
      this.whereWords(p.path || []) || t("ed.form")),
    p.line ? h("span.muted.small", ` ${t("ed.line", { n: p.line })}`) : null,
    p.rule ? [" ", h("code", p.rule)] : null,
    h("div.ed-problem-text", lang() === "en" ? p.en : p.ja)))));
  }

  goTo(path) {
    this.select(path, true);
    const f = this.fieldFor(path);
    f?.input?.focus?.();
  }

  // -- player view, save, room -----------------------------------------------------------------
  async togglePreview() {
    if (this.preview) {
      this.preview = null;
      this.renderSide();
      return;
    }
    const [{ status, body }, schema] = await Promise.all([this.post("preview", { scenario: this.data, original: this.original }), loadStateSchema()]);
    this.stateSchema = schema;
    if (status !== 200) {
      this.problems = body.problems || this.problems;
      this.markProblems();
      this.renderSide();
      return;
    }
    this.preview = { gm: body.gm, players: body.players };
    this.renderSide();
  }

  async save() {
    const { status, body } = await this.post("save", { scenario: this.data, original: this.original, filename: this.filename });
    if (status !== 200) {
      this.saveNote.textContent = pick(body.reason) || String(status);
      return;
    }
    this.yaml = body.yaml;
    this.problems = body.problems || this.problems;
    this.renderSide();
    this.markProblems();
    this.saveNote.textContent = t("ed.saved", { n: this.yaml.split("\n").length - (this.yaml.endsWith("\n") ? 1 : 0) });
  }

  download() {
    const url = URL.createObjectURL(new Blob([this.yaml], { type: "application/yaml" }));
    const a = h("a", { href: url, download: this.filename || "scenario.yaml", hidden: true });
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
  }

  async createRoom() {
    const { status, body } = await this.post("room", { scenario: this.data, original: this.original, filename: this.filename });
    if (status === 200 && body.room) {
      this.opts.openRoom(body.room, body.secret);
      return;
    }
    this.problems = body.problems || this.problems;
    this.markProblems();
    this.renderProblems();
    this.saveNote.textContent = body.problems ? t("ed.room_refused") : pick(body.reason) || String(status);
  }
}

/** The topmost paths present in the GM's tree and absent (or empty) in the players'. */
export function hiddenPaths(gm, players, path) {
  if (!gm || typeof gm !== "object") return [];
  const out = [];
  for (const [k, v] of Object.entries(gm)) {
    const key = Array.isArray(gm) ? Number(k) : k;
    const seen = players && typeof players === "object" ? players[key] : undefined;
    if (v === null || v === undefined) continue;
    if (seen === undefined || seen === null) out.push([...path, key]);
    else if (typeof v === "object") out.push(...hiddenPaths(v, seen, [...path, key]));
  }
  return out;
}
