// How a box's lines reach this page: the delay from each line's journal time to its arrival here
// (its lag), the lines a second, and what was dropped on the way, counted where it happened: on
// the box (its frame cap, RateLimit=, journald), in the backend (events its queue let go when this
// page fell behind) and in this page (lines that fell out of its bounded buffer).

/** A frame leaves the box at most once a second: lag below that is the channel working. Far above
 * it (5 s) the box's network or its backlog is slow, and the panel says so. */
export const laggingMs = 5000;
/** A line that arrives "before" it was written says the box's clock is ahead of this browser's;
 * past 2 s that is clock skew, not a fast network, and the lag is not shown as a number. */
export const skewMs = -2000;
const windowMs = 60000;
const rateWindowMs = 10000;
/** The last minute at the spec's most (200 lines a second): the samples stay bounded. */
const maxSamples = 12000;

export class Delivery {
  constructor() {
    this.at = [];
    this.lag = [];
    this.device = { frameCap: 0, rateLimit: 0, journald: 0 };
    this.backendEvents = 0;
  }

  /** A line arrived now: its lag is the arrival on this browser's clock minus the line's time
   * on the box's clock. */
  arrived(lineMs, nowMs) {
    const t = Number(lineMs);
    if (!Number.isFinite(t)) return null;
    const lag = nowMs - t;
    this.at.push(nowMs);
    this.lag.push(lag);
    if (this.at.length > maxSamples + 1000) {
      this.at.splice(0, this.at.length - maxSamples);
      this.lag.splice(0, this.lag.length - maxSamples);
    }
    return lag;
  }

  get deviceDropped() {
    return this.device.frameCap + this.device.rateLimit + this.device.journald;
  }

  /** The p50 of the last minute's lags, the lines a second over the last 10 s, and the state. */
  summary(nowMs) {
    let first = 0;
    while (first < this.at.length && this.at[first] < nowMs - windowMs) first += 1;
    if (first > 0) { this.at.splice(0, first); this.lag.splice(0, first); }
    let recent = 0;
    for (let i = this.at.length - 1; i >= 0 && this.at[i] >= nowMs - rateWindowMs; i -= 1) recent += 1;
    const rate = recent / (rateWindowMs / 1000);
    if (this.lag.length === 0) return { state: 'none', p50: null, rate };
    const sorted = Float64Array.from(this.lag).sort();
    const p50 = sorted[Math.floor((sorted.length - 1) / 2)];
    const state = p50 < skewMs ? 'skew' : p50 > laggingMs ? 'lagging' : 'ok';
    return { state, p50, rate };
  }
}

/** A lag in words: seconds to a tenth, negative clamped to 0, strong negative as clock skew. */
export function lagText(ms) {
  if (typeof ms !== 'number' || !Number.isFinite(ms)) return '—';
  if (ms < skewMs) return 'clock skew';
  return `${(Math.max(0, ms) / 1000).toFixed(1)} s`;
}
