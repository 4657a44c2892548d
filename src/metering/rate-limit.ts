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

export class SlidingWindowLimiter implements RateLimiter {
  private readonly admitted = new Map<string, number[]>();
  private lastSweep = 0;

  constructor(private readonly clock: Clock) {}

  admit(key: string, limit: number): Promise<RateDecision> {
    return Promise.resolve(this.check(key, limit));
  }

  check(key: string, limit: number): RateDecision {
    const now = this.clock.now();
    this.sweep(now);
    const log = this.admitted.get(key) ?? [];
    // Keep only admissions strictly inside (now - 1 s, now].
    while (log.length > 0 && log[0]! <= now - WINDOW_MS) log.shift();
    const allowed = log.length < limit;
    if (allowed) log.push(now);
    if (log.length > 0) this.admitted.set(key, log);
    return decision(allowed, limit, log.length, log[0], now);
  }

  /** Drops logs of keys idle for a whole window, so memory follows active keys only. */
  private sweep(now: number): void {
    if (now - this.lastSweep < 10 * WINDOW_MS) return;
    this.lastSweep = now;
    for (const [key, log] of this.admitted) {
      if (log.length === 0 || log[log.length - 1]! <= now - WINDOW_MS) this.admitted.delete(key);
    }
  }
}
