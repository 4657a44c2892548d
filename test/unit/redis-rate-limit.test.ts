/**
 * The shared rate limit against a real redis-server on loopback (started by the test, no
 * persistence): exact under concurrent calls from several clients (as several instances would
 * be), the same numbers as the in-memory log, 503 while Redis is down and recovery when it is back.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";

import { systemClock, TestClock } from "../../src/clock.ts";
import { ApiError } from "../../src/errors.ts";
import { RedisRateLimiter } from "../../src/metering/redis-rate-limit.ts";
import { redisAvailable, startRedis, type RedisServer } from "../support/redis.ts";
import { waitFor } from "../support/wait.ts";

const maybe = redisAvailable() || process.env.CI === "true" ? describe : describe.skip;
if (!redisAvailable()) console.warn("redis-server is not installed: the Redis rate-limit tests skip (apt-get install redis-server)");

maybe("Redis sliding log", () => {
  let redis: RedisServer;
  const limiters: RedisRateLimiter[] = [];
  const limiter = (clock = systemClock as TestClock | typeof systemClock, prefix = `t${Math.random().toString(36).slice(2)}:`) => {
    const l = new RedisRateLimiter({ url: redis.url, clock, prefix });
    limiters.push(l);
    return l;
  };

  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    for (const l of limiters) await l.close();
    await redis?.stop();
  });

  test("several clients hammering one key concurrently: no 1-second window admits more than the rate", async () => {
    const prefix = "shared:";
    const clients = [limiter(systemClock, prefix), limiter(systemClock, prefix), limiter(systemClock, prefix)];
    const rate = 5;
    const admittedAt: number[] = [];
    const refusedAt: number[] = [];
    // Load for 2.2 s of Redis time: 3 clients × 4 concurrent loops, as fast as they can.
    const until = Date.now() + 2200;
    await Promise.all(
      clients.flatMap((client) =>
        Array.from({ length: 4 }, async () => {
          while (Date.now() < until) {
            const { decision, at } = await client.admitTimed("key-a", rate);
            (decision.allowed ? admittedAt : refusedAt).push(at);
          }
        }),
      ),
    );
    admittedAt.sort((a, b) => a - b);
    expect(refusedAt.length).toBeGreaterThan(0); // the load really was over the rate
    for (const start of admittedAt) {
      expect(admittedAt.filter((t) => t >= start && t < start + 1000).length).toBeLessThanOrEqual(rate);
    }
    // Exact, not merely safe: every refusal came when the second before it, on the decisions'
    // own (Redis) clock, held the whole rate. Unlike a count of admissions in 2.2 s, this does not
    // depend on how often a loaded machine let the loops ask.
    for (const t of refusedAt) {
      expect(admittedAt.filter((a) => a > t - 1000 && a <= t).length, `admissions in the second before the refusal at ${t}`).toBe(rate);
    }
  });

  test("the same numbers as the in-memory log, on the service's test clock", async () => {
    const clock = new TestClock(0);
    const l = limiter(clock);
    expect(await l.admit("k", 2)).toEqual({ allowed: true, limit: 2, remaining: 1, resetSeconds: 0 });
    await clock.advance(0.4);
    expect(await l.admit("k", 2)).toEqual({ allowed: true, limit: 2, remaining: 0, resetSeconds: 1 });
    expect(await l.admit("k", 2)).toEqual({ allowed: false, limit: 2, remaining: 0, resetSeconds: 1 });
    await clock.advance(0.6); // the first admission (t=0) leaves the window at t=1000
    expect((await l.admit("k", 2)).allowed).toBe(true);
    expect((await l.admit("other", 2)).remaining).toBe(1);
  });

  test("on the test clock, a standing clock keeps the window shut however long real time passes", async () => {
    const clock = new TestClock(5_000_000);
    const l = limiter(clock);
    expect((await l.admit("k", 1)).allowed).toBe(true);
    // The log outlives real seconds when the clock is the test clock (its expiry is not 1 s).
    const ttl = await (l as unknown as { redis: { pttl(k: string): Promise<number> } }).redis.pttl((l as unknown as { prefix: string }).prefix + "k");
    expect(ttl).toBeGreaterThan(60_000);
    expect((await l.admit("k", 1)).allowed).toBe(false);
  });

  test("Redis down: SERVICE_UNAVAILABLE, nothing counted; back up: the limit works again without a new client", async () => {
    const clock = new TestClock(10_000_000);
    const l = limiter(clock);
    expect((await l.admit("k", 2)).allowed).toBe(true);
    await redis.stop();
    const error = await l.admit("k", 2).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe("SERVICE_UNAVAILABLE");
    expect((error as ApiError).status).toBe(503);
    await redis.start(); // an empty Redis: the log restarts from nothing
    let first: Awaited<ReturnType<RedisRateLimiter["admit"]>> | null = null;
    await waitFor(async () => (first = await l.admit("k", 2).catch(() => null)) !== null, "the limiter to recover once Redis is back", { intervalMs: 50 });
    expect(first!.allowed).toBe(true);
    expect((await l.admit("k", 2)).allowed).toBe(true);
    expect((await l.admit("k", 2)).allowed).toBe(false);
    expect(await l.ready()).toBe(true);
  });
});
