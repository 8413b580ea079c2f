/**
 * The userscript's entry: settings from this browser's localStorage, the panel, and the
 * bridge once the page's store is there (Ccfolia renders after the script starts).
 */

import { CcfoliaBridge } from "./bridge.js";
import { Panel } from "./panel.js";
import { findStore } from "./page.js";

export const SETTINGS_KEY = "komasync.ccfolia";

export function loadSettings(win) {
  try {
    return JSON.parse(win.localStorage.getItem(SETTINGS_KEY) || "{}") || {};
  } catch {
    return {};
  }
}

export function saveSettings(win, settings) {
  win.localStorage.setItem(SETTINGS_KEY, JSON.stringify(settings));
}

/**
 * The komasync server's WebSocket URL for a userscript served from `servedFrom` (the
 * server's public address, filled in when it serves the file), else "" (not configured).
 */
export function defaultServerUrl(servedFrom) {
  if (!servedFrom) return "";
  return String(servedFrom).replace(/\/+$/, "").replace(/^http/, "ws") + "/ws";
}

/** Start everything on `win`; returns a handle (also at `win.komasync`). */
export function boot(win, { waitMs = 60000, servedFrom = null } = {}) {
  const handle = { bridge: null, panel: null };
  const settings = () => ({ serverUrl: defaultServerUrl(servedFrom), gm: true, directWrite: false, ...loadSettings(win) });
  const connect = () => {
    if (handle.bridge) handle.bridge.stop();
    const b = new CcfoliaBridge({
      win,
      settings: settings(),
      onChange: (info) => handle.panel && handle.panel.render(info, b),
    });
    handle.bridge = b;
    b.start();
    handle.panel.render(b.info, b);
  };
  handle.panel = new Panel(win, {
    settings: settings(),
    onSave: (values) => {
      saveSettings(win, { ...loadSettings(win), ...values });
      connect();
    },
    onDirectWrite: (on) => {
      saveSettings(win, { ...loadSettings(win), directWrite: on });
      if (handle.bridge) handle.bridge.setDirectWrite(on);
    },
    onRecheck: () => handle.bridge && handle.bridge.recheck(),
    onCalibrate: (act, sid, cellSize) => {
      const b = handle.bridge;
      if (!b) return;
      try {
        if (act === "start") b.calibrateBegin(sid, cellSize);
        else if (act === "mark") b.calibrateMark();
        else if (act === "typed") b.calibrateTyped(cellSize);
        else b.calibrateCancel();
      } catch (e) {
        b.lastError = String(e.message || e);
        b._changed();
      }
    },
  });
  const started = Date.now();
  const wait = () => {
    if (findStore(win).store || Date.now() - started > waitMs) connect();
    else win.setTimeout(wait, 250);
  };
  wait();
  win.komasync = handle;
  return handle;
}
