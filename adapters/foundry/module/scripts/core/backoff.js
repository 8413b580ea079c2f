/**
 * Capped exponential backoff with jitter, for reconnecting to the komasync server.
 *
 * delay(n) = min(max, base * factor^n) * (1 - jitter * r), r uniform in [0, 1):
 * the jitter only shortens a wait, so `max` really is the longest wait.
 * Platform-free (no DOM, no Foundry, no timers): the caller schedules the wait.
 */
export class Backoff {
  /**
   * @param {{base?: number, max?: number, factor?: number, jitter?: number,
   *          random?: () => number}} [opts]
   */
  constructor({ base = 500, max = 30000, factor = 2, jitter = 0.25, random = Math.random } = {}) {
    if (!(base > 0) || !(max >= base) || !(factor >= 1) || !(jitter >= 0 && jitter < 1)) {
      throw new RangeError("Backoff: need 0 < base <= max, factor >= 1, 0 <= jitter < 1");
    }
    this.base = base;
    this.max = max;
    this.factor = factor;
    this.jitter = jitter;
    this.random = random;
    this.attempts = 0;
  }

  /** The wait before the next attempt (ms); counts the attempt. */
  next() {
    const raw = Math.min(this.max, this.base * this.factor ** this.attempts);
    this.attempts += 1;
    return Math.round(raw * (1 - this.jitter * this.random()));
  }

  /** A connection succeeded: start again from `base`. */
  reset() {
    this.attempts = 0;
  }
}
