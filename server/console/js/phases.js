// The subsystems' phase and step tables as the server sent them with the room (the
// welcome's `tables`, engine/phases.py): panels and player pages order, label and step
// through phases from these, never from copies of their own. Public rules: the same for
// every audience. Names follow the console's language (Japanese first, then English).

import { pick } from "./i18n.js";

let TABLES = {};

/** Keep the tables of the welcome just received (an older server sends none). */
export function setTables(tables) {
  TABLES = tables && typeof tables === "object" ? tables : {};
}

/** Subsystem `name`'s phases in order ([] when the server sent no table). */
export function phases(name) {
  return TABLES[name]?.phases || [];
}

/** The phase (or step) `id` of subsystem `name`, or null. */
export function phaseSpec(name, id) {
  return phases(name).find((p) => p.id === id) || null;
}

/** The phase's name in the current language (its id when the table has none). */
export function phaseName(name, id) {
  const spec = phaseSpec(name, id);
  return spec ? pick(spec) : String(id ?? "");
}

/** The phase after `id` (null after the last, or when unknown). */
export function nextPhase(name, id) {
  return phaseSpec(name, id)?.next ?? null;
}
