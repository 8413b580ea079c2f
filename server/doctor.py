"""`komasync doctor` and `GET /api/doctor`: the set-up as the server sees it (issue 33).

Each check is one small function returning findings: the public URL resolves and answers
(its `/healthz`), TLS is valid when it is https, the port is free or held by komasync, each
room's stored log replays, each bridge's last contact and versions, and the versions of
the Foundry module and the Ccfolia userscript this server hands out. A finding says what
was seen and what to do, in Japanese and English; `fail` needs action (exit code 1).
"""

from __future__ import annotations

import asyncio
import errno
import json
import re
import socket
import ssl
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlsplit

import aiohttp
from pydantic import BaseModel, Field

from ..engine.errors import Text
from . import distribution
from .replay import rebuild
from .storage import Backend

if TYPE_CHECKING:
    from .app import Komasync

__all__ = ["Finding", "Said", "bridge_findings", "needs_action", "port_findings",
           "public_url_findings", "room_findings", "served_findings", "server_findings"]

Level = Literal["ok", "warn", "fail"]
#: How long one probe of a URL may take.
PROBE_SECONDS = 5.0
#: A connected bridge silent for longer than this is reported (its client pings every 30 s).
QUIET_SECONDS = 120.0
LOOPBACK = ("127.0.0.1", "localhost", "::1")


class Said(BaseModel):
    """A sentence in Japanese and English (a `Text`, as JSON)."""

    ja: str
    en: str

    @classmethod
    def of(cls, text: Text) -> Said:
        return cls(ja=text.ja, en=text.en)


class Finding(BaseModel):
    """One thing the doctor saw: what (`text`) and, unless all is well, what to do (`todo`)."""

    id: str
    level: Level
    text: Said
    todo: Said | None = None
    data: dict[str, Any] = Field(default_factory=dict)  # the facts, for the console


def finding(id: str, level: Level, text: Text, todo: Text | None = None,
            **data: Any) -> Finding:
    return Finding(id=id, level=level, text=Said.of(text),
                   todo=Said.of(todo) if todo is not None else None, data=data)


def needs_action(findings: Iterable[Finding]) -> bool:
    return any(f.level == "fail" for f in findings)


# -- the public URL and TLS -------------------------------------------------------------------

NO_ADDRESS = Text("公開URLが記録されていません（サーバーがまだ一度も起動していません）。",
                  "No public URL is recorded (the server has never run).")
START_IT = Text("`komasync serve --public-url https://…` で起動してください。",
                "Start it with `komasync serve --public-url https://…`.")
NO_RESOLVE = Text("公開URL {url} のホスト名 {host} が引けません（{why}）。",
                  "The public URL {url}: its host {host} does not resolve ({why}).")
FIX_NAME = Text("ドメイン名の綴りとDNSの設定を確かめ、`--public-url` を直してください。",
                "Check the domain's spelling and its DNS record, then fix `--public-url`.")
NO_ANSWER = Text("公開URL {url} が応答しません（{why}）。", "The public URL {url} does not answer ({why}).")
MAKE_ANSWER = Text("komasync serve が動いているか、リバースプロキシがこのサーバーに転送しているか、"
                   "ファイアウォールがポートを開けているか確かめてください。",
                   "Check that `komasync serve` runs, that the reverse proxy forwards to it and "
                   "that the firewall lets the port through.")
NOT_OURS = Text("公開URL {url} は応答しましたが komasync ではありません（HTTP {status}）。",
                "The public URL {url} answers, but not as komasync (HTTP {status}).")
FIX_PROXY = Text("プロキシの転送先（このサーバーのアドレスとポート）を確かめてください。",
                 "Check where the proxy forwards to (this server's address and port).")
ANSWERS = Text("公開URL {url} は komasync として応答しています。",
               "The public URL {url} answers as komasync.")
BAD_TLS = Text("公開URL {url} のTLS証明書が正しくありません（{why}）。",
               "The TLS certificate of the public URL {url} is not valid ({why}).")
FIX_TLS = Text("証明書の期限とホスト名を確かめてください（Caddyなら自動で更新されます）。",
               "Check the certificate's expiry and host name (Caddy renews it by itself).")
TLS_OK = Text("公開URL {url} のTLS証明書は有効です。",
              "The TLS certificate of the public URL {url} is valid.")
PLAIN_HTTP = Text("公開URL {url} は暗号化されていません（http）。ココフォリア（https）と他のPCの"
                  "ブラウザからは使えません。",
                  "The public URL {url} is not encrypted (http): the Ccfolia page (https) and "
                  "other computers' browsers cannot use it.")
USE_HTTPS = Text("HTTPSのリバースプロキシ（Caddy）を前に置き、`--public-url https://…` を指定してください。",
                 "Put an HTTPS reverse proxy (Caddy) in front and set `--public-url https://…`.")
ONLY_HERE = Text("公開URLが設定されていないため、招待リンクは {url} です（このPCからしか開けません）。",
                 "No public URL is set, so invite links use {url} (only this computer can open them).")
SET_PUBLIC = Text("他のPCのプレイヤーを招くなら `--public-url` を指定してください。",
                  "To invite players on other computers, set `--public-url`.")


async def public_url_findings(url: str | None, configured: bool = True) -> list[Finding]:
    """Whether players reach the server at `url`: its host resolves, `/healthz` answers as
    komasync, its certificate is valid (https); http beyond this PC is a warning."""
    if not url:
        return [finding("public_url", "fail", NO_ADDRESS, START_IT)]
    host = urlsplit(url).hostname or ""
    try:
        await asyncio.get_running_loop().getaddrinfo(host, None)
    except OSError as e:
        return [finding("public_url", "fail", NO_RESOLVE.format(url=url, host=host, why=e),
                        FIX_NAME, url=url)]
    probed = await _probe(url)
    findings = [probed]
    if probed.level == "ok":
        findings += _scheme_findings(url, configured)
    return findings


async def _probe(url: str) -> Finding:
    """GET `url`/healthz, the certificate checked as a browser would."""
    timeout = aiohttp.ClientTimeout(total=PROBE_SECONDS)
    try:
        async with aiohttp.ClientSession(timeout=timeout) as http, \
                http.get(url.rstrip("/") + "/healthz", allow_redirects=False) as answer:
            text = await answer.text()
    except (aiohttp.ClientSSLError, ssl.SSLError) as e:
        return finding("tls", "fail", BAD_TLS.format(url=url, why=_short(e)), FIX_TLS, url=url)
    except (aiohttp.ClientError, TimeoutError, UnicodeDecodeError) as e:
        return finding("public_url", "fail", NO_ANSWER.format(url=url, why=_short(e)),
                       MAKE_ANSWER, url=url)
    body = _json(text) if answer.status == 200 else None
    if not (isinstance(body, dict) and body.get("ok") is True and "protocol" in body):
        return finding("public_url", "fail", NOT_OURS.format(url=url, status=answer.status),
                       FIX_PROXY, url=url, status=answer.status)
    return finding("public_url", "ok", ANSWERS.format(url=url), url=url,
                   protocol=body["protocol"])


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


def _scheme_findings(url: str, configured: bool) -> list[Finding]:
    parts = urlsplit(url)
    if parts.scheme == "https":
        return [finding("tls", "ok", TLS_OK.format(url=url), url=url)]
    if not configured and parts.hostname in LOOPBACK:
        return [finding("public_url.local", "warn", ONLY_HERE.format(url=url), SET_PUBLIC,
                        url=url)]
    if parts.hostname in LOOPBACK:
        return []  # the GM's own PC: http is what the browser allows there
    return [finding("tls", "warn", PLAIN_HTTP.format(url=url), USE_HTTPS, url=url)]


def _short(e: BaseException) -> str:
    return (str(e) or type(e).__name__)[:200]


# -- the port -------------------------------------------------------------------------------

PORT_FREE = Text("ポート {port} は空いています（サーバーは動いていません）。",
                 "Port {port} is free (the server is not running).")
PORT_OURS = Text("ポート {port} は komasync サーバーが使っています。",
                 "Port {port} is held by the komasync server.")
PORT_TAKEN = Text("ポート {port} は komasync ではない別のプログラムが使っています。",
                  "Port {port} is held by another program, not komasync.")
FREE_IT = Text("そのプログラムを止めるか、`komasync serve --port` で別の番号を使ってください。",
               "Stop that program, or use another number with `komasync serve --port`.")


async def port_findings(host: str, port: int) -> list[Finding]:
    """Port `port` on `host` is free, or held by a komasync server (its /healthz answers)."""
    if _port_free(host, port):
        return [finding("port", "ok", PORT_FREE.format(port=port), port=port, running=False)]
    local = "127.0.0.1" if host in ("0.0.0.0", "::", "") else host
    probed = await _probe(f"http://{local}:{port}")
    if probed.level == "ok":
        return [finding("port", "ok", PORT_OURS.format(port=port), port=port, running=True)]
    return [finding("port", "fail", PORT_TAKEN.format(port=port), FREE_IT, port=port,
                    running=False)]


def _port_free(host: str, port: int) -> bool:
    """Whether `serve` could listen there (SO_REUSEADDR as aiohttp binds, so TIME_WAIT
    sockets left by a stopped server do not count)."""
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError as e:
            if e.errno == errno.EADDRINUSE:
                return False
            raise
    return True


# -- rooms ----------------------------------------------------------------------------------

ROOM_OK = Text("ルーム「{room}」は読み込めます（バージョン {version}）。",
               "Room '{room}' loads (version {version}).")
ROOM_BROKEN = Text("ルーム「{room}」の記録を再生できません（{why}）。",
                   "Room '{room}': its stored log cannot be replayed ({why}).")
FIX_ROOM = Text("サーバーのログに詳細があります。バックアップから戻すか、"
                "`komasync room reset {room}` で初期状態に戻してください（記録は消えます）。",
                "The server log has the details. Restore the store from a backup, or start "
                "the room over with `komasync room reset {room}` (its log is lost).")


def room_findings(store: Backend, room_ids: Iterable[str]) -> list[Finding]:
    """Each room rebuilt from its snapshot and log, as the server does on start (blocks)."""
    return [_room_finding(store, room_id) for room_id in room_ids]


def _room_finding(store: Backend, room_id: str) -> Finding:
    try:
        version = rebuild(store, room_id).version
    except store.errors:
        raise  # the store itself failed: not this room's log
    except Exception as e:
        return broken_room(room_id, f"{type(e).__name__}: {e}")
    return finding(f"room:{room_id}", "ok", ROOM_OK.format(room=room_id, version=version),
                   room=room_id, version=version)


def broken_room(room_id: str, why: str) -> Finding:
    return finding(f"room:{room_id}", "fail", ROOM_BROKEN.format(room=room_id, why=why[:300]),
                   FIX_ROOM.format(room=room_id), room=room_id)


# -- what the server hands out: the Foundry module and the userscript ------------------------

MODULE_OK = Text("配布中のFoundryモジュール: バージョン {version}（{url}）。",
                 "Foundry module served: version {version} ({url}).")
SCRIPT_OK = Text("配布中のココフォリア用ユーザースクリプト: バージョン {version}（{url}）。",
                 "Ccfolia userscript served: version {version} ({url}).")
SCRIPT_BAD = Text("ココフォリア用ユーザースクリプトを配布できません（{why}）。",
                  "The Ccfolia userscript cannot be served ({why}).")
REBUILD = Text("adapters/ で `npm run build` を実行してユーザースクリプトを作り直してください。",
               "Rebuild the userscript: run `npm run build` in adapters/.")


def module_version() -> str:
    return str(distribution.module_manifest("")["version"])


def userscript_version() -> str:
    """The served userscript's `@version` (RuntimeError or OSError if it cannot be served)."""
    meta = distribution.userscript_meta("http://127.0.0.1")
    m = re.search(r"^// @version\s+(\S+)", meta, re.M)
    if m is None:
        raise RuntimeError("the built userscript has no @version line")
    return m.group(1)


def served_versions() -> dict[str, str]:
    """The versions this server serves: the Foundry module's, the userscript's if it can."""
    out = {"foundry": module_version()}
    try:
        out["ccfolia"] = userscript_version()
    except (OSError, RuntimeError, ValueError):
        pass  # served_findings says why
    return out


def served_findings(base: str) -> list[Finding]:
    urls = distribution.links(base)
    foundry = module_version()
    found = [finding("served.foundry", "ok", MODULE_OK.format(
        version=foundry, url=urls["foundry_manifest"]), version=foundry)]
    try:
        script = userscript_version()
    except (OSError, RuntimeError, ValueError) as e:
        return [*found, finding("served.ccfolia", "fail", SCRIPT_BAD.format(why=_short(e)),
                                REBUILD)]
    return [*found, finding("served.ccfolia", "ok", SCRIPT_OK.format(
        version=script, url=urls["userscript"]), version=script)]


# -- bridges --------------------------------------------------------------------------------

BRIDGE_LIVE = Text("ルーム「{room}」のブリッジ「{label}」（{platform}）は接続中です。最後の連絡は"
                   "{ago}秒前、反映済みバージョン {applied}／ルーム {version}{software}。",
                   "Room '{room}': bridge '{label}' ({platform}) is connected; last contact "
                   "{ago} s ago, applied version {applied} of the room's {version}{software}.")
BRIDGE_QUIET = Text("ルーム「{room}」のブリッジ「{label}」から{ago}秒連絡がありません。",
                    "Room '{room}': bridge '{label}' has been silent for {ago} s.")
WAKE_IT = Text("VTTのタブが開いていて眠っていないか確かめ、ページを再読み込みしてください。",
               "Check that the VTT's tab is open and not asleep, and reload the page.")
BRIDGE_GONE = Text("ルーム「{room}」のブリッジ「{label}」（{platform}）は切断されています"
                   "（最後の連絡は{ago}秒前）。",
                   "Room '{room}': bridge '{label}' ({platform}) is disconnected (last contact "
                   "{ago} s ago).")
BRIDGE_NEVER = Text("ルーム「{room}」のブリッジ招待「{label}」は、サーバーの起動後まだ接続していません。",
                    "Room '{room}': bridge invite '{label}' has not connected since the server started.")
CONNECT_IT = Text("VTT（ココフォリアかFoundry）のページを開き、ブリッジの設定のサーバーURLと"
                  "招待を確かめてください。",
                  "Open the VTT's page (Ccfolia or Foundry) and check the bridge's server URL "
                  "and invite.")
NO_BRIDGE = Text("ルーム「{room}」にはブリッジの招待がありません。", "Room '{room}' has no bridge invite.")
OLD_SCRIPT = Text("ルーム「{room}」のブリッジ「{label}」はユーザースクリプト {have} を使っていますが、"
                  "サーバーは {served} を配布しています。",
                  "Room '{room}': bridge '{label}' runs userscript {have}; the server serves {served}.")
UPDATE_SCRIPT = Text("ユーザースクリプトマネージャーで更新を確認し、"
                     "ココフォリアのページを再読み込みしてください。",
                     "Check for updates in the userscript manager, then reload the Ccfolia page.")
SOFTWARE = Text("、ユーザースクリプト {v}", ", userscript {v}")
SOFTWARE_FOUNDRY = Text("、Foundryモジュール {v}", ", Foundry module {v}")
OLD_MODULE = Text("ルーム「{room}」のブリッジ「{label}」はFoundryモジュール {have} を使っていますが、"
                  "サーバーは {served} を配布しています。",
                  "Room '{room}': bridge '{label}' runs Foundry module {have}; the server serves {served}.")
UPDATE_MODULE = Text("Foundryの「アドオンモジュール」でkomasyncを更新し、ワールドを再読み込みしてください。",
                     "Update komasync under Foundry's Add-on Modules, then reload the world.")


def bridge_findings(room_id: str, version: int, seen: list[dict[str, Any]],
                    invites: list[dict[str, Any]], served: dict[str, str],
                    now: float | None = None) -> list[Finding]:
    """The room's bridges: each seen since the server started (connected or gone, from
    `Connection.info()`, plus `connected`), and each bridge invite never seen."""
    now = time.time() if now is None else now
    out: list[Finding] = []
    for b in seen:
        out += _bridge(room_id, version, b, served, now)
    principals = {b["principal"] for b in seen}
    for inv in invites:
        if "inv:" + inv["id"] not in principals:
            out.append(finding(f"bridge:{room_id}:{inv['id']}", "warn", BRIDGE_NEVER.format(
                room=room_id, label=inv["label"] or inv["id"]), CONNECT_IT, room=room_id))
    if not seen and not invites:
        out.append(finding(f"bridge:{room_id}", "ok", NO_BRIDGE.format(room=room_id),
                           room=room_id))
    return out


def _bridge(room_id: str, version: int, b: dict[str, Any], served: dict[str, str],
            now: float) -> list[Finding]:
    ago = max(0, round(now - float(b["last_event"])))
    software = _software(b)
    id_ = f"bridge:{room_id}:{str(b['principal']).removeprefix('inv:')}"
    facts = {"room": room_id, "label": b["label"], "platform": b.get("platform"),
             "last_contact": b["last_event"], "applied": b.get("version"),
             "software": software, "connected": b["connected"]}
    if not b["connected"]:
        return [finding(id_, "warn", BRIDGE_GONE.format(
            room=room_id, label=b["label"], platform=b.get("platform") or "?", ago=ago),
            CONNECT_IT, **facts)]
    if ago > QUIET_SECONDS:
        return [finding(id_, "warn", BRIDGE_QUIET.format(room=room_id, label=b["label"], ago=ago),
                        WAKE_IT, **facts)]
    foundry = b.get("platform") == "foundry"
    said = (SOFTWARE_FOUNDRY if foundry else SOFTWARE).format(v=software) if software else Text("", "")
    out = [finding(id_, "ok", Text(
        BRIDGE_LIVE.ja.format(room=room_id, label=b["label"], platform=b.get("platform") or "?",
                              ago=ago, applied=b.get("version"), version=version,
                              software=said.ja),
        BRIDGE_LIVE.en.format(room=room_id, label=b["label"], platform=b.get("platform") or "?",
                              ago=ago, applied=b.get("version"), version=version,
                              software=said.en)), **facts)]
    wanted = served.get(str(b.get("platform")))
    if software and wanted and software != wanted:
        old, update = (OLD_MODULE, UPDATE_MODULE) if foundry else (OLD_SCRIPT, UPDATE_SCRIPT)
        out.append(finding(id_ + ".version", "warn", old.format(
            room=room_id, label=b["label"], have=software, served=wanted), update, **facts))
    return out


def _software(b: dict[str, Any]) -> str | None:
    """The bridge's own version where its status line names it (the Ccfolia userscript
    starts it with `ccfolia X.Y.Z`, the Foundry module with `foundry X.Y.Z`)."""
    m = re.match(r"(?:ccfolia|foundry) (\d+\.\d+\.\d+\S*)", str(b.get("detail") or ""))
    return m.group(1) if m else None


# -- everything, as the running server sees it -------------------------------------------------

PORT_HERE = Text("このサーバーはポート {port} で待ち受けています。", "This server listens on port {port}.")


async def server_findings(server: Komasync, base: str, configured: bool, port: int | None,
                          room_ids: list[str]) -> list[Finding]:
    """`GET /api/doctor`: the public URL, the port, the rooms in `room_ids`, their
    bridges and what is served, as the running `server` sees them."""
    findings = await public_url_findings(base, configured)
    if port is not None:
        findings.append(finding("port", "ok", PORT_HERE.format(port=port), port=port,
                                running=True))
    for room_id in room_ids:
        findings += await _loaded_room(server, room_id)
    served = served_versions()
    for room_id in room_ids:
        findings += await _room_bridges(server, room_id, served)
    return findings + served_findings(base)


async def _loaded_room(server: Komasync, room_id: str) -> list[Finding]:
    """As loaded (or quarantined) on start; a room another process owns is replayed here."""
    if (room := server.rooms.get(room_id)) is not None:
        return [finding(f"room:{room_id}", "ok", ROOM_OK.format(room=room_id, version=room.version),
                        room=room_id, version=room.version)]
    if (why := server.quarantined.get(room_id)) is not None:
        return [broken_room(room_id, why)]
    store = server.storage.storage
    return await server.storage.call(room_findings, store, [room_id])


async def _room_bridges(server: Komasync, room_id: str, served: dict[str, str]) -> list[Finding]:
    room = server.rooms.get(room_id)
    live = {c.principal: {**c.info(), "detail": (c.bridge_notice or {}).get("detail", ""),
                          "connected": True}
            for c in (room.audiences.conns if room else ()) if c.role == "bridge"}
    gone = {p: {**b, "connected": False} for p, b in server.bridges_gone.get(room_id, {}).items()
            if p not in live}
    rows = await server.storage.call(server.storage.storage.invites, room_id)
    invites = [{"id": i.id, "label": i.label} for i in rows if i.role == "bridge" and not i.revoked]
    return bridge_findings(room_id, room.version if room else 0, [*live.values(), *gone.values()],
                           invites, served)
