/**
 * Timers that fire only when the test says so (for RenderPool's `timers`). A bound tested on
 * real time races the work under it: a render that is merely slow on a loaded machine is killed
 * as if it had hung. With these, the test fires the bound it is about, at the moment it chooses,
 * and every other render runs with no bound in its way.
 */
import type { PoolTimers } from "../../src/render/sandbox/pool.ts";

export interface ManualTimer {
  readonly ms: number;
  readonly callback: () => void;
}

export class ManualTimers implements PoolTimers {
  private readonly armed = new Set<ManualTimer>();
  /** The delay of every timer ever set, in order, fired or cleared or not. */
  readonly set: number[] = [];

  setTimeout(callback: () => void, ms: number): ManualTimer {
    const timer = { ms, callback };
    this.set.push(ms);
    this.armed.add(timer);
    return timer;
  }

  clearTimeout(handle: unknown): void {
    this.armed.delete(handle as ManualTimer);
  }

  /** The delays of the timers armed now, in the order they were set. */
  get pending(): number[] {
    return [...this.armed].map((timer) => timer.ms);
  }

  /** Fires the one armed timer of this delay, as if its time had come; fails if there is not exactly one. */
  fire(ms: number): void {
    const matching = [...this.armed].filter((timer) => timer.ms === ms);
    if (matching.length !== 1) throw new Error(`expected one armed ${ms} ms timer, found ${matching.length} (armed: ${JSON.stringify(this.pending)})`);
    const timer = matching[0]!;
    this.armed.delete(timer);
    timer.callback();
  }
}
