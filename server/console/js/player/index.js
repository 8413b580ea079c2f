// The player's own controls, one module (or folder) per subsystem, imported once each.
// A new subsystem's controls = one file or folder here + one line below. They register
// panels shown only to players (`roles: ["player"]`); the shared panels are in ../panels.
import "./tower_defense/controls.js";
import "./bases.js";
import "./grid.js";
import "./mass.js";
import "./engagement.js";
import "./table.js";
