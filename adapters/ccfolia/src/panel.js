/**
 * The small komasync panel on the Ccfolia page: connection state, the fallback banner when
 * the GM wants the data layer and a hook is missing (both languages: it must not be missed),
 * private lines for one user, the last refusal, the page self-test hook by hook, the GM's
 * data-layer switch, the connection settings, and the one-step calibration. Plain DOM,
 * text only (never innerHTML with data).
 */

const T = {
  ja: {
    title: "komasync",
    live: "接続中",
    waiting: "再接続待ち",
    connecting: "接続中…",
    authenticating: "認証中…",
    auth_failed: "トークンが拒否されました",
    stopped: "停止",
    idle: "未接続",
    off: "未設定",
    refusal: "最後の拒否",
    lna: "つながりません。Chrome などが「ローカル ネットワーク上のデバイスの検出と接続」の許可を求めたら「許可」してください（ココフォリアから自分のPCや家庭内のkomasyncへ接続するのに必要です。サイト設定から変更できます）。サーバーが起動しているかも確かめてください。",
    page_ok: "ページ確認: OK",
    page_bad: "ページ確認: 見つからないもの",
    page_hooks: "ページ確認の詳細",
    recheck: "再確認",
    direct: "データ層で直接書き込む（GMのみ・非公式）",
    no_data_layer: "データ層は使えません（チャットコマンドで動きます）",
    skipped: "データ層が必要な変更（手で動かしてください）",
    write_failed: "データ層の書き込みに失敗",
    chat_failed: "チャット送信の失敗",
    private: "個別のお知らせ（本人にだけ。公開チャットには出しません）",
    private_for: "{name} へ",
    private_mine: "あなたへ",
    uncalibrated: "未キャリブレーション: 既定値（マス単位、盤の中央のマスが(0, 0)）で置いています。下の「キャリブレーション」を一度行ってください。",
    settings: "接続設定",
    url: "サーバーURL",
    room: "ルームID",
    token: "ブリッジトークン",
    gm: "私はGM",
    name: "表示名",
    save: "保存して接続",
    calib: "キャリブレーション",
    calib_cell: "1マスの大きさ（1 = 座標がマス単位、24などの数 = ピクセル）",
    calib_start: "開始",
    calib_mark: "置いた",
    calib_cancel: "やめる",
    calib_typed: "大きさだけ保存",
    calib_step1: "「{name}」をそのマスにぴったり置いて「置いた」",
    calib_done: "GMコンソールでこの修正を適用してください（meta.platforms.ccfolia）:",
  },
  en: {
    title: "komasync",
    live: "connected",
    waiting: "reconnecting",
    connecting: "connecting…",
    authenticating: "authenticating…",
    auth_failed: "token refused",
    stopped: "stopped",
    idle: "not connected",
    off: "not configured",
    refusal: "last refusal",
    lna: "Cannot connect. If Chrome (or another browser) asks to let this site look for and connect to devices on your local network, choose Allow: Ccfolia needs it to reach a komasync on your computer or home network (it can be changed in the site settings). Also check that the server is running.",
    page_ok: "page check: OK",
    page_bad: "page check: not found",
    page_hooks: "page check details",
    recheck: "re-check",
    direct: "write through the data layer (GM only, unofficial)",
    no_data_layer: "the data layer is unavailable (working through chat commands)",
    skipped: "changes that need the data layer (move them by hand)",
    write_failed: "data-layer writes failed",
    chat_failed: "chat lines not sent",
    private: "private lines (for one user only; never in the public chat)",
    private_for: "to {name}",
    private_mine: "to you",
    uncalibrated: "Not calibrated: placed with the defaults (squares, the board's centre square at (0, 0)). Run the calibration below once.",
    settings: "connection",
    url: "server URL",
    room: "room id",
    token: "bridge token",
    gm: "I am the GM",
    name: "display name",
    save: "save and connect",
    calib: "calibration",
    calib_cell: "one square is (1 = coordinates count squares; a number like 24 = pixels)",
    calib_start: "start",
    calib_mark: "placed",
    calib_cancel: "cancel",
    calib_typed: "save the size only",
    calib_step1: "Put '{name}' exactly on its square, then 'placed'",
    calib_done: "Apply this override in the GM console (meta.platforms.ccfolia):",
  },
};

const COLORS = { live: "#2e7d32", auth_failed: "#c62828", off: "#c62828" };

export class Panel {
  /**
   * @param {object} win
   * @param {{settings: object, onSave: Function, onDirectWrite: Function,
   *          onCalibrate: Function, lang?: string}} o
   */
  constructor(win, o) {
    this.win = win;
    this.o = o;
    const lang = o.lang || ((win.navigator && win.navigator.language) || "ja").slice(0, 2);
    this.t = T[lang] || T.ja;
    this.bridge = null;
    this._build();
  }

  _el(tag, attrs = {}, text) {
    const el = this.win.document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
      if (k === "style") el.style.cssText = v;
      else el.setAttribute(k, v);
    }
    if (text !== undefined) el.textContent = text;
    return el;
  }

  _build() {
    const doc = this.win.document;
    const root = this._el("div", {
      id: "komasync-panel",
      style:
        "position:fixed;right:8px;bottom:8px;z-index:2147483000;width:300px;max-height:70vh;overflow:auto;" +
        "font:12px/1.4 sans-serif;background:#fff;color:#222;border:1px solid #999;border-radius:6px;" +
        "box-shadow:0 2px 8px rgba(0,0,0,.3);padding:6px 8px",
    });
    const head = this._el("div", { style: "display:flex;gap:6px;align-items:center;font-weight:bold" });
    this.dot = this._el("span", { style: "display:inline-block;width:10px;height:10px;border-radius:5px;background:#999" });
    this.state = this._el("span", { "data-komasync": "state" }, this.t.idle);
    head.append(this.dot, this._el("span", {}, this.t.title), this.state);
    this.fallback = this._el("div", {
      "data-komasync": "fallback",
      style: "display:none;margin-top:4px;padding:4px;border:2px solid #c62828;background:#ffebee;color:#b71c1c;font-weight:bold",
    });
    this.uncal = this._el("div", { "data-komasync": "uncalibrated", style: "display:none;margin-top:4px;color:#ef6c00" });
    this.privateBox = this._el("div", { "data-komasync": "private", style: "display:none;margin-top:4px;border-left:3px solid #6a1b9a;padding-left:4px" });
    this.refusal = this._el("div", { "data-komasync": "refusal", style: "color:#c62828;margin-top:4px" });
    this.lna = this._el("div", { "data-komasync": "lna", style: "display:none;margin-top:4px;color:#ef6c00" });
    this.check = this._el("div", { "data-komasync": "selftest", style: "margin-top:4px;color:#555" });
    const hooks = this._el("details", {});
    hooks.append(this._el("summary", {}, this.t.page_hooks));
    this.hookList = this._el("ul", { "data-komasync": "hooks", style: "margin:2px 0;padding-left:16px" });
    const recheck = this._el("button", { type: "button", "data-komasync": "recheck" }, this.t.recheck);
    recheck.addEventListener("click", () => this.o.onRecheck && this.o.onRecheck());
    hooks.append(this.hookList, recheck);
    const dwRow = this._el("label", { style: "display:block;margin-top:4px" });
    this.direct = this._el("input", { type: "checkbox", "data-komasync": "direct" });
    this.direct.addEventListener("change", () => this.o.onDirectWrite(this.direct.checked));
    dwRow.append(this.direct, this._el("span", {}, ` ${this.t.direct}`));
    this.noData = this._el("div", { "data-komasync": "no-data-layer", style: "color:#555" });
    this.skipped = this._el("div", { "data-komasync": "skipped", style: "color:#ef6c00" });
    this.writeErr = this._el("div", { "data-komasync": "write-errors", style: "color:#c62828" });
    this.chatErr = this._el("div", { "data-komasync": "chat-errors", style: "color:#c62828" });

    const details = this._el("details", { style: "margin-top:6px" });
    details.append(this._el("summary", {}, this.t.settings));
    const s = this.o.settings || {};
    this.fields = {};
    for (const [key, label, type] of [
      ["serverUrl", this.t.url, "text"],
      ["room", this.t.room, "text"],
      ["token", this.t.token, "password"],
      ["userName", this.t.name, "text"],
    ]) {
      const row = this._el("label", { style: "display:block" }, label);
      const input = this._el("input", { type, name: `komasync-${key}`, style: "width:100%;box-sizing:border-box" });
      input.value = s[key] || "";
      this.fields[key] = input;
      row.append(input);
      details.append(row);
    }
    const gmRow = this._el("label", { style: "display:block" });
    this.fields.gm = this._el("input", { type: "checkbox", name: "komasync-gm" });
    this.fields.gm.checked = s.gm !== false;
    gmRow.append(this.fields.gm, this._el("span", {}, ` ${this.t.gm}`));
    const save = this._el("button", { type: "button", "data-komasync": "save" }, this.t.save);
    save.addEventListener("click", () => {
      const out = {};
      for (const [k, el] of Object.entries(this.fields)) out[k] = el.type === "checkbox" ? el.checked : el.value.trim();
      this.o.onSave(out);
    });
    details.append(gmRow, save);

    const cal = this._el("details", { style: "margin-top:6px" });
    cal.append(this._el("summary", {}, this.t.calib));
    const cellRow = this._el("label", { style: "display:block" }, this.t.calib_cell);
    this.calCell = this._el("input", { type: "number", min: "0", step: "any", value: "1", "data-komasync": "calib-cell", style: "width:100%;box-sizing:border-box" });
    cellRow.append(this.calCell);
    this.calSelect = this._el("select", { "data-komasync": "calib-piece", style: "width:100%" });
    this.calHint = this._el("div", { style: "margin:4px 0" });
    const buttons = this._el("div", { style: "display:flex;gap:4px;flex-wrap:wrap" });
    for (const [label, act] of [
      [this.t.calib_start, "start"],
      [this.t.calib_mark, "mark"],
      [this.t.calib_cancel, "cancel"],
      [this.t.calib_typed, "typed"],
    ]) {
      const b = this._el("button", { type: "button", "data-komasync": `calib-${act}` }, label);
      b.addEventListener("click", () => this.o.onCalibrate(act, this.calSelect.value, Number(this.calCell.value)));
      buttons.append(b);
    }
    this.calOut = this._el("textarea", { readonly: "readonly", rows: "4", "data-komasync": "calib-result", style: "width:100%;box-sizing:border-box;display:none" });
    cal.append(cellRow, this.calSelect, this.calHint, buttons, this.calOut);

    root.append(head, this.lna, this.fallback, this.privateBox, this.refusal, this.uncal, this.check, hooks, dwRow, this.noData,
      this.skipped, this.writeErr, this.chatErr, details, cal);
    (doc.body || doc.documentElement).appendChild(root);
    this.root = root;
  }

  /** Redraw from the bridge's `info`. */
  render(info, bridge) {
    if (bridge) this.bridge = bridge;
    const t = this.t;
    const state = info.state || "off";
    this.dot.style.background = COLORS[state] || (state === "waiting" ? "#ef6c00" : "#999");
    let text = t[state] || state;
    if (state === "live") text += ` v${info.applied ?? "-"}`;
    if (state === "waiting" && info.nextRetryAt) text += ` (${Math.max(0, Math.ceil((info.nextRetryAt - Date.now()) / 1000))}s)`;
    if (info.lastError && state !== "live") {
      const r = info.lastError.reason || {};
      text += ` — ${(t === T.en ? r.en : r.ja) || info.lastError.code}`;
    }
    this.state.textContent = text;
    const ref = info.lastRefusal;
    this.refusal.textContent = ref ? `${t.refusal}: ${(t === T.en ? ref.reason.en : ref.reason.ja) || ref.code}` : "";
    // Never connected and retrying: the browser's local-network permission is the usual cause.
    const neverConnected = state === "waiting" && !info.connects;
    this.lna.style.display = neverConnected ? "block" : "none";
    this.lna.textContent = neverConnected ? t.lna : "";
    const fb = info.fallback;
    this.fallback.style.display = fb ? "block" : "none";
    this.fallback.textContent = fb ? `${fb.ja}\n${fb.en}` : "";
    this.uncal.style.display = info.calibrated === false ? "block" : "none";
    this.uncal.textContent = info.calibrated === false ? t.uncalibrated : "";
    this._renderPrivate(info.privateLines || []);
    const st = info.selftest;
    this.check.textContent = st ? (st.missing.length ? `${t.page_bad} (${st.version}): ${st.missing.map((m) => m.split(":")[0]).join(", ")}` : `${t.page_ok} (${st.version})`) : "";
    this.hookList.textContent = "";
    for (const [id, h] of Object.entries((st && st.hooks) || {})) {
      const li = this._el("li", { "data-hook": id, "data-found": h.found ? "yes" : "no", style: h.found ? "" : "color:#c62828" }, `${h.found ? "✓" : "✗"} ${id}${h.detail ? ` — ${h.detail}` : ""}`);
      this.hookList.append(li);
    }
    this.direct.checked = Boolean(info.directWriteWanted);
    const usable = Boolean(st && st.can && st.can.dataLayer);
    this.noData.textContent = !usable && !fb ? t.no_data_layer : "";
    const n = info.skipped ? info.skipped.writes + info.skipped.statusCommands : 0;
    this.skipped.textContent = n && !info.directWrite ? `${t.skipped}: ${n}` : "";
    const we = info.writeErrors || [];
    this.writeErr.textContent = we.length ? `${t.write_failed}: ${we.at(-1).error}` : "";
    this.chatErr.textContent = info.chatErrors && info.chatErrors.length ? `${t.chat_failed}: ${info.chatErrors.at(-1).how}` : "";
    this._renderCalibration(info);
  }

  /** Lines for one user, grouped by whom they are for (newest last). */
  _renderPrivate(lines) {
    this.privateBox.textContent = "";
    this.privateBox.style.display = lines.length ? "block" : "none";
    if (!lines.length) return;
    this.privateBox.append(this._el("div", { style: "font-weight:bold" }, this.t.private));
    const byUser = new Map();
    for (const l of lines) {
      if (!byUser.has(l.to)) byUser.set(l.to, []);
      byUser.get(l.to).push(l);
    }
    for (const [to, list] of byUser) {
      const who = list[0].mine ? this.t.private_mine : this.t.private_for.replace("{name}", list[0].toName || to);
      const box = this._el("div", { "data-to": to });
      box.append(this._el("div", { style: "color:#6a1b9a" }, who));
      for (const l of list.slice(-5)) {
        box.append(this._el("div", { "data-kind": l.kind }, l.text)); // Japanese first, then English
      }
      this.privateBox.append(box);
    }
  }

  _renderCalibration(info) {
    const b = this.bridge;
    if (b) {
      const current = this.calSelect.value;
      const options = [...b.known.entries()].filter(([, k]) => k.type === "character" && k.ref && ["fort", "piece"].includes(k.ref.kind));
      if (options.length !== this.calSelect.options.length) {
        this.calSelect.textContent = "";
        for (const [sid, k] of options) {
          const opt = this._el("option", { value: sid }, k.name);
          this.calSelect.append(opt);
        }
        if (current) this.calSelect.value = current;
      }
    }
    const c = info.calibration;
    if (!c) {
      this.calHint.textContent = "";
      this.calOut.style.display = "none";
      return;
    }
    const name = b && c.id && b.known.get(c.id) ? b.known.get(c.id).name : c.id;
    if (c.action) {
      this.calHint.textContent = this.t.calib_done;
      this.calOut.style.display = "block";
      this.calOut.value = JSON.stringify(c.action);
    } else {
      this.calHint.textContent = this.t.calib_step1.replace("{name}", name);
      this.calOut.style.display = "none";
    }
  }
}
