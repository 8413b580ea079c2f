// A bridge's set-up by clicking (issue 30), in the Connections tab: calibration from the
// VTT pieces the bridge reported (pick one by its name, click its square on the room's
// board; a second piece, or the VTT's own grid size, fixes the square's size), VTT users
// matched to the room's players from two lists, and Ccfolia's page check in words. Every
// save is one `override` of `meta.platforms.<platform>` the console builds (docs/bridges.md,
// Calibration): the GM never types JSON. The arithmetic is the one adapters/geometry.py
// reads back: a piece's top-left = origin + square × unit.

import { h, clear } from "../dom.js";
import { addStrings, lang, t } from "../i18n.js";
import { makeBoard } from "../board.js";

const CELL = 22; // drawing units per square on the console's board
const DEFAULT_GRID = { width: 20, height: 20 }; // adapters/projection.py grid_of
const AGREE = 0.02; // two pieces must give the same square size on both axes, within 2 %
const REASON_CAL = "キャリブレーション（クリックで） / calibration by clicking";
const REASON_USERS = "VTTのユーザーとプレイヤーの対応 / VTT users matched to players";

addStrings({
  ja: {
    "setup.title": "{bridge} の設定",
    "setup.cal.title": "キャリブレーション（クリックで）",
    "setup.cal.help": "VTTで駒を部屋のマスにぴったり置き、ここでその駒を選んでから、下の盤でそのマスをクリックします。",
    "setup.cal.help_two": "違うマスの駒をもう1つ同じようにすると、1マスの大きさも決まります。",
    "setup.cal.help_grid": "VTTのマスの大きさ（{size}）がわかっているので、駒1つで足ります。",
    "setup.cal.tokens": "VTTの駒",
    "setup.cal.no_tokens": "ブリッジはまだ駒を報告していません。VTTに駒を1つ置いてください。",
    "setup.cal.pick": "駒「{name}」を選ぶ（VTTで ({x}, {y})）",
    "setup.cal.now": "「{name}」のマスを盤でクリックしてください。",
    "setup.cal.choose": "まず駒を選んでください。",
    "setup.cal.pair": "「{name}」（VTTで ({x}, {y})）→ マス ({cx}, {cy})",
    "setup.cal.remove": "「{name}」の対応を外す",
    "setup.cal.result": "1マス = {unit}、マス(0, 0)の左上 = VTTの ({ox}, {oy})",
    "setup.cal.px": "{n}ピクセル", "setup.cal.cells": "VTTの1単位（マス単位）",
    "setup.cal.need": "あと駒 {n} つ（違うマス）が必要です。",
    "setup.cal.same_square": "2つの駒が同じマスです。違うマスの駒を選んでください。",
    "setup.cal.disagree": "2つの駒から求めたマスの大きさが縦と横で合いません（{a} と {b}）。駒がマスにぴったり置かれているか確かめてください。",
    "setup.cal.bad_unit": "求めたマスの大きさが正になりません。マスを選び直してください。",
    "setup.cal.save": "キャリブレーションを保存",
    "setup.cal.saved": "保存しました: {what}",
    "setup.cal.current": "今の設定: {what}",
    "setup.cal.none": "今の設定: まだキャリブレーションしていません（既定値）",
    "setup.cal.board": "部屋の盤（マスをクリック）",
    "setup.users.title": "VTTのユーザーとプレイヤー",
    "setup.users.help": "左のVTTのユーザーを選んでから、右でその人のプレイヤー（またはGM）を選びます。選ぶとすぐ保存されます。",
    "setup.users.vtt": "VTTのユーザー", "setup.users.players": "この部屋のプレイヤー",
    "setup.users.none": "ブリッジはまだユーザーを報告していません。",
    "setup.users.gm_user": "（VTTのGM）",
    "setup.users.is": "→ {who}", "setup.users.unmatched": "→ 未対応",
    "setup.users.gm": "GM",
    "setup.users.clear": "対応を外す",
    "setup.users.pick": "VTTのユーザー「{name}」を選ぶ",
    "setup.users.first": "まず左でVTTのユーザーを選んでください。",
    "setup.users.now": "「{name}」は誰ですか？",
    "setup.users.as": "「{user}」を{who}にする",
    "setup.page.title": "ココフォリアのページの確認",
    "setup.page.all_ok": "すべて使えます。",
    "setup.page.some": "一部が使えません。下の「すること」を見てください。",
    "setup.page.observe.ok": "駒の動きとチャットのダイスを読めます。",
    "setup.page.observe.no": "駒の動きとチャットのダイスを読めません。",
    "setup.page.observe.do": "ルームのページを再読み込みしてから、komasyncパネルの「再確認」を押してください。直らなければココフォリアが更新された可能性があります。komasyncの更新を待ってください。",
    "setup.page.chat.ok": "チャットに書き込めます。",
    "setup.page.chat.no": "チャット欄が見つからないので、ログをチャットに書けません。",
    "setup.page.chat.do": "ルームのチャット欄を開いたままにして、パネルの「再確認」を押してください。",
    "setup.page.status.ok": "耐久力などのステータスをチャットコマンドで更新できます。",
    "setup.page.status.no": "発言者名の欄が見つからないので、ステータスをチャットコマンドで更新できません。",
    "setup.page.status.do": "チャット欄の発言者（キャラクター名）の欄が見えるようにしてください。",
    "setup.page.dl.on": "komasyncが駒・マーカー・ダイスを直接動かしています（データ層 ON）。",
    "setup.page.dl.can": "駒を直接動かすこともできます（今はオフ）。",
    "setup.page.dl.can_do": "使うには、komasyncパネルの「データ層で書き込む」をオンにしてください。",
    "setup.page.dl.cannot": "駒を直接は動かせません（今はオフ）。",
    "setup.page.dl.cannot_do": "駒の位置はVTTで手で動かすか、「ブリッジなしで」のZIP/クリップボードで置いてください。",
    "setup.page.dl.fallback": "駒を直接動かせないので、チャットコマンドで代わりに動かしています。",
    "setup.page.dl.fallback_do": "駒の位置・マーカー・ダイスはVTTで手で動かすか、ZIP/クリップボードで置いてください。ページを再読み込みして「再確認」で直ることもあります。",
    "setup.page.todo": "すること: {what}",
    "setup.page.details": "技術的な詳細",
    "setup.page.version": "ページの想定: {v}",
    "setup.page.missing": "見つからないもの: {list}",
    "setup.page.missing_none": "見つからないもの: なし",
    "setup.page.raw": "ブリッジの報告: {detail}",
    "setup.page.short_ok": "ページの確認: すべて使えます",
    "setup.page.short_some": "ページの確認: 一部使えません（下を参照）",
  },
  en: {
    "setup.title": "Set-up of {bridge}",
    "setup.cal.title": "Calibration by clicking",
    "setup.cal.help": "On the VTT, put a piece exactly on one of the room's squares; pick that piece here, then click its square on the board below.",
    "setup.cal.help_two": "Do the same with a second piece on another square and the size of a square follows too.",
    "setup.cal.help_grid": "The VTT's square size ({size}) is known, so one piece is enough.",
    "setup.cal.tokens": "Pieces on the VTT",
    "setup.cal.no_tokens": "The bridge has reported no piece yet. Put a piece on the VTT.",
    "setup.cal.pick": "Pick piece “{name}” (at ({x}, {y}) on the VTT)",
    "setup.cal.now": "Click the square of “{name}” on the board.",
    "setup.cal.choose": "Pick a piece first.",
    "setup.cal.pair": "“{name}” (at ({x}, {y}) on the VTT) → square ({cx}, {cy})",
    "setup.cal.remove": "Forget “{name}”",
    "setup.cal.result": "1 square = {unit}; the top-left of square (0, 0) = ({ox}, {oy}) on the VTT",
    "setup.cal.px": "{n} pixels", "setup.cal.cells": "1 VTT unit (squares)",
    "setup.cal.need": "{n} more piece(s) on another square needed.",
    "setup.cal.same_square": "Both pieces are on the same square. Pick a piece on another square.",
    "setup.cal.disagree": "The two pieces give different square sizes across and down ({a} and {b}). Check that both sit exactly on their squares.",
    "setup.cal.bad_unit": "The square size would not be positive. Pick the squares again.",
    "setup.cal.save": "Save the calibration",
    "setup.cal.saved": "Saved: {what}",
    "setup.cal.current": "Now: {what}",
    "setup.cal.none": "Now: not calibrated yet (the defaults)",
    "setup.cal.board": "The room's board (click a square)",
    "setup.users.title": "VTT users and players",
    "setup.users.help": "Pick a VTT user on the left, then who they are on the right (a player, or the GM). Each choice is saved at once.",
    "setup.users.vtt": "VTT users", "setup.users.players": "This room's players",
    "setup.users.none": "The bridge has reported no user yet.",
    "setup.users.gm_user": "(VTT GM)",
    "setup.users.is": "→ {who}", "setup.users.unmatched": "→ not matched",
    "setup.users.gm": "GM",
    "setup.users.clear": "Unmatch",
    "setup.users.pick": "Pick VTT user “{name}”",
    "setup.users.first": "Pick a VTT user on the left first.",
    "setup.users.now": "Who is “{name}”?",
    "setup.users.as": "Make “{user}” {who}",
    "setup.page.title": "Ccfolia page check",
    "setup.page.all_ok": "Everything works.",
    "setup.page.some": "Some things do not work. See “what to do” below.",
    "setup.page.observe.ok": "Reads piece moves and dice in chat.",
    "setup.page.observe.no": "Cannot read piece moves or dice in chat.",
    "setup.page.observe.do": "Reload the room's page, then press “re-check” in the komasync panel. If that does not help, Ccfolia may have changed: wait for a komasync update.",
    "setup.page.chat.ok": "Writes to the chat.",
    "setup.page.chat.no": "No chat box found, so the log cannot be written to the chat.",
    "setup.page.chat.do": "Keep the room's chat box open and press “re-check” in the panel.",
    "setup.page.status.ok": "Updates status bars (durability…) through chat commands.",
    "setup.page.status.no": "No speaker-name field found, so status bars cannot be updated through chat commands.",
    "setup.page.status.do": "Make the chat's speaker (character name) field visible.",
    "setup.page.dl.on": "komasync moves pieces, markers and dice itself (data layer on).",
    "setup.page.dl.can": "komasync could move pieces itself (now off).",
    "setup.page.dl.can_do": "To use it, tick “write through the data layer” in the komasync panel.",
    "setup.page.dl.cannot": "komasync cannot move pieces itself (now off).",
    "setup.page.dl.cannot_do": "Move pieces by hand on the VTT, or place them with the ZIP/clipboard of “Without a bridge”.",
    "setup.page.dl.fallback": "komasync cannot move pieces itself, so it uses chat commands instead.",
    "setup.page.dl.fallback_do": "Move pieces, markers and dice by hand, or place them with the ZIP/clipboard. Reloading the page and pressing “re-check” may fix it.",
    "setup.page.todo": "What to do: {what}",
    "setup.page.details": "Technical details",
    "setup.page.version": "page assumptions: {v}",
    "setup.page.missing": "not found: {list}",
    "setup.page.missing_none": "not found: none",
    "setup.page.raw": "the bridge's report: {detail}",
    "setup.page.short_ok": "Page check: everything works",
    "setup.page.short_some": "Page check: some things do not work (see below)",
  },
});

const round = (v) => Math.round(v * 1000) / 1000;

/** The platform's settings now in the room (meta.platforms.<platform>), or {}. */
function settingsOf(state, platform) {
  const s = state?.meta?.platforms?.[platform];
  return s && typeof s === "object" ? s : {};
}

/** VTT units per square when only one piece is known: the VTT's grid, else the room's. */
function knownUnit(platform, settings, grid) {
  if (grid?.size > 0) return grid.size;
  if (settings.units === "cell") return 1;
  if (typeof settings.cell_size === "number") return settings.cell_size;
  return platform === "foundry" ? 100 : 1; // the adapters' defaults (px 100 / squares)
}

/**
 * The calibration from clicked pairs [{x, y (VTT), cell}]: `{value}` (what the room stores)
 * or `{error: key, vars}` or `{need: n}`. Two pairs on different squares give the unit;
 * one pair uses the VTT's grid (or the room's unit). Ccfolia's 1 unit per square is
 * stored as squares (units "cell"), as adapters/foundry/module/scripts/core/calibrate.js does.
 */
export function calibrate(pairs, platform, settings, grid) {
  let unit;
  if (pairs.length >= 2) {
    const [a, b] = pairs.slice(-2);
    const dx = b.cell.x - a.cell.x;
    const dy = b.cell.y - a.cell.y;
    if (!dx && !dy) return { error: "setup.cal.same_square" };
    const ux = dx ? (b.x - a.x) / dx : null;
    const uy = dy ? (b.y - a.y) / dy : null;
    if (ux !== null && uy !== null && Math.abs(ux - uy) > AGREE * Math.max(Math.abs(ux), Math.abs(uy))) {
      return { error: "setup.cal.disagree", vars: { a: round(ux), b: round(uy) } };
    }
    unit = ux !== null && uy !== null ? (ux + uy) / 2 : ux ?? uy;
  } else if (pairs.length === 1 && (grid?.size > 0 || platform !== "foundry" || settings.cell_size)) {
    unit = knownUnit(platform, settings, grid);
  } else {
    return { need: Math.max(1, 2 - pairs.length) };
  }
  if (!(unit > 0)) return { error: "setup.cal.bad_unit" };
  const used = pairs.slice(-2);
  const ox = used.reduce((s, p) => s + p.x - p.cell.x * unit, 0) / used.length;
  const oy = used.reduce((s, p) => s + p.y - p.cell.y * unit, 0) / used.length;
  const squares = platform !== "foundry" && Math.abs(unit - 1) < 1e-6;
  const value = squares ? { units: "cell", cell_size: 24 } : { units: "px", cell_size: round(unit) };
  return { value: { ...value, origin_x: round(ox), origin_y: round(oy) } };
}

/** A calibration in words: 「1マス = 100ピクセル、マス(0, 0)の左上 = VTTの (600, 400)」. */
function calWords(v) {
  const unit = v.units === "cell" ? t("setup.cal.cells") : t("setup.cal.px", { n: v.cell_size });
  return t("setup.cal.result", { unit, ox: v.origin_x ?? 0, oy: v.origin_y ?? 0 });
}

/** One bridge's set-up section; kept across the Connections tab's redraws. */
export class BridgeSetup {
  constructor(app, principal) {
    this.app = app;
    this.principal = principal;
    this.el = h("section.bridge-setup", { dataset: { principal } });
    this.pick = null; // the VTT piece being placed: its index in the reported list
    this.pairs = []; // [{name, x, y, cell}]
    this.user = null; // the VTT user being matched: its id
    this.saved = null; // words of the last saved calibration
    this.board = {}; // the board's kept state (view, cursor)
    this.key = "";
  }

  /** Redraw only when what it shows changed (the tab redraws every second). */
  update(b) {
    this.b = b;
    const state = this.app.store.state;
    const key = JSON.stringify([lang(), b.label, b.platform, b.tokens, b.users, b.grid, b.page, b.detail,
      settingsOf(state, b.platform), state?.meta?.players, state?.table?.grid, this.pick, this.pairs,
      this.user, this.saved]);
    if (key !== this.key) {
      this.key = key;
      this.render();
    }
    return this.el;
  }

  redraw() {
    this.key = "";
    this.update(this.b);
  }

  render() {
    const b = this.b;
    const title = t("setup.title", { bridge: b.label || b.principal });
    this.el.setAttribute("aria-label", title);
    clear(this.el).append(h("h4", title),
      b.page ? this.renderPage(b) : null,
      b.tokens ? this.renderCalibration(b) : null,
      b.users ? this.renderUsers(b) : null);
  }

  // -- calibration ---------------------------------------------------------------------
  renderCalibration(b) {
    const state = this.app.store.state;
    const settings = settingsOf(state, b.platform);
    // the wire says left/top (a corner in the VTT's units); the pairs below keep x/y
    const tokens = (b.tokens || []).map((tok) => ({ ...tok, x: tok.left, y: tok.top }));
    const picked = this.pick !== null ? tokens[this.pick] : null;
    const list = tokens.length
      ? h("ul.plain.setup-tokens", tokens.map((tok, i) => h("li",
        h("button.small", {
          type: "button", "aria-pressed": String(i === this.pick), dataset: { token: i },
          "aria-label": t("setup.cal.pick", { name: tok.name, x: tok.x, y: tok.y }),
          on: { click: () => { this.pick = i === this.pick ? null : i; this.redraw(); } },
        }, tok.name || "?", " ", h("span.muted.small", `(${tok.x}, ${tok.y})`)))))
      : h("p.muted.small", t("setup.cal.no_tokens"));
    const result = calibrate(this.pairs, b.platform, settings, b.grid);
    const pairs = h("ol.plain.setup-pairs", this.pairs.map((p, i) => h("li", { dataset: { pair: i } },
      t("setup.cal.pair", { name: p.name, x: p.x, y: p.y, cx: p.cell.x, cy: p.cell.y }), " ",
      h("button.small", { type: "button", "aria-label": t("setup.cal.remove", { name: p.name }),
                          on: { click: () => { this.pairs.splice(i, 1); this.redraw(); } } }, "×"))));
    let verdict;
    if (result.value) {
      verdict = h("div.setup-result",
        h("p.setup-cal-words", calWords(result.value)),
        h("button.primary", { type: "button", dataset: { save: "calibration" },
                              on: { click: () => this.saveCalibration(result.value) } }, t("setup.cal.save")));
    } else if (result.error) {
      verdict = h("p.setup-error", { role: "alert" }, t(result.error, result.vars));
    } else {
      verdict = this.pairs.length ? h("p.muted.small", t("setup.cal.need", { n: result.need })) : null;
    }
    const now = typeof settings.origin_x === "number" || typeof settings.units === "string"
      ? t("setup.cal.current", { what: calWords(settings) }) : t("setup.cal.none");
    return h("div.setup-cal",
      h("h5", t("setup.cal.title")),
      h("p.muted.small", t("setup.cal.help"), " ",
        b.grid?.size > 0 ? t("setup.cal.help_grid", { size: t("setup.cal.px", { n: b.grid.size }) }) : t("setup.cal.help_two")),
      h("p.small.setup-current", now),
      this.saved ? h("p.small.setup-saved", { role: "status" }, t("setup.cal.saved", { what: this.saved })) : null,
      h("div.setup-label", t("setup.cal.tokens")), list,
      h("p.small.setup-prompt", { "aria-live": "polite" },
        picked ? t("setup.cal.now", { name: picked.name }) : t("setup.cal.choose")),
      this.renderBoard(picked),
      pairs, verdict);
  }

  /** The room's squares (the table grid the adapters draw on); a click pairs the picked piece. */
  renderBoard(picked) {
    const grid = this.app.store.state?.table?.grid || DEFAULT_GRID;
    const width = grid.width || DEFAULT_GRID.width;
    const height = grid.height || DEFAULT_GRID.height;
    const svg = h("svg.setup-board", { viewBox: `0 0 ${width * CELL} ${height * CELL}`, "aria-label": t("setup.cal.board") });
    const cells = h("g.setup-cells");
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        cells.appendChild(h("rect.setup-cell", { x: x * CELL, y: y * CELL, width: CELL, height: CELL,
                                                  dataset: { x, y, boardCell: "" } }));
      }
    }
    svg.appendChild(cells);
    for (const p of this.pairs) {
      svg.appendChild(h("g.setup-mark", { dataset: { x: p.cell.x, y: p.cell.y } },
        h("rect", { x: p.cell.x * CELL + 2, y: p.cell.y * CELL + 2, width: CELL - 4, height: CELL - 4 }),
        h("title", p.name)));
    }
    return makeBoard(svg, {
      unit: CELL, width, height, ui: this.board, pieces: [], key: `setup-${this.principal}`,
      reach: () => null, move: async () => null,
      onSquare: (x, y) => {
        const tok = picked;
        if (!tok) return;
        this.pairs = [...this.pairs.filter((p) => p.name !== tok.name || p.x !== tok.x || p.y !== tok.y),
          { name: tok.name, x: tok.x, y: tok.y, cell: { x, y } }].slice(-2);
        this.pick = null;
        this.redraw();
      },
    });
  }

  async saveCalibration(value) {
    const platform = this.b.platform;
    const current = settingsOf(this.app.store.state, platform);
    const reply = await this.app.act({ kind: "override", path: ["meta", "platforms", platform],
                                       value: { ...current, ...value }, reason: REASON_CAL });
    if (reply.type === "ack") {
      this.saved = calWords(value);
      this.pairs = [];
      this.redraw();
    }
  }

  // -- users ---------------------------------------------------------------------------
  renderUsers(b) {
    const state = this.app.store.state;
    const settings = settingsOf(state, b.platform);
    const mapped = settings.users && typeof settings.users === "object" ? settings.users : {};
    const players = state?.meta?.players || {};
    const whoIs = (pid) => (pid === "gm" ? t("setup.users.gm") : players[pid]?.name || pid);
    const users = b.users || [];
    const current = users.find((u) => u.id === this.user) || null;
    const nameOf = (u) => u.name || u.id;
    const left = users.length ? h("ul.plain.setup-users", users.map((u) => {
      const pid = mapped[u.id] ?? mapped[u.name];
      return h("li", { dataset: { user: u.id } },
        h("button.small", { type: "button", "aria-pressed": String(u.id === this.user),
                            "aria-label": t("setup.users.pick", { name: nameOf(u) }),
                            on: { click: () => { this.user = u.id === this.user ? null : u.id; this.redraw(); } } },
          nameOf(u), u.gm ? ` ${t("setup.users.gm_user")}` : ""),
        " ", h("span.small.setup-user-is", pid ? t("setup.users.is", { who: whoIs(pid) }) : t("setup.users.unmatched")));
    })) : h("p.muted.small", t("setup.users.none"));
    const choices = [...Object.entries(players).map(([pid, p]) => [pid, p?.name || pid]), ["gm", t("setup.users.gm")]];
    const right = h("ul.plain.setup-players", choices.map(([pid, label]) => h("li",
      h("button.small", { type: "button", disabled: !current, dataset: { player: pid },
                          "aria-label": current ? t("setup.users.as", { user: nameOf(current), who: label }) : label,
                          on: { click: () => this.saveUser(current, pid) } }, label))),
    current && (mapped[current.id] ?? mapped[current.name]) ? h("li", h("button.small", {
      type: "button", dataset: { player: "" }, on: { click: () => this.saveUser(current, null) } }, t("setup.users.clear"))) : null);
    return h("div.setup-users-wrap",
      h("h5", t("setup.users.title")),
      h("p.muted.small", t("setup.users.help")),
      h("p.small.setup-prompt", { "aria-live": "polite" },
        current ? t("setup.users.now", { name: nameOf(current) }) : t("setup.users.first")),
      h("div.setup-lists",
        h("div", h("div.setup-label", t("setup.users.vtt")), left),
        h("div", h("div.setup-label", t("setup.users.players")), right)));
  }

  async saveUser(user, pid) {
    if (!user) return;
    const platform = this.b.platform;
    const current = settingsOf(this.app.store.state, platform);
    const users = { ...(current.users && typeof current.users === "object" ? current.users : {}) };
    delete users[user.name]; // a mapping by name gives way to the one by id
    if (pid) users[user.id] = pid;
    else delete users[user.id];
    const reply = await this.app.act({ kind: "override", path: ["meta", "platforms", platform],
                                       value: { ...current, users }, reason: REASON_USERS });
    if (reply.type === "ack") {
      this.user = null;
      this.redraw();
    }
  }

  // -- Ccfolia's page check ------------------------------------------------------------
  renderPage(b) {
    const p = b.page;
    const can = p.can || {};
    const lines = [
      ["observe", can.observe],
      ["chat", can.chat],
      ["status", can.statusCommands],
    ].map(([k, ok]) => ({ ok: Boolean(ok), text: t(`setup.page.${k}.${ok ? "ok" : "no"}`), todo: ok ? null : t(`setup.page.${k}.do`) }));
    const dl = p.data_layer === "on" ? { ok: true, text: t("setup.page.dl.on") }
      : p.data_layer === "fallback" ? { ok: false, text: t("setup.page.dl.fallback"), todo: t("setup.page.dl.fallback_do") }
        : can.dataLayer ? { ok: true, text: t("setup.page.dl.can"), todo: t("setup.page.dl.can_do"), hint: true }
          : { ok: false, text: t("setup.page.dl.cannot"), todo: t("setup.page.dl.cannot_do") };
    lines.push(dl);
    const allOk = lines.every((l) => l.ok) && p.data_layer !== "fallback";
    const missing = p.missing || [];
    return h("div.setup-page", { dataset: { ok: allOk ? "yes" : "no" } },
      h("h5", t("setup.page.title")),
      h("p.setup-page-verdict", { class: allOk ? "ok" : "warn" }, t(allOk ? "setup.page.all_ok" : "setup.page.some")),
      h("ul.plain.setup-page-list", lines.map((l) => h("li", { class: l.ok ? "ok" : "no" },
        h("span.setup-mark-sign", { "aria-hidden": "true" }, l.ok ? "✓ " : "✗ "), l.text,
        l.todo ? h("div.small.setup-todo", { class: l.hint ? "muted" : "" }, t("setup.page.todo", { what: l.todo })) : null))),
      h("details.setup-page-details",
        h("summary", t("setup.page.details")),
        h("ul.plain.small",
          h("li", t("setup.page.version", { v: p.version || "—" })),
          h("li", missing.length ? t("setup.page.missing", { list: missing.join(", ") }) : t("setup.page.missing_none")),
          b.detail ? h("li", t("setup.page.raw", { detail: b.detail })) : null)));
  }
}

/** The bridge table's detail cell: a page check in a few words, the raw line folded away. */
export function detailCell(b) {
  if (!b.page) return b.detail || "";
  const can = b.page.can || {};
  const ok = can.observe && can.chat && can.statusCommands && b.page.data_layer !== "fallback"
    && (b.page.data_layer === "on" || can.dataLayer);
  return [t(ok ? "setup.page.short_ok" : "setup.page.short_some"),
    b.detail ? h("details.small", h("summary", t("setup.page.details")), b.detail) : null];
}
