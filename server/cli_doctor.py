"""`komasync doctor`: the findings of doctor.py, printed ja then en with what to do.

With komasync running on `--port` the running server's own findings are asked for
(`GET /api/doctor` with the GM key from the store: its bridges, its rooms as loaded);
else the checks run here, on the store, and say the server is not running.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from typing import Any

import aiohttp

from ..engine.errors import Text
from . import doctor
from .cli_common import open_db
from .doctor import Finding, finding
from .gm_key import GM_KEY, recorded_address
from .settings import load_settings
from .storage import Backend

__all__ = ["run"]

MARK = {"ok": "OK", "warn": "注意 / WARN", "fail": "要対応 / FAIL"}
NOT_RUNNING = Text("komasync サーバーは動いていません。ブリッジの接続は確かめられません。",
                   "The komasync server is not running, so no bridge can be checked.")
RUN_IT = Text("`komasync serve` で起動してから、もう一度 `komasync doctor` を実行してください。",
              "Start it with `komasync serve`, then run `komasync doctor` again.")
OTHER_STORE = Text("ポート {port} の komasync はこの保存先（{db}）のGMキーを受け付けません"
                   "（別の保存先で動いています）。",
                   "The komasync on port {port} does not take this store's ({db}) GM key "
                   "(it runs on another store).")
SAME_STORE = Text("`komasync doctor` に、サーバーと同じ `--db` か `--store` を指定してください。",
                  "Give `komasync doctor` the same `--db` or `--store` as the server.")
ALL_GOOD = Text("問題は見つかりませんでした。", "No problem found.")
ACT = Text("{n}件の対応が必要です。", "{n} finding(s) need action.")


def run(args: argparse.Namespace) -> int:
    settings = load_settings(host=args.host, port=args.port, db=args.db, store=args.store,
                             public_url=args.public_url)
    store = open_db(args)
    try:
        findings = asyncio.run(_findings(store, settings.host, settings.port,
                                         settings.public_url))
    finally:
        store.close()
    _say(findings, args.json)
    return 1 if doctor.needs_action(findings) else 0


async def _findings(store: Backend, host: str, port: int, public_url: str | None
                    ) -> list[Finding]:
    port_found = await doctor.port_findings(host, port)
    local = "127.0.0.1" if host in ("0.0.0.0", "::", "") else host
    if port_found[0].data["running"]:
        asked = await _ask(f"http://{local}:{port}", store.setting(GM_KEY) or "")
        if asked is not None:
            return [*port_found, *(f for f in asked if f.id != "port")]
        return [*port_found, finding("store", "fail", OTHER_STORE.format(port=port, db=store.path),
                                     SAME_STORE)]
    return [*port_found, *await _offline(store, public_url)]


async def _ask(server: str, key: str) -> list[Finding] | None:
    """The running server's findings, or None if it does not take this store's GM key."""
    timeout = aiohttp.ClientTimeout(total=60)
    async with aiohttp.ClientSession(timeout=timeout) as http, http.get(
            server + "/api/doctor", headers={"Authorization": f"Bearer {key}"}) as answer:
        if answer.status != 200:
            return None
        body: dict[str, Any] = await answer.json()
    return [Finding.model_validate(f) for f in body["findings"]]


async def _offline(store: Backend, public_url: str | None) -> list[Finding]:
    """The server is not running: the public URL (it will not answer), each room replayed
    here, what would be served."""
    base = public_url or recorded_address(store)
    found = await doctor.public_url_findings(base, public_url is not None or base is not None)
    found.append(finding("server", "fail", NOT_RUNNING, RUN_IT))
    found += doctor.room_findings(store, store.room_ids())  # one command: blocking is fine
    return found + doctor.served_findings(base or "http://127.0.0.1:8750")


def _say(findings: list[Finding], as_json: bool) -> None:
    if as_json:
        print(json.dumps({"ok": not doctor.needs_action(findings),
                          "findings": [f.model_dump(mode="json") for f in findings]},
                         ensure_ascii=False, indent=2))
        return
    for f in findings:
        print(f"[{MARK[f.level]}] {f.text.ja}")
        print(f"    {f.text.en}")
        if f.todo is not None:
            print(f"    → {f.todo.ja}")
            print(f"    → {f.todo.en}")
    failed = sum(f.level == "fail" for f in findings)
    total = ACT.format(n=failed) if failed else ALL_GOOD
    print(f"{total.ja} / {total.en}")
