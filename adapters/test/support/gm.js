/**
 * A GM client for the tests: authenticates with the room's GM secret, keeps the GM's
 * view of the state from `snapshot` + `change` ops, and sends actions with awaitable
 * answers (`ack` / `reject`). Also collects `notice` frames (bridge status, refusals).
 */

import WebSocket from "ws";

/** Apply one protocol op (`set` / `del` at a path) to a JSON tree in place. */
export function applyOp(tree, op) {
  const path = op.path;
  let node = tree;
  for (let i = 0; i < path.length - 1; i++) {
    const k = path[i];
    if (node[k] === undefined || node[k] === null) node[k] = {};
    node = node[k];
  }
  const last = path[path.length - 1];
  if (op.op === "set") node[last] = structuredClone(op.value);
  else if (op.op === "del") delete node[last];
}

export function get(tree, path) {
  let node = tree;
  for (const k of path) {
    if (node === undefined || node === null) return undefined;
    node = node[k];
  }
  return node;
}

export class GM {
  constructor(url, room, secret) {
    this.url = url;
    this.room = room;
    this.secret = secret;
    this.state = null;
    this.version = null;
    this.frames = [];
    this.notices = [];
    this.waiters = [];
    this.answers = new Map();
    this.seq = 0;
  }

  async connect() {
    this.ws = new WebSocket(this.url);
    await new Promise((resolve, reject) => {
      this.ws.once("open", resolve);
      this.ws.once("error", reject);
    });
    this.ws.on("message", (data) => this._frame(JSON.parse(String(data))));
    this.ws.send(JSON.stringify({ type: "auth", room: this.room, ...this.credentials() }));
    await this.until(() => this.state !== null, `${this.who} snapshot`);
    return this;
  }

  /** What `auth` proves and names: the room's GM secret. */
  credentials() {
    return { secret: this.secret, client: "test GM" };
  }

  get who() {
    return "GM";
  }

  _frame(f) {
    this.frames.push(f);
    if (f.type === "snapshot") {
      this.state = f.state;
      this.version = f.version;
    } else if (f.type === "change") {
      for (const op of f.ops) applyOp(this.state, op);
      this.version = f.to_version;
    } else if (f.type === "notice") {
      this.notices.push(f);
    } else if ((f.type === "ack" || f.type === "reject" || f.type === "error" || f.type === "invite") && f.id) {
      this.answers.set(f.id, f);
    }
    this._wake();
  }

  _wake() {
    for (const w of [...this.waiters]) {
      let ok;
      try {
        ok = w.test();
      } catch {
        ok = false;
      }
      if (ok) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        clearTimeout(w.timer);
        w.resolve();
      }
    }
  }

  /** Resolve when `test()` is true (checked on every GM frame), or fail after `ms`. */
  until(test, what = "condition", ms = 10000) {
    if (test()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const w = { test, resolve };
      w.timer = setTimeout(() => {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        reject(new Error(`GM: timed out waiting for ${what}`));
      }, ms);
      this.waiters.push(w);
    });
  }

  /** Send an action; resolves with the `ack` / `reject` / `error` frame. */
  async act(action, opts = {}) {
    const id = `gm-${++this.seq}-${Math.random().toString(36).slice(2, 8)}`;
    this.ws.send(JSON.stringify({ type: "action", id, action, ...opts }));
    await this.until(() => this.answers.has(id), `answer to ${action.kind}`);
    const answer = this.answers.get(id);
    if (answer.type === "ack") await this.until(() => this.version >= answer.version, "change");
    return answer;
  }

  /** Send an action that must be accepted. */
  async must(action) {
    const a = await this.act(action);
    if (a.type !== "ack") throw new Error(`${action.kind} refused: ${JSON.stringify(a)}`);
    return a;
  }

  /** Mint an invite over the GM connection; resolves with the token. */
  async invite(role, extra = {}) {
    const id = `inv-${++this.seq}`;
    this.ws.send(JSON.stringify({ type: "invite.create", id, role, ...extra }));
    await this.until(() => this.answers.has(id), "invite");
    return this.answers.get(id).token;
  }

  get(path) {
    return get(this.state, path);
  }

  close() {
    try {
      this.ws.close();
    } catch {
      /* closed */
    }
  }
}

/** A player's WebSocket: the GM test client, authenticated with an invite instead. */
export class Player extends GM {
  constructor(url, room, token) {
    super(url, room, null);
    this.token = token;
  }

  credentials() {
    return { token: this.token, client: "test player" };
  }

  get who() {
    return "player";
  }
}
