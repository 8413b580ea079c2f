// Every panel module, imported once. A new subsystem's panel = one file + one line here.
import "./prompts.js";
import "./tower_defense.js";
import "./bases.js";
import "./grid.js";
import "./engagement.js";
import "./table.js";
import "./state.js";
// The player's own controls (shown only to players, `roles: ["player"]`).
import "../player/td.js";
import "../player/bases.js";
import "../player/grid.js";
import "../player/engagement.js";
import "../player/table.js";
