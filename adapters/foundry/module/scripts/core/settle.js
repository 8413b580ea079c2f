/**
 * Per-key settling: report a value only once it has stopped changing.
 *
 * A drag on Ccfolia changes a piece's x/y about 70 times a second, and one Foundry v13
 * drag may make several move operations; the server must see one move, the drop. `push`
 * keeps the latest value per key; `quietMs` after the last push for a key, `emit(key,
 * value)` runs once. `flush()` emits everything waiting at once (on shutdown).
 */
export class Settler {
  /**
   * @param {(key: string, value: any) => void} emit
   * @param {{quietMs?: number, setTimeout?: Function, clearTimeout?: Function}} [o]
   */
  constructor(emit, { quietMs = 250, setTimeout: st, clearTimeout: ct } = {}) {
    this.emit = emit;
    this.quietMs = quietMs;
    this.st = st || ((fn, ms) => setTimeout(fn, ms));
    this.ct = ct || ((h) => clearTimeout(h));
    this.waiting = new Map(); // key -> {value, timer}
    this.pushes = 0;
    this.emits = 0;
  }

  push(key, value) {
    this.pushes += 1;
    const old = this.waiting.get(key);
    if (old) this.ct(old.timer);
    const timer = this.st(() => this._fire(key), this.quietMs);
    this.waiting.set(key, { value, timer });
  }

  /** Forget a key without emitting (e.g. the move turned out to be the bridge's own). */
  cancel(key) {
    const old = this.waiting.get(key);
    if (old) this.ct(old.timer);
    this.waiting.delete(key);
  }

  flush() {
    for (const key of [...this.waiting.keys()]) this._fire(key);
  }

  get size() {
    return this.waiting.size;
  }

  _fire(key) {
    const entry = this.waiting.get(key);
    if (!entry) return;
    this.ct(entry.timer);
    this.waiting.delete(key);
    this.emits += 1;
    this.emit(key, entry.value);
  }
}
