// The bridges' shared protocol core (foundry/module/scripts/core): backoff, URL choice,
// and BridgeClient against a REAL komasync server process. The server runs with the
// echo adapter of support/stub_serve.py so these tests do not depend on any platform's
// op format (the platform suites test the real adapters).

import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import WebSocket from "ws";

import { Backoff } from "../foundry/module/scripts/core/backoff.js";
import { resolveServerUrl, isLocalHost } from "../foundry/module/scripts/core/url.js";
import { BridgeClient, State } from "../foundry/module/scripts/core/client.js";
import { startServer, EXAMPLES } from "./support/server.js";
import { GM } from "./support/gm.js";
import { waitFor } from "./support/wait.js";

describe("Backoff", () => {
  test("doubles from base and is capped at max", () => {
    const b = new Backoff({ base: 100, max: 1000, jitter: 0, random: () => 0.5 });
    assert.deepEqual([1, 2, 3, 4, 5, 6].map(() => b.next()), [100, 200, 400, 800, 1000, 1000]);
    assert.equal(b.attempts, 6);
    b.reset();
    assert.equal(b.next(), 100);
  });

  test("jitter only shortens the wait", () => {
    const hi = new Backoff({ base: 100, max: 400, jitter: 0.5, random: () => 0.999 });
    const lo = new Backoff({ base: 100, max: 400, jitter: 0.5, random: () => 0 });
    for (let i = 0; i < 5; i++) {
      const a = hi.next();
      const b = lo.next();
      assert.ok(a <= b && b <= 400 && a >= 50, `${a} ${b}`);
    }
  });

  test("refuses nonsense settings", () => {
    assert.throws(() => new Backoff({ base: 0 }), RangeError);
    assert.throws(() => new Backoff({ base: 10, max: 5 }), RangeError);
  });
});

describe("resolveServerUrl", () => {
  const cases = [
    ["ws://127.0.0.1:8750/ws", "https:", "ws://127.0.0.1:8750/ws"],
    ["ws://localhost:8750", "http:", "ws://localhost:8750/ws"],
    ["ws://komasync.example:8750/ws", "https:", "wss://komasync.example:8750/ws"],
    ["ws://komasync.example:8750/ws", "http:", "ws://komasync.example:8750/ws"],
    ["https://komasync.example/", "http:", "wss://komasync.example/ws"],
    ["http://127.0.0.1:8750", "https:", "ws://127.0.0.1:8750/ws"],
    ["komasync.example:8750", "https:", "wss://komasync.example:8750/ws"],
    ["127.0.0.1:8750", "https:", "ws://127.0.0.1:8750/ws"],
    ["komasync.example:8750/custom", "http:", "ws://komasync.example:8750/custom"],
  ];
  for (const [given, page, want] of cases) {
    test(`${given} on ${page} → ${want}`, () => assert.equal(resolveServerUrl(given, page), want));
  }
  test("empty or odd schemes are refused", () => {
    assert.throws(() => resolveServerUrl("", "http:"), TypeError);
    assert.throws(() => resolveServerUrl("ftp://x/", "http:"), TypeError);
  });
  test("local hosts", () => {
    assert.ok(isLocalHost("localhost") && isLocalHost("127.0.0.1") && isLocalHost("[::1]"));
    assert.ok(!isLocalHost("example.com"));
  });
});

/** A socket that opens at once and answers the way `script` says (no network). */
function fakeSocketClass(script) {
  const made = [];
  class FakeSocket {
    constructor(url) {
      this.url = url;
      this.readyState = 0;
      this.sent = [];
      made.push(this);
      setTimeout(() => {
        this.readyState = 1;
        this.onopen && this.onopen();
      }, 0);
    }
    send(text) {
      const f = JSON.parse(text);
      this.sent.push(f);
      for (const reply of script(f, this)) setTimeout(() => this.onmessage && this.onmessage({ data: JSON.stringify(reply) }), 0);
    }
    close() {
      if (this.readyState === 3) return;
      this.readyState = 3;
      setTimeout(() => this.onclose && this.onclose({ code: 1006 }), 0);
    }
  }
  return { FakeSocket, made };
}

describe("BridgeClient timing (no server)", () => {
  const base = { url: "ws://x/ws", room: "r", token: "t", platform: "foundry", applyOps: () => {} };

  test("no welcome in time: the socket is dropped and retried, waits capped", async () => {
    const { FakeSocket, made } = fakeSocketClass(() => []);
    const waits = [];
    const c = new BridgeClient({
      ...base,
      WebSocket: FakeSocket,
      deadAfter: 30,
      backoff: { base: 10, max: 40, jitter: 0 },
      onChange: (i) => i.state === "waiting" && waits.push(i.nextRetryAt - Date.now()),
    });
    c.start();
    await waitFor(() => made.length >= 5, "five attempts", 3000);
    c.stop();
    assert.ok(made.slice(0, -1).every((s) => s.readyState === 3), "every old socket closed");
    assert.ok(waits.every((w) => w <= 40), `waits capped: ${waits}`);
    assert.ok(made.filter((s) => s.sent.length).every((s) => s.sent[0].type === "auth" && s.sent[0].platform === "foundry"));
  });

  test("silence after the welcome: pings, then a reconnect with `since`", async () => {
    let n = 0;
    const { FakeSocket, made } = fakeSocketClass((f) => {
      if (f.type !== "auth") return [];
      n += 1;
      return [{ type: "welcome", version: 7 }, { type: "snapshot", version: 7, state: {} }];
    });
    const c = new BridgeClient({ ...base, WebSocket: FakeSocket, pingEvery: 20, deadAfter: 60, backoff: { base: 10, max: 20 } });
    c.start();
    await waitFor(() => n >= 2, "re-joined", 3000);
    c.stop();
    assert.ok(made[0].sent.some((f) => f.type === "ping"), "pinged while silent");
    assert.equal(made[1].sent[0].since, 7, "resumes from the version it had");
  });
});

describe("BridgeClient against a real server", () => {
  let server;
  let gm;
  const clients = [];

  before(async () => {
    server = await startServer({ stub: true, scenario: path.join(EXAMPLES, "demo_table.yaml") });
    gm = await new GM(server.url, server.room, server.secret).connect();
  });
  after(async () => {
    for (const c of clients) c.stop();
    gm && gm.close();
    await server.stop();
  });

  function bridge(token, extra = {}) {
    const applied = [];
    const frames = [];
    const c = new BridgeClient({
      url: server.url,
      room: server.room,
      token,
      platform: "ccfolia",
      client: "core test",
      WebSocket,
      applyOps: async (f) => {
        applied.push(f);
      },
      onFrame: (f) => frames.push(f),
      backoff: { base: 50, max: 400 },
      resendAfter: 1000,
      statusEvery: 50,
      ...extra,
    });
    c.applied_frames = applied;
    c.frames = frames;
    clients.push(c);
    return c;
  }

  test("joins: reset applied, live, status reported to the GM", async () => {
    const c = bridge(await server.invite("bridge"));
    c.start();
    await waitFor(() => c.state === State.LIVE && c.applied !== null, "live");
    const reset = c.applied_frames[0];
    assert.equal(reset.reset, true);
    assert.ok(reset.ops.some((op) => op.id === "knight"));
    assert.ok(!reset.ops.some((op) => op.id === "assassin"), "hidden piece never reaches a bridge");
    assert.equal(c.version, gm.version);
    await gm.until(
      () => gm.notices.some((n) => n.kind === "bridge" && n.data.version === gm.version && n.data.lag === 0),
      "bridge status",
    );
  });

  test("a legal move is acked and comes back as ops; an illegal one is refused with a snap-back", async () => {
    const c = bridge(await server.invite("bridge"));
    const refusals = [];
    c.o.onRefusal = (r, ev) => refusals.push([r, ev]);
    c.start();
    await waitFor(() => c.state === State.LIVE, "live");
    const before = gm.version;
    c.sendEvent({ kind: "move", piece: "knight", x: 4, y: 3, by: "alice" });
    await gm.until(() => gm.get(["table", "pieces", "knight", "cell"]).x === 4, "knight moved");
    assert.equal(gm.version, before + 1);
    await waitFor(() => c.applied === gm.version && c.pending.size === 0, "ops applied");
    const last = c.applied_frames.at(-1);
    assert.deepEqual(last.ops, [{ op: "piece", id: "knight", cell: { x: 4, y: 3 } }]);

    const id = c.sendEvent({ kind: "move", piece: "knight", x: 5, y: 3, by: "bob" });
    await waitFor(() => refusals.length === 1, "refusal");
    assert.equal(refusals[0][0].rule, "TABLE-MV-1");
    assert.equal(refusals[0][1].piece, "knight");
    assert.equal(c.lastRefusal.code, "not_your_piece");
    await waitFor(() => c.applied_frames.some((f) => f.event === id), "snap-back ops");
    const snap = c.applied_frames.find((f) => f.event === id);
    assert.deepEqual(snap.ops[0], { op: "piece", id: "knight", cell: { x: 4, y: 3 } });
    assert.equal(gm.version, before + 1, "a refused move changes nothing");
  });

  test("a wrong token stops the client (no retry loop)", async () => {
    const c = bridge("not-a-token");
    c.start();
    await waitFor(() => c.state === State.AUTH_FAILED, "auth_failed");
    assert.equal(c.lastError.code, "auth_failed");
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(c.state, State.AUTH_FAILED);
    assert.equal(c.connects, 0);
  });

  test("a dropped socket: events queued meanwhile are delivered, missed changes arrive by the reset", async () => {
    const c = bridge(await server.invite("bridge"));
    c.start();
    await waitFor(() => c.state === State.LIVE && c.applied !== null, "live");
    c.ws.terminate();
    await waitFor(() => c.state !== State.LIVE, "noticed the drop");
    await gm.must({ kind: "table.move", piece: "ghoul", to: { x: 8, y: 6 } });
    c.sendEvent({ kind: "move", piece: "archer", x: 3, y: 2, by: "bob" });
    await waitFor(() => c.state === State.LIVE, "reconnected");
    await gm.until(() => gm.get(["table", "pieces", "archer", "cell"]).x === 3, "archer moved");
    await waitFor(() => c.applied === gm.version && c.pending.size === 0, "caught up");
    const resets = c.applied_frames.filter((f) => f.reset);
    assert.equal(resets.length, 2);
    assert.deepEqual(resets[1].ops.find((op) => op.id === "ghoul").cell, { x: 8, y: 6 });
    const snapshots = c.frames.filter((f) => f.type === "snapshot");
    assert.equal(snapshots.length, 1, "re-joined with `since`: no second snapshot");
  });

  test("a lost ack: the event is re-sent with its id and applied once", async () => {
    const c = bridge(await server.invite("bridge"));
    c.start();
    await waitFor(() => c.state === State.LIVE, "live");
    const ws = c.ws;
    const orig = ws.onmessage;
    let swallowed = null;
    ws.onmessage = (ev) => {
      const f = JSON.parse(String(ev.data));
      if (f.type === "ack" && !swallowed) {
        swallowed = f;
        ws.terminate();
        return;
      }
      orig(ev);
    };
    const before = gm.version;
    c.sendEvent({ kind: "move", piece: "archer", x: 2, y: 4, by: "bob" });
    await waitFor(() => swallowed !== null, "ack swallowed");
    await waitFor(() => c.state === State.LIVE && c.pending.size === 0, "re-sent and answered");
    const acks = c.frames.filter((f) => f.type === "ack" && f.id === swallowed.id);
    assert.equal(acks.length, 1);
    assert.equal(acks[0].duplicate, true);
    assert.equal(gm.version, before + 1, "applied exactly once");
  });

  test("the server restarts: the bridge backs off, re-joins and delivers what was pending", async () => {
    const c = bridge(await server.invite("bridge"));
    c.start();
    await waitFor(() => c.state === State.LIVE, "live");
    gm.close();
    const restarting = server.restart(300);
    await waitFor(() => c.state === State.WAITING || c.state === State.CONNECTING, "lost the server");
    c.sendEvent({ kind: "move", piece: "knight", x: 1, y: 5, by: "alice" });
    await restarting;
    await waitFor(() => c.state === State.LIVE && c.pending.size === 0, "back and delivered", 15000);
    assert.ok(c.connects >= 2);
    gm = await new GM(server.url, server.room, server.secret).connect();
    assert.deepEqual(gm.get(["table", "pieces", "knight", "cell"]), { x: 1, y: 5 });
    await waitFor(() => c.applied === gm.version, "bridge caught up");
  });
});
