/**
 * A real komasync server process for the bridge tests.
 *
 * `startServer()` creates a room from a scenario with the CLI (`komasync room create`),
 * starts `komasync serve --port 0` on a fresh SQLite file, reads the printed
 * `ws://127.0.0.1:<port>/ws`, and mints invites with the CLI. `stop()` sends SIGTERM and
 * waits for the process (SIGKILL after 5 s); every started server is also stopped when
 * the test process exits.
 */

import { spawn, execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);
const HERE = path.dirname(fileURLToPath(import.meta.url));
export const REPO = path.resolve(HERE, "../../..");
export const EXAMPLES = path.join(REPO, "examples");
const PYTHON = process.env.PYTHON || "python3";
const STUB = path.join(HERE, "stub_serve.py");
const ENTRY = "import sys; from komasync.server.cli import main; sys.exit(main(sys.argv[1:]))";

const live = new Set();
process.on("exit", () => {
  for (const child of live) {
    try {
      child.kill("SIGKILL");
    } catch {
      /* gone */
    }
  }
});

/** Run the komasync CLI once; returns stdout. */
export async function cli(args, opts = {}) {
  const { stdout } = await run(PYTHON, ["-c", ENTRY, ...args], { cwd: REPO, timeout: 30000, ...opts });
  return stdout;
}

/**
 * @param {{scenario?: string, room?: string, secret?: string, args?: string[], stub?: boolean}} [o]
 *   `stub`: serve with the echo adapter of stub_serve.py (protocol-core tests only)
 * @returns {Promise<{url: string, room: string, secret: string, db: string,
 *   invite: (role?: string, extra?: string[]) => Promise<string>, stop: () => Promise<void>,
 *   output: () => string}>}
 */
export async function startServer(o = {}) {
  const dir = await mkdtemp(path.join(tmpdir(), "komasync-bridge-"));
  const db = path.join(dir, "room.sqlite3");
  const room = o.room || "bridgetest";
  const secret = o.secret || "gm-secret-for-tests-" + Math.random().toString(36).slice(2);
  const scenario = o.scenario || path.join(EXAMPLES, "tower_defense.yaml");
  await cli(["room", "create", scenario, "--db", db, "--id", room, "--secret", secret]);

  let child;
  let out = "";
  let exited;
  async function launch(port) {
    child = spawn(
      PYTHON,
      [...(o.stub ? [STUB] : ["-c", ENTRY]), "serve", "--port", String(port), "--db", db, "--log", "text", ...(o.args || [])],
      { cwd: REPO, stdio: ["ignore", "pipe", "pipe"] },
    );
    live.add(child);
    const me = child;
    let seen = "";
    me.stderr.on("data", (d) => {
      out += d;
    });
    exited = new Promise((resolve) => me.on("exit", resolve));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("server did not start:\n" + out)), 20000);
      me.stdout.on("data", (d) => {
        out += d;
        seen += d;
        const m = /ws:\/\/[\d.]+:\d+\/ws/.exec(seen);
        if (m) {
          clearTimeout(timer);
          resolve(m[0]);
        }
      });
      me.on("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`server exited (${code}):\n${out}`));
      });
    });
  }
  async function kill() {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      const t = setTimeout(() => child.kill("SIGKILL"), 5000);
      await exited;
      clearTimeout(t);
    }
    live.delete(child);
  }
  const url = await launch(0);
  const port = Number(new URL(url).port);

  return {
    url,
    room,
    secret,
    db,
    output: () => out,
    async invite(role = "bridge", extra = []) {
      const text = await cli(["invite", room, role, "--db", db, ...extra]);
      const m = /token[^:]*:\s*(\S+)/.exec(text);
      if (!m) throw new Error("no token in: " + text);
      return m[1];
    },
    /** Stop the process and start it again on the same port and database. */
    async restart(pauseMs = 0) {
      await kill();
      if (pauseMs) await new Promise((r) => setTimeout(r, pauseMs));
      await launch(port);
    },
    async stop() {
      await kill();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
