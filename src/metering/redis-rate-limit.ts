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

import type { VersionedDecision, VersionedMode } from "../accounts/versions.ts";
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

// The same log, plus the account's change state (KEYS[2], a hash: `e` a random epoch chosen when
// the hash is created, `n` the changes begun, `p` the changes in flight), read in the same
// script so an instance's cached key and account are validated on the round trip the rate
// limit makes anyway (src/metering/key-cache.ts). ARGV 5: 'check' (read the state, admit
// nothing), 'if' (admit only when the version is ARGV 6 and no change is in flight), 'always'.
// ARGV 7: the epoch to use when the hash is missing (first use, or Redis lost it), so a
// version read before the loss never matches one read after it.
const VERSIONED_LOG = `
local e = redis.call('HGET', KEYS[2], 'e')
if not e then
  e = ARGV[7]
  redis.call('HSET', KEYS[2], 'e', e, 'n', 0, 'p', 0)
end
local state = redis.call('HMGET', KEYS[2], 'n', 'p')
local version = e .. ':' .. (state[1] or '0')
local pending = tonumber(state[2] or '0')
if ARGV[5] == 'check' or (ARGV[5] == 'if' and (version ~= ARGV[6] or pending > 0)) then
  return {-1, 0, '', false, version, pending}
end
${SLIDING_LOG.replace("return {allowed, count, tostring(now), oldest[2] or false}", "return {allowed, count, tostring(now), oldest[2] or false, version, pending}")}`;

// KEYS[1] the account's change state, KEYS[2] the same for every account together (what an
// instance's lease on its signing-key entries watches). ARGV[1]: 1 to begin a change, -1 to end
// one; ARGV[2] the epoch for a missing hash. Both move `n`, so every version read during or
// before a change differs from every one read after it; `p` never goes below 0 (an end after
// Redis lost the hash).
const ACCOUNT_CHANGE = `
for i = 1, 2 do
  if not redis.call('HGET', KEYS[i], 'e') then
    redis.call('HSET', KEYS[i], 'e', ARGV[2], 'n', 0, 'p', 0)
  end
  redis.call('HINCRBY', KEYS[i], 'n', 1)
  local p = redis.call('HINCRBY', KEYS[i], 'p', tonumber(ARGV[1]))
  if p < 0 then redis.call('HSET', KEYS[i], 'p', 0) end
end
return 1
`;

// KEYS[1] the change state of every account together: its version and changes in flight.
const ALL_CHANGES = `
local e = redis.call('HGET', KEYS[1], 'e')
if not e then
  e = ARGV[1]
  redis.call('HSET', KEYS[1], 'e', e, 'n', 0, 'p', 0)
end
local state = redis.call('HMGET', KEYS[1], 'n', 'p')
return {e .. ':' .. (state[1] or '0'), tonumber(state[2] or '0')}
`;

type SlidingLogClient = Redis & {
  slidingLog(key: string, limit: number, now: string, member: string, expireMs: number): Promise<[number, number, string, string | null]>;
  versionedLog(
    key: string,
    stateKey: string,
    limit: number,
    now: string,
    member: string,
    expireMs: number,
    mode: VersionedMode,
    expected: string,
    epoch: string,
  ): Promise<[number, number, string, string | null, string, number]>;
  accountChange(stateKey: string, allKey: string, by: number, epoch: string): Promise<number>;
  allChanges(allKey: string, epoch: string): Promise<[string, number]>;
};

const UNAVAILABLE = () => new ApiError("SERVICE_UNAVAILABLE", "The rate limiter (Redis) is unavailable. Retry shortly.", undefined, { "Retry-After": "1" });

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
  private readonly reconnectListeners: (() => void)[] = [];

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
      enableAutoPipelining: true,
    });
    redis.defineCommand("slidingLog", { numberOfKeys: 1, lua: SLIDING_LOG });
    redis.defineCommand("versionedLog", { numberOfKeys: 2, lua: VERSIONED_LOG });
    redis.defineCommand("accountChange", { numberOfKeys: 2, lua: ACCOUNT_CHANGE });
    redis.defineCommand("allChanges", { numberOfKeys: 1, lua: ALL_CHANGES });
    redis.on("error", (error) => options.onError?.(error));
    // Every `ready` after the first is a reconnection: Redis may have restarted and lost (or
    // rolled back) the account versions, so whatever was validated against them is dropped.
    let connectedOnce = false;
    redis.on("ready", () => {
      if (connectedOnce) for (const listener of this.reconnectListeners) listener();
      connectedOnce = true;
    });
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
      throw UNAVAILABLE();
    }
    const [allowed, count, at, oldest] = reply;
    return { decision: decision(allowed === 1, limit, count, oldest === null ? undefined : Number(oldest), Number(at)), at: Number(at) };
  }

  /**
   * `admit` for `key` together with the change state of `accountId`, in one script (one round
   * trip); see VersionedMode for when it admits.
   */
  async admitVersioned(mode: VersionedMode, key: string, limit: number, accountId: string, expected = ""): Promise<VersionedDecision<RateDecision>> {
    const clock = this.options.clock;
    const now = clock.isTestClock ? String(clock.now()) : "";
    const expireMs = clock.isTestClock ? 3_600_000 : 1000;
    let reply: [number, number, string, string | null, string, number];
    try {
      reply = await this.redis.versionedLog(
        this.prefix + key,
        this.stateKey(accountId),
        limit,
        now,
        `${this.instanceId}:${++this.seq}`,
        expireMs,
        mode,
        expected,
        randomBytes(6).toString("hex"),
      );
    } catch {
      throw UNAVAILABLE();
    }
    const [allowed, count, at, oldest, version, pending] = reply;
    const state = { version, pending: pending > 0 };
    if (allowed === -1) return state;
    return { ...state, decision: decision(allowed === 1, limit, count, oldest === null ? undefined : Number(oldest), Number(at)) };
  }

  /** Records that a change of the account begins (before its commit) or ended (after it). */
  async accountChange(accountId: string, phase: "begin" | "end"): Promise<void> {
    try {
      await this.redis.accountChange(this.stateKey(accountId), this.allKey(), phase === "begin" ? 1 : -1, randomBytes(6).toString("hex"));
    } catch {
      throw UNAVAILABLE();
    }
  }

  /** The change state of every account together: a version moved by every change's begin and end, and whether any is in flight. */
  async allChanges(): Promise<{ version: string; pending: boolean }> {
    try {
      const [version, pending] = await this.redis.allChanges(this.allKey(), randomBytes(6).toString("hex"));
      return { version, pending: pending > 0 };
    } catch {
      throw UNAVAILABLE();
    }
  }

  /** Calls `listener` whenever the connection to Redis was lost and is back. */
  onReconnect(listener: () => void): void {
    this.reconnectListeners.push(listener);
  }

  private allKey(): string {
    return `${this.prefix}acct-all`;
  }

  private stateKey(accountId: string): string {
    return `${this.prefix}acct:${accountId}`;
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
