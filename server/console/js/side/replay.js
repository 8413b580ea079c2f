// Export replay (issue 34): the battle's story as a static page, round by round, from
// POST /api/replay with the GM's secret — the players' version (only what the table saw)
// or the GM's (notes and hidden moves, marked). The ZIP opens from disk, no server needed.

import { h } from "../dom.js";
import { addStrings, t, pick } from "../i18n.js";
import { toast } from "../ui.js";

addStrings({
  ja: {
    "replay.title": "リプレイを書き出す",
    "replay.help": "ログを再生して、ラウンドごとの盤面と出来事を1つのページ（ZIP）にします。サーバーなしで開け、そのまま共有できます。",
    "replay.players": "プレイヤー版（卓に見えたものだけ）",
    "replay.gm": "GM版（メモと非公開の操作を含む）",
    "replay.failed": "リプレイを書き出せませんでした（{why}）。",
  },
  en: {
    "replay.title": "Export replay",
    "replay.help": "Replays the log into one page (a ZIP) with the board and what happened, round by round. It opens without a server and can be shared as it is.",
    "replay.players": "Players' version (only what the table saw)",
    "replay.gm": "GM's version (with notes and hidden moves)",
    "replay.failed": "The replay could not be written ({why}).",
  },
});

/** POST /api/replay with the GM secret in the body; the ZIP arrives as a download. */
async function download(app, audience) {
  const res = await fetch("/api/replay", {
    method: "POST", headers: { "Content-Type": "application/json" }, cache: "no-store",
    credentials: "omit",
    body: JSON.stringify({ secret: app.credentials.secret, room: app.room, audience }),
  });
  if (!res.ok) {
    const err = await res.json().catch(() => null);
    toast(t("replay.failed", { why: err ? pick(err.reason) : res.statusText }), "error");
    return;
  }
  const a = h("a", { href: URL.createObjectURL(await res.blob()),
                     download: `${app.room}-replay-${audience}.zip` });
  document.body.appendChild(a);
  a.click();
  setTimeout(() => { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
}

/** The side panel's section: one button per version. */
export function replaySection(app) {
  return h("section.replay-export", { dataset: { section: "replay" } },
    h("h4", t("replay.title")), h("p.muted.small", t("replay.help")),
    h("div.copy-row", ...["players", "gm"].map((audience) =>
      h("button.small", { type: "button", dataset: { replay: audience },
                          on: { click: () => download(app, audience) } }, t(`replay.${audience}`)))));
}
