/**
 * Calibration for a platform whose units are not known for sure (Ccfolia), in one step:
 * the GM says how many platform units one square is (`cellSize`: 1 = coordinates count
 * squares, Ccfolia's default as its room data shows; N > 1 = pixels) and drops one known
 * piece exactly on its square. The drop fixes the origin:
 *
 *   origin = drop − square × unit      (unit = 1 for squares, cellSize for pixels)
 *
 * The result is what the room stores at meta.platforms.<platform> (the Python adapters
 * read units, cell_size, origin_x, origin_y from there); this file only measures.
 */

const round = (v) => Math.round(v * 1000) / 1000;

/**
 * Units from a typed cell size alone: 1 → squares (cell_size stays 24 px, the size of the
 * generated map's squares); N > 1 → pixels, N per square.
 * @throws {RangeError} for anything but a positive number
 */
export function calibrateFromCellSize(cellSize) {
  const n = Number(cellSize);
  if (!(n > 0) || !Number.isFinite(n)) throw new RangeError("the cell size must be a positive number (1 = squares)");
  return n === 1 ? { units: "cell", cell_size: 24 } : { units: "px", cell_size: round(n) };
}

/**
 * @param {{x:number,y:number}} cell  the piece's square in the room
 * @param {{x:number,y:number}} pos   its position on the platform after the drop
 * @param {number} [cellSize]         platform units per square (1 = squares)
 * @returns {{origin_x:number, origin_y:number, cell_size:number, units:"px"|"cell"}}
 */
export function calibrateFromDrop(cell, pos, cellSize = 1) {
  const units = calibrateFromCellSize(cellSize);
  const unit = units.units === "px" ? units.cell_size : 1;
  if (!Number.isFinite(pos.x) || !Number.isFinite(pos.y)) throw new RangeError("the piece has no position");
  return { ...units, origin_x: round(pos.x - cell.x * unit), origin_y: round(pos.y - cell.y * unit) };
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
