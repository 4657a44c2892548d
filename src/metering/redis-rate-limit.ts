/**
 * The per-key sliding log of `rate-limit.ts`, kept in Redis so several instances share one exact
 * limit: a sorted set per key whose scores are the admission times of the last 1000 ms. The whole
 * decision (trim, count, admit, expire) is ONE Lua script, so Redis runs it atomically and no two
 * instances can both take the last slot; time is Redis's own `TIME` (one clock for every
 * instance, immune to their drift), or the service clock when the test clock is on so tests can
 * move it. Never the weighted two-window estimate some libraries use: that over-admits up to 2×.
 *
 * Redis unreachable → 503 SERVICE_UNAVAILABLE at once (no offline queue, nothing counted); the
 * client reconnects in the background, so the limit works again as soon as Redis is back.
 */
import { randomBytes } from "node:crypto";
import Redis from "ioredis";

import type { Clock } from "../clock.ts";
import { ApiError } from "../errors.ts";
import { decision, type RateDecision, type RateLimiter } from "./rate-limit.ts";

// KEYS[1] the key's log. ARGV: limit, now in ms ('' = Redis TIME), a unique member suffix, expiry in ms.
// Admissions strictly inside (now - 1000, now] count, exactly like the in-memory log.
const SLIDING_LOG = `
local now
if ARGV[2] == '' then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
else
  now = tonumber(ARGV[2])
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - 1000)
local count = redis.call('ZCARD', KEYS[1])
local allowed = 0
if count < tonumber(ARGV[1]) then
  redis.call('ZADD', KEYS[1], now, now .. ':' .. ARGV[3])
  count = count + 1
  allowed = 1
end
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[4]))
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return {allowed, count, tostring(now), oldest[2] or false}
`;

type SlidingLogClient = Redis & {
  slidingLog(key: string, limit: number, now: string, member: string, expireMs: number): Promise<[number, number, string, string | null]>;
};

export interface RedisLimiterOptions {
  url: string;
  clock: Clock;
  /** Prefix of every key this limiter writes. */
  prefix?: string;
  /** Called (rarely, rate-limited by the caller) when Redis cannot be reached. */
  onError?: (error: Error) => void;
}

export class RedisRateLimiter implements RateLimiter {
  private readonly redis: SlidingLogClient;
  private readonly prefix: string;
  private seq = 0;
  private readonly instanceId = randomBytes(6).toString("hex");

  constructor(private readonly options: RedisLimiterOptions) {
    this.prefix = options.prefix ?? "ogsmith:rl:";
    const redis = new Redis(options.url, {
      // Fail a command at the first failed reconnect instead of queueing it: a request waiting
      // on a dead Redis should get its 503 now, not after a retry schedule.
      maxRetriesPerRequest: 0,
      commandTimeout: 2000,
      connectTimeout: 2000,
      // Keep trying every 200 ms forever: recovery needs no restart.
      retryStrategy: () => 200,
      lazyConnect: false,
    });
    redis.defineCommand("slidingLog", { numberOfKeys: 1, lua: SLIDING_LOG });
    redis.on("error", (error) => options.onError?.(error));
    this.redis = redis as SlidingLogClient;
  }

  admit(key: string, limit: number): Promise<RateDecision> {
    return this.admitTimed(key, limit).then(({ decision }) => decision);
  }

  /** `admit`, plus the time (Redis's, or the test clock's) the decision was taken at. */
  async admitTimed(key: string, limit: number): Promise<{ decision: RateDecision; at: number }> {
    const clock = this.options.clock;
    // Test clock: the service clock is the time, and it may stand still for longer than a real
    // second, so the log must outlive real seconds too (memory stays bounded by the rate).
    const now = clock.isTestClock ? String(clock.now()) : "";
    const expireMs = clock.isTestClock ? 3_600_000 : 1000;
    const member = `${this.instanceId}:${++this.seq}`;
    let reply: [number, number, string, string | null];
    try {
      reply = await this.redis.slidingLog(this.prefix + key, limit, now, member, expireMs);
    } catch {
      throw new ApiError("SERVICE_UNAVAILABLE", "The rate limiter (Redis) is unavailable. Retry shortly.", undefined, { "Retry-After": "1" });
    }
    const [allowed, count, at, oldest] = reply;
    return { decision: decision(allowed === 1, limit, count, oldest === null ? undefined : Number(oldest), Number(at)), at: Number(at) };
  }

  /** True when Redis answers PING (for /readyz). */
  async ready(): Promise<boolean> {
    try {
      return (await this.redis.ping()) === "PONG";
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
