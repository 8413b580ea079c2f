"""Several `komasync serve --store redis://…` processes on one real redis-server.

Any process accepts any client (a non-owner relays the socket to the lease holder); a
tower-defense round played by clients spread over three processes converges everywhere;
kill -9 of the owner mid-stream loses no acked action and every client resumes gapless;
a SIGSTOPped former owner cannot append after waking; SIGTERM hands the room over.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
from pathlib import Path
from typing import Any

import aiohttp
from cluster_support import LEASE_MS, Node, Resuming, create_room, player_invite, start_node
from redis_support import RedisProc, needs_redis, redis_server
from test_tower_defense_game import Table, _projection

from conftest import EXAMPLES, ROOT, Client
from komasync.engine.views import Audience, project
from komasync.server.cluster import MARGIN_S
from komasync.server.replay import rebuild
from komasync.server.storage import RedisStorage

pytestmark = needs_redis
__all__ = ["redis_server"]

SECRET = "s3cret-long-enough-for-gm"
TALLY = ROOT / "tests/data/shared_tally.yaml"  # alice and the GM both add to it
ADD = {"kind": "table.counter.add", "counter": "tally", "delta": 1}


def _table_tree(state: Any) -> dict[str, Any]:
    tree: dict[str, Any] = project(state, Audience("table"))
    tree.pop("rng", None)
    return tree


async def _owner(nodes: list[Node], room: str) -> int:
    owners = [i for i, n in enumerate(nodes) if not n.dead and room in await n.owned()]
    assert len(owners) == 1, owners
    return owners[0]


async def _joined(url: str, room: str, **auth: Any) -> Client:
    c = await Client.connect(url)
    await c.auth(room, **auth)
    await c.expect("snapshot")
    return c


async def test_three_processes_play_a_tower_defense_round_and_converge(
        tmp_path: Path, redis_server: RedisProc) -> None:
    create_room(redis_server.url, "td", EXAMPLES / "tower_defense.yaml", SECRET, "section-v")
    tokens = {f"p{i}": player_invite(redis_server.url, "td", f"p{i}") for i in range(1, 7)}
    watch = [player_invite(redis_server.url, "td", None, "observer") for _ in range(3)]
    bridge_token = player_invite(redis_server.url, "td", None, "bridge")
    nodes = [start_node(redis_server.url, tmp_path / f"node{i}.log") for i in range(3)]
    try:
        # The first join claims the room: player p3's, on node 2; everyone else is spread.
        players = {"p3": await _joined(nodes[2].ws, "td", token=tokens["p3"])}
        g = await _joined(nodes[0].ws, "td", secret=SECRET)
        for i in (1, 2, 4, 5, 6):
            players[f"p{i}"] = await _joined(nodes[i % 3].ws, "td", token=tokens[f"p{i}"])
        observers = [await _joined(n.ws, "td", token=t) for n, t in zip(nodes, watch, strict=True)]
        bridge = await _joined(nodes[1].ws, "td", token=bridge_token, platform="ccfolia")
        assert (await bridge.expect("table.ops"))["reset"] is True  # its VTT table, relayed
        assert [await n.owned() for n in nodes] == [[], [], ["td"]]
        table = Table(None, g, players)  # type: ignore[arg-type]
        reject = await table.act(players["p1"], "td.pc.place", pc="pc2", fort="f_left")
        assert (reject["type"], reject["rule"]) == ("reject", "TD-ATK-1")  # relayed, refused
        await table.setup()
        while table.td.round < 2:  # one whole round: every phase, every PC's attacks
            await table.next_phase()
            if table.td.phase == "pc_attack":
                await table.pc_phase()
        store = RedisStorage(redis_server.url)
        engine = rebuild(store, "td")  # type: ignore[arg-type]
        assert engine.version == g.version and engine.state.tower_defense.round == 2
        for pid, client in players.items():
            await client.settle(g.version)
            assert client.state == json.loads(json.dumps(_projection(engine.state, pid)))
            assert "waves" not in "".join(client.raw)
        for o in observers:
            await o.settle(g.version)
            assert o.state == json.loads(json.dumps(_table_tree(engine.state)))
        while (await bridge.expect("table.ops"))["version"] < g.version:
            pass  # the bridge's table ops follow the room to its last version
        gm_tree: dict[str, Any] = project(engine.state, Audience("gm"))
        assert g.state["tower_defense"] == json.loads(json.dumps(gm_tree["tower_defense"]))
        # /healthz names rooms only to the operator; a non-owner answers the console's
        # room list and an export from Redis.
        async with aiohttp.ClientSession() as http:
            async with http.post(nodes[0].http + "/api/rooms", json={"secret": SECRET}) as r:
                assert (await r.json())["rooms"][0]["version"] == g.version
            async with http.post(nodes[0].http + "/api/export", json={
                    "secret": SECRET, "room": "td", "format": "clipboard"}) as r:
                assert r.status == 200 and (await r.json())
            async with http.post(nodes[0].http + "/api/export", json={
                    "secret": "wrong-secret-long-enough", "room": "td", "format": "zip"}) as r:
                assert r.status == 403
            async with http.get(nodes[2].http + "/healthz") as r:
                assert "td" not in await r.text()
            async with http.get(nodes[2].http + "/healthz?rooms=1") as r:
                assert r.status == 403 and "td" not in await r.text()
            async with http.get(nodes[2].http + "/healthz?rooms=1",
                                headers={"Authorization": "Bearer wrong"}) as r:
                assert r.status == 403
        # SIGTERM of the owner hands the room over: its lease is released at once, and
        # the clients resume where they were on another process (bye, then `since`).
        version = g.version
        held = store.holder("td")
        assert held is not None and f"/{nodes[2].proc.pid}/" in held
        nodes[2].stop()
        nodes[2].dead = True
        # Released at once, not left to lapse: free, or already claimed (a newer token) by a
        # process whose watcher saw its relay's owner go.
        after = store.holder("td")
        assert after is None or (f"/{nodes[2].proc.pid}/" not in after
                                 and int(after.split(":")[0]) > int(held.split(":")[0]))
        bye = await observers[0].expect("bye")
        assert bye["code"] == "server_shutdown" and bye["reason"]["ja"] and bye["reason"]["en"]
        again = await Client.connect(nodes[1].ws)
        again.state, again.version = observers[0].state, version
        await again.send({"type": "auth", "room": "td", "token": watch[0], "since": version})
        await again.expect("welcome")
        assert sorted([await nodes[0].owned(), await nodes[1].owned()]) == [[], ["td"]]
        g2 = await _joined(nodes[0].ws, "td", secret=SECRET)
        reply = await g2.reply_to(await g2.act({"kind": "td.next_phase",
                                                 "expect": g2.state["tower_defense"]["phase"]},
                                                id="after-handover"))
        assert reply["type"] == "ack" and reply["version"] == version + 1
        await again.settle(version + 1)
        store.close()
    finally:
        for n in nodes:
            n.stop()


async def test_kill9_of_the_owner_mid_stream_loses_no_acked_action(
        tmp_path: Path, redis_server: RedisProc) -> None:
    tokens = create_room(redis_server.url, "r1", TALLY, SECRET, "s",
                         invites=3)
    nodes = [start_node(redis_server.url, tmp_path / f"node{i}.log") for i in range(3)]
    try:
        first = Resuming("gm0", nodes, "r1", {"secret": SECRET}, home=1)
        await first.connect()  # node 1 owns the room
        clients = [first, Resuming("gm1", nodes, "r1", {"secret": SECRET}, home=0)]
        clients += [Resuming(f"alice{i}", nodes, "r1", {"token": t}, home=i % 3)
                    for i, t in enumerate(tokens)]
        clients.append(Resuming("gm2", nodes, "r1", {"secret": SECRET}, home=2))
        for c in clients[1:]:
            await c.connect()
        owner = await _owner(nodes, "r1")
        assert owner == 1
        per_client = 40

        async def stream(c: Resuming) -> None:
            for i in range(per_client):
                await c.act(f"{c.name}-{i}", ADD)

        async def kill_when_busy() -> None:
            while sum(len(c.acked) for c in clients) < 60:
                await asyncio.sleep(0.005)
            os.kill(nodes[owner].proc.pid, signal.SIGKILL)
            nodes[owner].dead = True

        killer = asyncio.create_task(kill_when_busy())
        await asyncio.wait_for(asyncio.gather(*(stream(c) for c in clients)), 120)
        await killer
        survivors = [i for i, n in enumerate(nodes) if not n.dead]
        assert await _owner(nodes, "r1") in survivors
        store = RedisStorage(redis_server.url)
        records = store.actions("r1", 0)
        last = records[-1].version
        assert [r.version for r in records] == list(range(1, last + 1))  # gapless
        logged = {r.client_key.split(":")[-1]: r.version for r in records if r.client_key}
        acked = {k: v for c in clients for k, v in c.acked.items()}
        assert len(acked) == per_client * len(clients)
        assert all(logged[k] == v for k, v in acked.items())  # no acked action lost
        assert last == len(acked)  # and none applied twice
        for c in clients:
            await c.follow(last)
            assert c.c is not None and c.c.version == last
            assert c.c.state["table"]["counters"]["tally"]["value"] == last
            assert c.resumes >= 1 and c.snapshots_on_resume == 0  # resumed with `since`
        store.close()
        for c in clients:
            await c.close()
    finally:
        for n in nodes:
            n.proc.kill()
            n.proc.wait()


async def test_a_paused_former_owner_cannot_append_after_waking(
        tmp_path: Path, redis_server: RedisProc) -> None:
    (token,) = create_room(redis_server.url, "r1", TALLY, SECRET,
                           "s", invites=1)
    nodes = [start_node(redis_server.url, tmp_path / f"node{i}.log") for i in range(2)]
    try:
        a = await _joined(nodes[0].ws, "r1", secret=SECRET)  # node 0 owns the room
        b = Resuming("alice", nodes, "r1", {"token": token}, home=1)  # relayed via node 1
        await b.connect()
        assert (await a.reply_to(await a.act(ADD, id="a-0")))["version"] == 1
        assert await b.act("b-0", ADD) == 2
        os.kill(nodes[0].proc.pid, signal.SIGSTOP)
        try:
            # Node 1 sees the lease lapse, tells alice the room moved, takes it over.
            assert await b.act("b-1", ADD) == 3
            assert b.resumes == 1 and await nodes[1].owned() == ["r1"]
            await a.act(ADD, id="a-stale")  # waits in node 0's socket while it sleeps
        finally:
            os.kill(nodes[0].proc.pid, signal.SIGCONT)
        frames: list[dict[str, Any]] = []
        try:
            while True:
                frames.append(await a.recv(10))
        except Exception:  # the paused owner drops its clients once it wakes
            pass
        assert not any(f.get("id") == "a-stale" and f["type"] == "ack" for f in frames)
        assert any(f["type"] == "bye" for f in frames)
        assert nodes[0].proc.poll() is None  # woke up, still serving
        assert await nodes[0].owned() == []
        store = RedisStorage(redis_server.url)
        records = store.actions("r1", 0)
        assert [r.version for r in records] == [1, 2, 3]
        assert not any(r.client_key and r.client_key.endswith(":a-stale") for r in records)
        # The woken process relays to the new owner like any other.
        again = await _joined(nodes[0].ws, "r1", secret=SECRET)
        assert again.version == 3
        assert (await again.reply_to(await again.act(ADD, id="a-1")))["version"] == 4
        await b.follow(4)
        store.close()
        await b.close()
    finally:
        for n in nodes:
            n.stop()


async def test_the_owner_counts_a_relayed_client_by_its_own_address(
        tmp_path: Path, redis_server: RedisProc) -> None:
    """Per-address limits and throttling see the client, not the relaying process: with
    one connection per address, clients from 127.0.0.2 and 127.0.0.3 relayed by node 1
    both get in at the owner; a forged address header (not signed with the cluster key)
    is ignored."""
    create_room(redis_server.url, "r1", TALLY, SECRET, "s")
    nodes = [start_node(redis_server.url, tmp_path / f"node{i}.log", LEASE_MS,
                        "--connections-per-address", "1") for i in range(2)]
    try:
        owner = await _joined(nodes[0].ws, "r1", secret=SECRET)
        two = await Client.connect(nodes[1].ws, local_addr=("127.0.0.2", 0))
        three = await Client.connect(nodes[1].ws, local_addr=("127.0.0.3", 0))
        for c in (two, three):
            await c.auth("r1", secret=SECRET)
            await c.expect("snapshot")
        assert await nodes[0].owned() == ["r1"] and await nodes[1].owned() == []
        forged = await Client.connect(nodes[0].ws, local_addr=("127.0.0.2", 0),
                                      additional_headers={"X-Komasync-Client": "198.51.100.7",
                                                          "X-Komasync-Relay": "0" * 64})
        refused = await forged.expect("error")
        assert refused["code"] == "too_many_connections"  # counted as 127.0.0.2, its real address
        reply = await two.reply_to(await two.act(ADD, id="from-two"))
        assert reply["type"] == "ack"
        await owner.settle(reply["version"])
        await three.settle(reply["version"])
    finally:
        for n in nodes:
            n.stop()


async def test_a_join_waits_a_bounded_time_for_an_unreachable_owner(
        tmp_path: Path, redis_server: RedisProc) -> None:
    """The room's lease is held by a process nobody can reach (no address, lease far from
    lapsing): the join waits at most TTL + MARGIN_S, then `bye room_unavailable`; the
    room is not taken from its holder."""
    create_room(redis_server.url, "r1", TALLY, SECRET, "s")
    store = RedisStorage(redis_server.url)
    store.client.set(store.key("r1", "lease"), "99:elsewhere/1/ghost", px=120_000)
    node = start_node(redis_server.url, tmp_path / "node.log")
    try:
        c = await Client.connect(node.ws)
        await c.send({"type": "auth", "room": "r1", "secret": SECRET})
        bye = await c.expect("bye", timeout=LEASE_MS / 1000 + MARGIN_S + 5)
        assert bye["code"] == "room_unavailable" and bye["reason"]["ja"] and bye["reason"]["en"]
        assert store.holder("r1") == "99:elsewhere/1/ghost" and await node.owned() == []
    finally:
        node.stop()
        store.close()


async def test_a_cluster_on_a_password_protected_redis_starts_and_serves(
        tmp_path: Path, redis_server: RedisProc) -> None:
    # The cluster's own connection used the URL as messages print it (password `***`), so
    # a process on a Redis with a password could not start its cluster watcher.
    import redis as redis_client

    admin = redis_client.Redis(port=redis_server.port, socket_timeout=5)
    admin.config_set("requirepass", "pass-word-1")
    admin.close()
    url = f"redis://:pass-word-1@127.0.0.1:{redis_server.port}/0"
    create_room(url, "td", EXAMPLES / "tower_defense.yaml", SECRET, "section-v")
    node = start_node(url, tmp_path / "node.log")
    try:
        g = await _joined(node.ws, "td", secret=SECRET)
        assert "td" in await node.owned()
        await g.close()
        assert "pass-word-1" not in (tmp_path / "node.log").read_text()
    finally:
        node.stop()
