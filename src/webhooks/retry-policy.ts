/**
 * When a failed webhook delivery is tried again (docs/events.md, Retry schedule). Pure: the
 * random source and the current time are passed in, so tests pin both.
 *
 * - The nominal delays stay as documented: 1 min, 5 min, 30 min, 2 h, 24 h after the 1st…5th
 *   failure; a failure beyond the 5th retry gives up (the webhook is disabled).
 * - Jitter: each delay is spread uniformly over ±20 % of its nominal value (the spread Svix
 *   uses), so deliveries that failed together — one endpoint down, hundreds of events queued —
 *   come back spread out instead of as a second wave in the same second.
 * - `Retry-After` (delay-seconds or an HTTP date, RFC 9110 §10.2.3) on the failed answer is
 *   honoured as a floor: the retry waits at least that long, but a receiver can push one retry
 *   out by at most 24 h, and can never make a retry come sooner than the jittered schedule or
 *   add retries. An unparseable, negative or past value is ignored.
 */

/** Seconds after the 1st…5th failure. */
export const NOMINAL_RETRY_DELAYS_S = [60, 300, 1800, 7200, 86400] as const;
/** Each delay lands uniformly in [nominal × (1 − JITTER), nominal × (1 + JITTER)). */
export const RETRY_JITTER = 0.2;
/** The longest a receiver's Retry-After can push one retry out. */
export const MAX_RETRY_AFTER_MS = 24 * 3_600_000;

export interface RetryInput {
  /** How many attempts of this delivery have failed so far, this one included (1 = the first attempt). */
  failures: number;
  /** The failed answer's `Retry-After` header, if it had one. */
  retryAfter?: string | null;
  /** Clock time of the failure (ms since the epoch): the base for an HTTP-date Retry-After. */
  now: number;
  /** Uniform in [0, 1); defaults to Math.random. 0.5 gives exactly the nominal delay. */
  random?: () => number;
  /** Defaults to NOMINAL_RETRY_DELAYS_S. */
  schedule?: readonly number[];
}

/** Milliseconds from the failure to the next attempt, or null when the schedule is used up. */
export function nextRetryDelayMs(input: RetryInput): number | null {
  const schedule = input.schedule ?? NOMINAL_RETRY_DELAYS_S;
  const nominalS = schedule[input.failures - 1];
  if (!Number.isInteger(input.failures) || input.failures < 1 || nominalS === undefined) return null;
  const delay = jitteredMs(nominalS * 1000, input.random ?? Math.random);
  const floor = parseRetryAfterMs(input.retryAfter, input.now);
  return floor === undefined ? delay : Math.max(delay, Math.min(floor, MAX_RETRY_AFTER_MS));
}

/** `nominalMs` spread by ±RETRY_JITTER, in whole milliseconds. */
export function jitteredMs(nominalMs: number, random: () => number): number {
  // Clamp so that a faulty source cannot step outside the documented band.
  const r = Math.min(Math.max(random(), 0), 1);
  return Math.round(nominalMs * (1 + RETRY_JITTER * (2 * r - 1)));
}

/**
 * `Retry-After` as milliseconds from `now`: delay-seconds (digits only) or an HTTP date.
 * Undefined when absent, malformed, or not in the future.
 */
export function parseRetryAfterMs(value: string | null | undefined, now: number): number | undefined {
  if (value == null) return undefined;
  const text = value.trim();
  if (text === "") return undefined;
  if (/^\d+$/.test(text)) {
    const ms = Number(text) * 1000;
    return Number.isFinite(ms) && ms > 0 ? ms : undefined;
  }
  // HTTP dates name their weekday and zone ("Sun, 06 Nov 1994 08:49:37 GMT"); refusing other
  // strings keeps Date.parse's guesses ("12", "tomorrow") out.
  if (!/^[A-Za-z]{3,9}, .*\bGMT$/.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at) || at <= now) return undefined;
  return at - now;
}
