/**
 * The API gate's key cache (src/metering/key-cache.ts) and the signing-key lease
 * (src/accounts/versions.ts): two "instances" (each its own Redis client, caches and services)
 * on one store and one real Redis. A cached key costs no store read, a leased signing key not
 * even a Redis one; a change made through either instance is seen by the other on its very next
 * request, also when recording the end of the change in Redis fails, and a Redis reconnection
 * drops what was validated against the old Redis. Runs on the store OG_TEST_STORE names.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { AccountService } from "../../../src/accounts/accounts.ts";
import { AccountBoundCache, type AccountVersions } from "../../../src/accounts/versions.ts";
import { KeyCache } from "../../../src/metering/key-cache.ts";
import type { RateDecision } from "../../../src/metering/rate-limit.ts";
import { TestClock } from "../../../src/clock.ts";
import { RedisRateLimiter } from "../../../src/metering/redis-rate-limit.ts";
import { SigningKeyService } from "../../../src/signing/keys.ts";
import type { SigningKeyOwner } from "../../../src/store/types.ts";
import { redisAvailable, startRedis, type RedisServer } from "../../support/redis.ts";
import { openTestStore } from "../../support/stores.ts";
import { waitFor } from "../../support/wait.ts";

const maybe = redisAvailable() || process.env.CI === "true" ? describe : describe.skip;

maybe("key cache validated by the rate limit's Redis round trip", () => {
  let redis: RedisServer;
  const limiters: RedisRateLimiter[] = [];
  const caches: AccountBoundCache<SigningKeyOwner>[] = [];
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    for (const c of caches) c.close();
    for (const l of limiters) await l.close();
    await redis.stop();
  });

  async function cluster(versions?: (limiter: RedisRateLimiter) => AccountVersions<RateDecision>) {
    const store = await openTestStore();
    const clock = new TestClock(Date.UTC(2031, 0, 1));
    const prefix = `t${Math.random().toString(36).slice(2)}:`;
    const make = () => {
      const limiter = new RedisRateLimiter({ url: redis.url, clock: new TestClock(0), prefix });
      limiters.push(limiter);
      const counter = { reads: 0 };
      const cache = new KeyCache(versions ? versions(limiter) : limiter, (hash) => {
        counter.reads++;
        return store.findAccountByKeyHash(hash);
      });
      const signingCounter = { reads: 0 };
      const signingCache = new AccountBoundCache<SigningKeyOwner>(
        versions ? versions(limiter) : limiter,
        (id) => {
          signingCounter.reads++;
          return store.findSigningKey(id);
        },
        (owner) => owner.account.id,
      );
      caches.push(signingCache);
      return {
        limiter,
        cache,
        counter,
        signingCounter,
        signingCache,
        accounts: new AccountService(store, clock, cache),
        signingKeys: new SigningKeyService(store, clock, signingCache),
      };
    };
    return { store, a: make(), b: make() };
  }

  test("a key's first two requests read the store; every later one makes no store call and still takes its rate decision", async () => {
    const { a } = await cluster();
    const { apiKey, account } = await a.accounts.create({ email: "k@example.com", plan: "custom", quota: 100, requestsPerSecond: 1000 });
    expect((await a.accounts.admitKey(apiKey))?.account.id).toBe(account.id);
    expect((await a.accounts.admitKey(apiKey))?.account.id).toBe(account.id);
    expect(a.counter.reads).toBe(2);
    for (let i = 0; i < 20; i++) {
      const admitted = await a.accounts.admitKey(apiKey);
      expect(admitted?.decision).toMatchObject({ allowed: true, limit: 1000 });
    }
    expect(a.counter.reads).toBe(2);
    expect(await a.accounts.admitKey(`og_${"x".repeat(32)}`)).toBeUndefined();
  });

  test("the cached decision is the shared window's: the rate holds across both instances", async () => {
    const { a, b } = await cluster();
    const { apiKey } = await a.accounts.create({ email: "r@example.com", plan: "custom", quota: 100, requestsPerSecond: 3 });
    // The limiters run on a test clock standing at 0, so every admission falls in one window.
    const allowed: boolean[] = [];
    for (let i = 0; i < 8; i++) allowed.push((await (i % 2 ? a : b).accounts.admitKey(apiKey))!.decision!.allowed);
    expect(allowed.filter(Boolean).length).toBe(3);
  });

  test("key replaced on A: B, which cached the old key, refuses it on its very next request; the new key works on B", async () => {
    const { a, b } = await cluster();
    const { apiKey, account } = await a.accounts.create({ email: "x@example.com", plan: "custom", quota: 100, requestsPerSecond: 1000 });
    for (let i = 0; i < 3; i++) await b.accounts.admitKey(apiKey);
    const readsBefore = b.counter.reads;
    await b.accounts.admitKey(apiKey);
    expect(b.counter.reads).toBe(readsBefore);
    const fresh = await a.accounts.replaceKey(account.id);
    expect(await b.accounts.admitKey(apiKey)).toBeUndefined();
    expect((await b.accounts.admitKey(fresh))?.account.id).toBe(account.id);
  });

  test("plan and status changed on A: B's very next request sees the new rate and status", async () => {
    const { a, b } = await cluster();
    const { apiKey, account } = await a.accounts.create({ email: "p@example.com", plan: "custom", quota: 100, requestsPerSecond: 1000 });
    for (let i = 0; i < 3; i++) await b.accounts.admitKey(apiKey);
    await a.accounts.update(account.id, { plan: "starter" });
    const after = await b.accounts.admitKey(apiKey);
    expect(after?.account.plan).toBe("starter");
    expect(after?.decision?.limit).toBe(5);
    await a.accounts.update(account.id, { status: "canceled" });
    expect((await b.accounts.admitKey(apiKey))?.account.status).toBe("canceled");
    // Once the change has ended, B caches again: two reads to validate, then none.
    await b.accounts.admitKey(apiKey);
    const reads = b.counter.reads;
    await b.accounts.admitKey(apiKey);
    await b.accounts.admitKey(apiKey);
    expect(b.counter.reads).toBe(reads);
  });

  test("the end of a change lost on its way to Redis: nobody trusts a cached entry of that account until it lands", async () => {
    let loseEnds = true;
    const { a, b } = await cluster((limiter) => ({
      admitVersioned: (...args) => limiter.admitVersioned(...args),
      allChanges: () => limiter.allChanges(),
      onReconnect: (listener) => limiter.onReconnect(listener),
      accountChange: async (accountId, phase) => {
        if (phase === "end" && loseEnds) throw new Error("injected: Redis did not take the end");
        return limiter.accountChange(accountId, phase);
      },
    }));
    const { apiKey, account } = await a.accounts.create({ email: "l@example.com", plan: "custom", quota: 100, requestsPerSecond: 1000 });
    for (let i = 0; i < 3; i++) await b.accounts.admitKey(apiKey);
    await a.accounts.update(account.id, { plan: "pro" });
    const reads = b.counter.reads;
    for (let i = 0; i < 3; i++) expect((await b.accounts.admitKey(apiKey))?.account.plan).toBe("pro");
    expect(b.counter.reads).toBe(reads + 3);
    // A second change while the first one's end is still missing: seen at once as well.
    await a.accounts.update(account.id, { plan: "starter" });
    expect((await b.accounts.admitKey(apiKey))?.account.plan).toBe("starter");
    // The end lands (retried in the background): caching resumes.
    loseEnds = false;
    await waitFor(async () => {
      const before = b.counter.reads;
      await b.accounts.admitKey(apiKey);
      await b.accounts.admitKey(apiKey);
      return b.counter.reads === before;
    }, "B caching the account again once the ends landed");
  });

  test("Redis restarted (its versions lost): every entry is dropped on reconnection and read again", async () => {
    const { a, b } = await cluster();
    const { apiKey, account } = await a.accounts.create({ email: "z@example.com", plan: "custom", quota: 100, requestsPerSecond: 1000 });
    for (let i = 0; i < 3; i++) await b.accounts.admitKey(apiKey);
    expect(b.cache.size).toBe(1);
    await redis.stop();
    await expect(b.accounts.admitKey(apiKey)).rejects.toMatchObject({ code: "SERVICE_UNAVAILABLE" });
    await redis.start();
    await waitFor(() => b.cache.size === 0, "B dropping its entries after reconnecting");
    await waitFor(async () => (await a.accounts.admitKey(apiKey).catch(() => undefined)) !== undefined, "A answering again");
    await a.accounts.update(account.id, { plan: "pro" });
    expect((await b.accounts.admitKey(apiKey))?.account.plan).toBe("pro");
  });

  test("a change whose begin Redis does not take does not run", async () => {
    const { a, store } = await cluster((limiter) => ({
      admitVersioned: (...args) => limiter.admitVersioned(...args),
      allChanges: () => limiter.allChanges(),
      onReconnect: (listener) => limiter.onReconnect(listener),
      accountChange: async () => {
        throw new Error("injected: Redis unavailable");
      },
    }));
    const { account } = await new AccountService(store, new TestClock(0)).create({ email: "b@example.com", plan: "starter" });
    await expect(a.accounts.update(account.id, { plan: "pro" })).rejects.toThrow("injected");
    expect((await store.getAccount(account.id))?.plan).toBe("starter");
  });

  test("signing keys: a resolution is kept and validated by one Redis read; deleted or its account canceled on A, B sees it at once", async () => {
    const { a, b } = await cluster();
    const { account } = await a.accounts.create({ email: "s@example.com", plan: "custom", quota: 100, requestsPerSecond: 1000 });
    const signing = await a.signingKeys.create(account.id);
    const other = await a.signingKeys.create(account.id);
    for (let i = 0; i < 2; i++) expect((await b.signingKeys.resolve(signing.id))?.key.secret).toBe(signing.secret);
    const reads = b.signingCounter.reads;
    for (let i = 0; i < 5; i++) expect((await b.signingKeys.resolve(signing.id))?.account.id).toBe(account.id);
    expect(b.signingCounter.reads).toBe(reads);
    // Once B holds a lease (no change in flight, none since the entry was read), a resolution
    // asks neither the store nor Redis.
    await waitFor(async () => {
      const checks = b.signingCache.checks;
      await b.signingKeys.resolve(signing.id);
      return b.signingCache.checks === checks;
    }, "B serving the signing key under its lease");
    const checks = b.signingCache.checks;
    for (let i = 0; i < 5; i++) await b.signingKeys.resolve(signing.id);
    expect(b.signingCache.checks).toBe(checks);
    expect(b.signingCounter.reads).toBe(reads);
    await a.accounts.update(account.id, { status: "canceled" });
    expect((await b.signingKeys.resolve(signing.id))?.account.status).toBe("canceled");
    await b.signingKeys.resolve(other.id);
    await b.signingKeys.resolve(other.id);
    await a.signingKeys.delete(account.id, other.id);
    expect(await b.signingKeys.resolve(other.id)).toBeUndefined();
    expect((await b.signingKeys.resolve(signing.id))?.key.id).toBe(signing.id);
  });

  test("signing keys with Redis down: resolved from the store (public URLs need no rate limit), and a change cannot commit meanwhile", async () => {
    const { a, b } = await cluster();
    const { account } = await a.accounts.create({ email: "d@example.com", plan: "custom", quota: 100, requestsPerSecond: 1000 });
    const signing = await a.signingKeys.create(account.id);
    for (let i = 0; i < 3; i++) await b.signingKeys.resolve(signing.id);
    await redis.stop();
    try {
      // Its lease runs out (its renewals fail); then every resolution reads the store.
      await waitFor(async () => {
        const reads = b.signingCounter.reads;
        expect((await b.signingKeys.resolve(signing.id))?.key.id).toBe(signing.id);
        return b.signingCounter.reads === reads + 1;
      }, "B reading the store once its lease ran out");
      await expect(a.signingKeys.delete(account.id, signing.id)).rejects.toMatchObject({ code: "SERVICE_UNAVAILABLE" });
      expect((await b.signingKeys.resolve(signing.id))?.key.id).toBe(signing.id);
    } finally {
      await redis.start();
    }
  });
});
