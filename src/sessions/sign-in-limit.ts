/**
 * Attempts at signing in, counted per client address and per submitted key, so that nobody can
 * try keys (or flood one account with sessions) at machine speed. A fixed window per client and
 * per key; memory is bounded (the oldest windows are dropped first), and the service clock is the
 * time, so the test clock can move past a window.
 *
 * Counted in this process: with several instances each one counts its own share, which still
 * bounds an attacker to a small multiple of the limits.
 */
import { LRUCache } from "lru-cache";
import type { Clock } from "../clock.ts";
import { ApiError } from "../errors.ts";

export interface SignInLimits {
  /** Failed sign-ins one client address may make per window. */
  failuresPerClient: number;
  /** Sign-ins (failed or not) with one and the same key per window. */
  attemptsPerKey: number;
  windowMs: number;
}

export const SIGN_IN_LIMITS: SignInLimits = { failuresPerClient: 10, attemptsPerKey: 10, windowMs: 60_000 };

/** Windows kept at most, of each kind; the oldest go first. */
export const MAX_TRACKED = 10_000;

interface Window {
  start: number;
  count: number;
}

class WindowCounter {
  /** Reads peek, so the windows leave in the order they started. */
  private readonly windows = new LRUCache<string, Window>({ max: MAX_TRACKED });

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
  ) {}

  /** Seconds until `id` may try again, or 0 when it may now. */
  waitSeconds(id: string, now: number): number {
    const window = this.windows.peek(id);
    if (!window || now - window.start >= this.windowMs || window.count < this.limit) return 0;
    return Math.max(1, Math.ceil((window.start + this.windowMs - now) / 1000));
  }

  count(id: string, now: number): void {
    let window = this.windows.peek(id);
    if (!window || now - window.start >= this.windowMs) {
      window = { start: now, count: 0 };
      this.windows.set(id, window);
    }
    window.count++;
  }
}

export class SignInLimiter {
  private readonly clients: WindowCounter;
  private readonly keys: WindowCounter;

  constructor(
    private readonly clock: Clock,
    limits: SignInLimits = SIGN_IN_LIMITS,
  ) {
    this.clients = new WindowCounter(limits.failuresPerClient, limits.windowMs);
    this.keys = new WindowCounter(limits.attemptsPerKey, limits.windowMs);
  }

  /** Counts one attempt with `keyHash`, or throws RATE_LIMIT_EXCEEDED (with Retry-After) when the client or the key used its share. */
  admit(client: string, keyHash: string): void {
    const now = this.clock.now();
    const wait = Math.max(this.clients.waitSeconds(client, now), this.keys.waitSeconds(keyHash, now));
    if (wait > 0) {
      throw new ApiError("RATE_LIMIT_EXCEEDED", `Too many sign-in attempts. Try again in ${wait} s.`).retryAfter(wait);
    }
    this.keys.count(keyHash, now);
  }

  /** A failed attempt counts against the client's share. */
  failed(client: string): void {
    this.clients.count(client, this.clock.now());
  }
}
