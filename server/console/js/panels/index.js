// Every panel module, imported once. A new subsystem's panel = one file + one line here.
import "./prompts.js";
import "./tower_defense.js";
import "./tower_defense_gm.js";
import "./bases.js";
import "./bases_act.js";
import "./grid.js";
import "./mass.js";
import "./mass_act.js";
import "./engagement.js";
import "./table.js";
import "./room.js";
import "./state.js";
// The player's own controls (shown only to players): their own list, player/index.js.
import "../player/index.js";
