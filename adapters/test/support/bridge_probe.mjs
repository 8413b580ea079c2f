// The bridges' own socket client (core/client.js, shared by the Foundry module and the
// Ccfolia userscript) joining a room and taking its first `table.ops` frame, then saying
// so as one JSON line. Run by tests/server/test_caddy_proxy.py through Caddy over wss://
// (Node trusts Caddy's root through NODE_EXTRA_CA_CERTS).
//
//   node bridge_probe.mjs URL ROOM TOKEN PLATFORM

import WebSocket from "ws";
import { BridgeClient, State } from "../../foundry/module/scripts/core/client.js";

const [url, room, token, platform] = process.argv.slice(2);
const quit = setTimeout(() => {
  process.stdout.write(`${JSON.stringify({ ok: false, state: client.state, error: client.lastError })}\n`);
  process.exit(1);
}, 15000);

const client = new BridgeClient({
  url, room, token, platform, WebSocket, client: "bridge probe",
  backoff: { base: 200, max: 1000 },
  applyOps: (frame) => {
    clearTimeout(quit);
    process.stdout.write(`${JSON.stringify({ ok: true, platform: frame.platform, version: frame.version, live: client.state === State.LIVE })}\n`);
    client.stop();
    setTimeout(() => process.exit(0), 50);
  },
});
client.start();
