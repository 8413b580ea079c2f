/**
 * Calibration from two drops of one known piece (for platforms whose units are unknown,
 * i.e. Ccfolia): the GM drops the piece exactly on its square, then one square to the
 * right. The first drop fixes the origin, the step fixes the unit:
 *
 *   step ≈ 1 square   → units "cell" (x/y count squares)
 *   step = N (N > 1)  → units "px", cell_size N
 *   origin = first drop − square × unit
 *
 * The result is what the room stores at meta.platforms.<platform> (the Python adapters
 * read origin_x, origin_y, cell_size, units from there); this file only measures.
 */

/**
 * @param {{x:number,y:number}} cell   the piece's square in the room
 * @param {{x:number,y:number}} first  its position after the first drop
 * @param {{x:number,y:number}} second its position after moving one square right
 * @param {number} [fallbackCellSize]  cell_size to keep when the units are squares
 * @returns {{origin_x:number, origin_y:number, cell_size:number, units:"px"|"cell"}}
 * @throws {RangeError} when the second drop is not one square to the right
 */
export function calibrateFromDrops(cell, first, second, fallbackCellSize = 24) {
  const dx = second.x - first.x;
  const dy = second.y - first.y;
  if (!(dx > 0) || Math.abs(dy) > dx / 4) {
    throw new RangeError("the second drop must be one square to the right of the first");
  }
  const cellUnits = Math.abs(dx - 1) < 0.25;
  const unit = cellUnits ? 1 : dx;
  const round = (v) => Math.round(v * 1000) / 1000;
  return {
    origin_x: round(first.x - cell.x * unit),
    origin_y: round(first.y - cell.y * unit),
    cell_size: cellUnits ? fallbackCellSize : round(dx),
    units: cellUnits ? "cell" : "px",
  };
}

/** The `override` action that stores `calibration` merged into the platform's settings. */
export function calibrationAction(platform, current, calibration) {
  return {
    kind: "override",
    path: ["meta", "platforms", platform],
    value: { ...(current || {}), ...calibration },
    reason: "calibration / キャリブレーション",
  };
}
