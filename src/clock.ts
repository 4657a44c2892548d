/**
 * The one clock. Everything that depends on time (quota periods, the monthly reset, retry
 * schedules, rate-limit windows, event timestamps) reads it; nothing else calls Date.now().
 *
 * The test clock (docs/operations.md) starts at the real time and stands still until advanced, so tests
 * can cross a month boundary or a 24 h retry delay without waiting. Durations that protect the
 * process (HTTP timeouts) deliberately stay on real time and do not use this module.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  readonly isTestClock: boolean;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  isTestClock: false,
};

export type AdvanceListener = (now: number) => Promise<void> | void;

export class TestClock implements Clock {
  readonly isTestClock = true;
  private current: number;
  private readonly listeners = new Set<AdvanceListener>();

  constructor(start: number = Date.now()) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  /** Registers work to run (and await) after every advance, e.g. "run every job that became due". */
  onAdvance(listener: AdvanceListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async advance(seconds: number): Promise<number> {
    if (!Number.isFinite(seconds) || seconds < 0) throw new RangeError("seconds must be a non-negative number");
    this.current = await this.moveBy(Math.round(seconds * 1000));
    for (const listener of this.listeners) await listener(this.current);
    return this.current;
  }

  /** Where an advance by `ms` lands; several instances on one database move one shared clock (store/postgres). */
  protected async moveBy(ms: number): Promise<number> {
    return this.current + ms;
  }

  /** Another instance moved the shared clock: follow it (never backwards), without running listeners. */
  syncTo(now: number): void {
    if (now > this.current) this.current = now;
  }
}

export const isoString = (epochMs: number): string => new Date(epochMs).toISOString();
