// Japanese / English. Japanese is the default when the browser prefers it
// (the first of navigator.languages that is Japanese or English decides); the GM's
// toggle is remembered in localStorage (not a secret). Panels add their own strings
// with addStrings(), so a new subsystem never edits this file.

const STRINGS = {
  ja: {
    "app.title": "komasync GMコンソール",
    "signin.title": "GMとしてサインイン",
    "signin.secret": "GM秘密鍵",
    "signin.hint": "`komasync serve` が表示するGMキーなら一度のサインインで全ルームを開けます。鍵はこのタブのsessionStorageにだけ保存され、URLには入りません。",
    "signin.submit": "サインイン",
    "signin.empty": "GM秘密鍵が違います。`komasync serve` が表示したGMキー（全ルーム共通）か、`komasync room create` が表示した秘密鍵を入れてください。",
    "invite.dead": "この招待リンクは使えません",
    "invite.ask": "GMに新しい招待リンクを送ってもらってください（GMはコンソールの「招待」タブで発行できます）。",
    "signin.failed": "サインインできません: {why}",
    "rooms.title": "ルーム",
    "rooms.open": "開く",
    "rooms.switch": "ルームを切り替え",
    "rooms.version": "バージョン",
    "rooms.created": "作成",
    "signout": "サインアウト",
    "lang.toggle": "English",
    "status.connecting": "接続中…",
    "status.open": "接続",
    "status.closed": "切断（再接続します）",
    "status.auth_failed": "認証失敗",
    "version": "v{v}",
    "gm_only": "GMのみ",
    "gm_only.title": "プレイヤーと卓には送られていません",
    "tab.timeline": "タイムライン",
    "tab.notices": "通知",
    "tab.connections": "接続",
    "tab.invites": "招待",
    "tab.log": "ログ",
    "undo.last": "一つ戻す",
    "undo.to": "この時点に戻す",
    "undo.start": "開始時点（v0）に戻す",
    "undo.reason": "取り消しの理由",
    "undo.default_reason": "GMが取り消し",
    "undo.confirm": "v{v}の状態に戻す",
    "undo.nothing": "戻せる操作がありません。",
    "undo.undoes": "取り消される操作: {list}",
    "override.title": "値を修正",
    "override.path": "パス",
    "override.current": "現在の値",
    "override.new": "新しい値",
    "override.reason": "理由（必須）",
    "override.rule": "本来の規則",
    "override.no_rule": "自動の規則はありません（宣言された型で検証されます）",
    "override.apply": "適用",
    "override.delete": "この項目を削除",
    "override.changed": "サーバー側で値が変わりました: {v}",
    "override.need_reason": "理由を入力してください。",
    "override.need_int": "整数を入力してください。",
    "override.bad_json": "JSONとして読めません: {why}",
    "cancel": "キャンセル",
    "ok": "OK",
    "close": "閉じる",
    "prompt.title": "GMへの問い",
    "prompt.to": "宛先: {to}",
    "prompt.free": "自由回答",
    "prompt.answer": "回答",
    "timeline.empty": "まだ操作はありません。",
    "timeline.reason": "理由",
    "timeline.rolls": "ダイス",
    "timeline.warnings": "規則の警告",
    "timeline.by": "{who}",
    "timeline.load_more": "さらに読み込む",
    "do.override": "{path} を {value} に修正",
    "do.override.delete": "{path} を削除",
    "do.undo": "v{v} の状態に戻す",
    "do.answer": "問い『{prompt}』に「{choice}」と回答",
    "do.room.player.add": "プレイヤー「{name}」を追加",
    "do.room.enforcement": "規則の適用を「{mode}」に変更",
    "do.room.player_rolls": "プレイヤーが入力したダイス結果を「{mode}」に変更",
    "do.room.uncredited.moves": "誰の操作か分からないVTT上の操作を「コマの移動だけ」に変更",
    "do.room.uncredited.gm_side": "誰の操作か分からないVTT上の操作を「GM側の判断もする」に変更",
    "roll.engine": "サーバーの乱数",
    "roll.external": "外部報告",
    "roll.gm": "GM入力",
    "roll.reporter": "報告者 {who}",
    "roll.target": "目標値 {n}",
    "notices.empty": "拒否や警告はまだありません。",
    "notice.refusal": "拒否",
    "notice.warning": "警告",
    "notice.error": "エラー",
    "connections.title": "接続中のクライアント",
    "connections.bridges": "ブリッジ",
    "connections.none": "ブリッジは接続していません。",
    "connections.platform": "プラットフォーム",
    "connections.last_event": "最終イベント",
    "connections.lag": "遅れ",
    "connections.lag_value": "{n}版",
    "connections.detail": "詳細",
    "connections.online": "接続中",
    "connections.offline": "切断",
    "rolls.title": "ブリッジが受け取ったダイス",
    "rolls.hint": "各ブリッジの直近のダイス（新しい順）と、それがどうなったか。",
    "rolls.of": "{bridge} のダイス",
    "rolls.none": "このブリッジからはまだダイスが届いていません。",
    "rolls.unbound": "（PCに結び付いていません）",
    "rolls.player": "（{name}）",
    "rolls.not_used": "使われませんでした: {why}",
    "ago.s": "{n}秒前",
    "ago.m": "{n}分前",
    "ago.h": "{n}時間前",
    "invites.title": "招待",
    "invites.role": "役割",
    "invites.player": "プレイヤー",
    "invites.label": "表示名",
    "invites.create": "招待を作る",
    "invites.revoke": "取り消す",
    "invites.revoked": "取り消し済み",
    "invites.link": "招待リンク",
    "invites.token": "トークン",
    "invites.copy": "コピー",
    "invites.copied": "コピーしました",
    "invites.once": "トークンは今だけ表示されます。",
    "invites.bridge_config": "ブリッジ設定",
    "invites.none": "招待はまだありません。",
    "export.title": "ブリッジなしで（ココフォリア）",
    "export.help": "卓に見せてよい状態だけを書き出します（隠したものは入りません）。ZIPはココフォリアのルーム読み込みへ、JSONは1行ずつ盤面に貼り付けます。",
    "export.zip": "ルームZIPをダウンロード",
    "export.clipboard": "駒のクリップボードJSONをダウンロード",
    "export.uncalibrated": "この部屋にはココフォリア用のキャリブレーションがありません。既定値（マス単位、盤の中央のマスが(0, 0)）で書き出しました。駒がずれたらブリッジのパネルでキャリブレーションしてください。",
    "bridges.title": "ブリッジのインストール",
    "bridges.install_ccfolia": "ココフォリア用ユーザースクリプトをインストール",
    "bridges.install_help": "Tampermonkey か Violentmonkey を入れたブラウザで押すと、そのままインストール画面が開きます。更新もこのサーバーから届きます。インストール後、ココフォリアの部屋の右下パネルにルームIDとブリッジトークンを入れます。",
    "bridges.foundry_manifest": "Foundry のマニフェストURL（モジュールのインストール）",
    "bridges.server_url": "ブリッジが接続するサーバーURL",
    "bridges.wss_help": "ココフォリアは HTTPS のページです。別のマシンにある komasync へは wss://（TLS。例: リバースプロキシ）でしか接続できません。同じPCの ws://127.0.0.1 や localhost はそのまま使えます。公開アドレスは komasync serve --public-url https://… で設定します。Chrome などはココフォリアから自分のPCや家庭内のkomasyncへつなぐ前に「ローカル ネットワーク」へのアクセス許可を求めます。「許可」を選んでください。",
    "bridges.wss_needed": "このサーバーのアドレスは ws:// です。HTTPS のココフォリアからは別のマシンの ws:// に接続できません。komasync の前に TLS（リバースプロキシ）を置き、komasync serve --public-url https://… で起動してください。",
    "bridges.no_links": "サーバーのURLを取得できませんでした。",
    "role.player": "プレイヤー",
    "role.bridge": "ブリッジ",
    "role.observer": "観戦者",
    "role.gm": "GM",
    "shortcuts.title": "キーボードショートカット",
    "shortcuts.undo": "一つ戻す（理由を入れてEnter）",
    "shortcuts.help": "このヘルプ",
    "shortcuts.escape": "編集・ダイアログを閉じる",
    "shortcuts.lang": "言語切替",
    "state.title": "全状態（任意の値を修正）",
    "state.hint": "値をクリックすると理由つきで修正できます。",
    "viewer.title": "招待で閲覧中（{role}）",
    "viewer.hint": "この画面はこの役割に見える状態だけを表示します。",
    "player.hint": "として参加中。自分のPCの行動と、自分宛ての問いへの回答ができます。",
    "prompt.title.player": "あなたへの問い",
    "prompt.new": "あなたへの問いが届きました。",
    "feed.empty": "変更のログはまだありません。",
    "rejected": "拒否されました: {reason}",
    "error": "エラー: {reason}",
    "bye": "サーバーが接続を閉じました: {reason}",
    "outdated": "状態がずれたため再同期します。",
    "reveal": "公開",
    "hide": "隠す",
    "empty": "なし",
  },
  en: {
    "app.title": "komasync GM console",
    "signin.title": "Sign in as GM",
    "signin.secret": "GM secret",
    "signin.hint": "The GM key `komasync serve` prints opens every room with one sign-in. It is kept in this tab's sessionStorage only, never in a URL.",
    "signin.submit": "Sign in",
    "signin.empty": "That GM secret is wrong: enter the GM key `komasync serve` printed (every room) or a room's secret from `komasync room create`.",
    "invite.dead": "This invite link no longer works",
    "invite.ask": "Ask your GM for a new invite link (they mint one in the console's Invites tab).",
    "signin.failed": "Cannot sign in: {why}",
    "rooms.title": "Rooms",
    "rooms.open": "Open",
    "rooms.switch": "Switch room",
    "rooms.version": "version",
    "rooms.created": "created",
    "signout": "Sign out",
    "lang.toggle": "日本語",
    "status.connecting": "connecting…",
    "status.open": "connected",
    "status.closed": "disconnected (reconnecting)",
    "status.auth_failed": "authentication failed",
    "version": "v{v}",
    "gm_only": "GM only",
    "gm_only.title": "Not sent to players or the table",
    "tab.timeline": "Timeline",
    "tab.notices": "Notices",
    "tab.connections": "Connections",
    "tab.invites": "Invites",
    "tab.log": "Log",
    "undo.last": "Undo last",
    "undo.to": "Back to here",
    "undo.start": "Back to the start (v0)",
    "undo.reason": "Reason for the undo",
    "undo.default_reason": "undone by the GM",
    "undo.confirm": "Restore the state of v{v}",
    "undo.nothing": "Nothing to undo.",
    "undo.undoes": "Undoes: {list}",
    "override.title": "Override a value",
    "override.path": "Path",
    "override.current": "Current value",
    "override.new": "New value",
    "override.reason": "Reason (required)",
    "override.rule": "Rule that would apply",
    "override.no_rule": "No automatic rule (validated against its declared type)",
    "override.apply": "Apply",
    "override.delete": "Delete this entry",
    "override.changed": "Changed on the server meanwhile: {v}",
    "override.need_reason": "Enter a reason.",
    "override.need_int": "Enter a whole number.",
    "override.bad_json": "Not valid JSON: {why}",
    "cancel": "Cancel",
    "ok": "OK",
    "close": "Close",
    "prompt.title": "Waiting for the GM",
    "prompt.to": "to: {to}",
    "prompt.free": "free answer",
    "prompt.answer": "Answer",
    "timeline.empty": "No actions yet.",
    "do.override": "set {path} to {value}",
    "do.override.delete": "remove {path}",
    "do.undo": "back to the state of v{v}",
    "do.answer": "answered “{prompt}” with “{choice}”",
    "do.room.player.add": "added player “{name}”",
    "do.room.enforcement": "rule enforcement set to “{mode}”",
    "do.room.player_rolls": "dice results typed by players set to “{mode}”",
    "do.room.uncredited.moves": "VTT actions nobody is credited with: only moves",
    "do.room.uncredited.gm_side": "VTT actions nobody is credited with: also the GM side's decisions",
    "timeline.reason": "reason",
    "timeline.rolls": "rolls",
    "timeline.warnings": "rule warnings",
    "timeline.by": "{who}",
    "timeline.load_more": "Load more",
    "roll.engine": "server RNG",
    "roll.external": "reported",
    "roll.gm": "GM entered",
    "roll.reporter": "reported by {who}",
    "roll.target": "target {n}",
    "notices.empty": "No refusals or warnings yet.",
    "notice.refusal": "refused",
    "notice.warning": "warning",
    "notice.error": "error",
    "connections.title": "Connected clients",
    "connections.bridges": "Bridges",
    "connections.none": "No bridge is connected.",
    "connections.platform": "platform",
    "connections.last_event": "last event",
    "connections.lag": "lag",
    "connections.lag_value": "{n} versions",
    "connections.detail": "detail",
    "connections.online": "online",
    "connections.offline": "offline",
    "rolls.title": "Rolls the bridges received",
    "rolls.hint": "Each bridge's last rolls, newest first, and what became of each.",
    "rolls.of": "Rolls from {bridge}",
    "rolls.none": "No roll has arrived from this bridge yet.",
    "rolls.unbound": "(not tied to a PC)",
    "rolls.player": " ({name})",
    "rolls.not_used": "not used: {why}",
    "ago.s": "{n}s ago",
    "ago.m": "{n} min ago",
    "ago.h": "{n} h ago",
    "invites.title": "Invites",
    "invites.role": "Role",
    "invites.player": "Player",
    "invites.label": "Label",
    "invites.create": "Create invite",
    "invites.revoke": "Revoke",
    "invites.revoked": "revoked",
    "invites.link": "Invite link",
    "invites.token": "Token",
    "invites.copy": "Copy",
    "invites.copied": "Copied",
    "invites.once": "The token is shown only now.",
    "invites.bridge_config": "Bridge settings",
    "invites.none": "No invites yet.",
    "export.title": "Without a bridge (Ccfolia)",
    "export.help": "Only what the table may see is written (nothing hidden). Import the ZIP as a Ccfolia room; paste each JSON line onto the board.",
    "export.zip": "Download room ZIP",
    "export.clipboard": "Download clipboard JSON",
    "export.uncalibrated": "This room has no Ccfolia calibration. Exported with the defaults (squares, the board's centre square at (0, 0)). If pieces land off their squares, calibrate in the bridge panel.",
    "bridges.title": "Install a bridge",
    "bridges.install_ccfolia": "Install the Ccfolia userscript",
    "bridges.install_help": "In a browser with Tampermonkey or Violentmonkey this opens the install page directly; updates come from this server too. Then enter the room id and a bridge token in the panel at the bottom right of the Ccfolia room.",
    "bridges.foundry_manifest": "Foundry manifest URL (Install Module)",
    "bridges.server_url": "Server URL the bridge connects to",
    "bridges.wss_help": "Ccfolia is an HTTPS page: it can reach a komasync on another machine only through wss:// (TLS, e.g. a reverse proxy). ws://127.0.0.1 or localhost on the same computer works as is. Set the public address with komasync serve --public-url https://…. Chrome and similar browsers ask before Ccfolia may connect to a komasync on your computer or home network (local network access): choose Allow.",
    "bridges.wss_needed": "This server's address is ws://. Ccfolia (HTTPS) cannot connect to ws:// on another machine: put TLS (a reverse proxy) in front of komasync and start it with komasync serve --public-url https://….",
    "bridges.no_links": "Could not get the server's URLs.",
    "role.player": "player",
    "role.bridge": "bridge",
    "role.observer": "observer",
    "role.gm": "GM",
    "shortcuts.title": "Keyboard shortcuts",
    "shortcuts.undo": "Undo last (type a reason, Enter)",
    "shortcuts.help": "This help",
    "shortcuts.escape": "Close an editor or dialog",
    "shortcuts.lang": "Switch language",
    "state.title": "Whole state (override any value)",
    "state.hint": "Click a value to override it with a reason.",
    "viewer.title": "Viewing with an invite ({role})",
    "viewer.hint": "This page shows only what this role may see.",
    "player.hint": "— you act for your own PCs and answer the questions addressed to you.",
    "prompt.title.player": "Questions for you",
    "prompt.new": "A question for you has arrived.",
    "feed.empty": "No changes logged yet.",
    "rejected": "Refused: {reason}",
    "error": "Error: {reason}",
    "bye": "The server closed the connection: {reason}",
    "outdated": "Out of step; resynchronising.",
    "reveal": "Reveal",
    "hide": "Hide",
    "empty": "none",
  },
};

const LANG_KEY = "komasync.lang";
const listeners = new Set();
let current = detect();

function detect() {
  try {
    const saved = localStorage.getItem(LANG_KEY);
    if (saved === "ja" || saved === "en") return saved;
  } catch { /* storage may be unavailable */ }
  const prefs = navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language || "en"];
  for (const tag of prefs) {
    const base = String(tag).toLowerCase().split("-")[0];
    if (base === "ja" || base === "en") return base;
  }
  return "en";
}

export function lang() {
  return current;
}

export function setLang(next) {
  if (next !== "ja" && next !== "en") return;
  current = next;
  try { localStorage.setItem(LANG_KEY, next); } catch { /* ignore */ }
  document.documentElement.lang = next;
  for (const fn of listeners) fn(next);
}

export function onLangChange(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/** Add strings (a panel's own); `table` = {ja: {...}, en: {...}}. */
export function addStrings(table) {
  for (const l of ["ja", "en"]) Object.assign(STRINGS[l], table[l] || {});
}

/** The string for `key` in the current language, with {name} placeholders filled. */
export function t(key, vars) {
  const s = STRINGS[current][key] ?? STRINGS.en[key] ?? key;
  return vars ? fill(s, vars) : s;
}

function fill(s, vars) {
  return s.replace(/\{(\w+)\}/g, (m, k) => (k in vars ? String(vars[k]) : m));
}

/** Pick the current language from a {ja, en} object (server reasons, log lines). */
export function pick(obj) {
  if (obj === null || obj === undefined) return "";
  if (typeof obj === "string") return obj;
  return obj[current] ?? obj.en ?? obj.ja ?? "";
}

export function ago(epochSeconds) {
  if (!epochSeconds) return "—";
  const s = Math.max(0, Math.round(Date.now() / 1000 - epochSeconds));
  if (s < 60) return t("ago.s", { n: s });
  if (s < 3600) return t("ago.m", { n: Math.floor(s / 60) });
  return t("ago.h", { n: Math.floor(s / 3600) });
}

document.documentElement.lang = current;
