/**
 * Per-key request rate, as a sliding log: the timestamps of the admitted requests of the last
 * second. A request is admitted only if fewer than `limit` were admitted in the 1000 ms before
 * it, so no 1-second window, wherever it starts, ever admits more than the plan's rate (a fixed
 * window would admit 2× across a boundary). Memory is bounded by the rate: at most `limit`
 * timestamps per active key.
 *
 * `RateLimiter` is what the HTTP gates use: this in-memory log when one process serves the API,
 * or the same log kept in Redis (`redis-rate-limit.ts`, with `OG_REDIS_URL`) when several do.
 */
import type { Clock } from "../clock.ts";

const WINDOW_MS = 1000;

export interface RateDecision {
  allowed: boolean;
  limit: number;
  /** Requests still admitted in the current window after this one. */
  remaining: number;
  /** Whole seconds until a slot frees up (≥ 1 when refused). */
  resetSeconds: number;
}

/** The numbers for the RateLimit-* headers, from the log after this request (both implementations). */
export function decision(allowed: boolean, limit: number, count: number, oldest: number | undefined, now: number): RateDecision {
  const msUntilSlot = count < limit || oldest === undefined ? 0 : oldest + WINDOW_MS - now;
  return {
    allowed,
    limit,
    remaining: Math.max(0, limit - count),
    resetSeconds: allowed && count < limit ? 0 : Math.max(1, Math.ceil(msUntilSlot / 1000)),
  };
}

/** Decides one request against a key's per-second rate (and counts it when admitted). */
export interface RateLimiter {
  admit(key: string, limit: number): Promise<RateDecision>;
  /** For /readyz: whether the backing service answers (absent: nothing to check). */
  ready?(): Promise<boolean>;
  close?(): Promise<void>;
}

/**
 * One key's admissions, oldest first. Expired entries are skipped by moving `head` and dropped in
 * one copy once they are the larger half: `Array.shift` moves every entry on each call, which at
 * a few thousand requests per second per key cost about a microsecond a request.
 */
class AdmissionLog {
  private times: number[] = [];
  private head = 0;

  get count(): number {
    return this.times.length - this.head;
  }

  get oldest(): number | undefined {
    return this.times[this.head];
  }

  get newest(): number | undefined {
    return this.count > 0 ? this.times[this.times.length - 1] : undefined;
  }

  /** Forgets admissions at or before `cutoff`. */
  expire(cutoff: number): void {
    while (this.head < this.times.length && this.times[this.head]! <= cutoff) this.head++;
    if (this.head > 64 && this.head * 2 > this.times.length) {
      this.times = this.times.slice(this.head);
      this.head = 0;
    }
  }

  push(at: number): void {
    this.times.push(at);
  }
}

export class SlidingWindowLimiter implements RateLimiter {
  private readonly admitted = new Map<string, AdmissionLog>();
  private lastSweep = 0;

  constructor(private readonly clock: Clock) {}

  admit(key: string, limit: number): Promise<RateDecision> {
    return Promise.resolve(this.check(key, limit));
  }

  check(key: string, limit: number): RateDecision {
    const now = this.clock.now();
    this.sweep(now);
    let log = this.admitted.get(key);
    if (!log) this.admitted.set(key, (log = new AdmissionLog()));
    // Keep only admissions strictly inside (now - 1 s, now].
    log.expire(now - WINDOW_MS);
    const allowed = log.count < limit;
    if (allowed) log.push(now);
    return decision(allowed, limit, log.count, log.oldest, now);
  }

  /** Drops logs of keys idle for a whole window, so memory follows active keys only. */
  private sweep(now: number): void {
    if (now - this.lastSweep < 10 * WINDOW_MS) return;
    this.lastSweep = now;
    for (const [key, log] of this.admitted) {
      const newest = log.newest;
      if (newest === undefined || newest <= now - WINDOW_MS) this.admitted.delete(key);
    }
  }
}
