/**
 * komasync bridge for Foundry VTT v12/v13 — the module's entry point.
 * Settings on `init`; on `ready` every browser registers the move check, and only the
 * active GM's browser connects to komasync (see foundry/bridge.js).
 */

import { FoundryBridge, registerSettings } from "./foundry/bridge.js";

const env = globalThis;

Hooks.once("init", () => registerSettings(env));

Hooks.once("ready", () => {
  const bridge = new FoundryBridge(env);
  game.modules.get("komasync").api = bridge;
  bridge.ready();
});
