/**
 * Several instances: three `ogsmith serve` processes (child processes of `bun src/main.ts
 * serve`) on one throwaway PostgreSQL and one throwaway Redis, all on loopback, started here.
 * They must behave as one service: exact quota, one exact per-second window per key, every
 * committed event delivered when an instance is killed, key replacement seen everywhere at
 * once, and recovery without a restart when Redis or PostgreSQL come back.
 *
 * Real time, not the test clock: the rate limit here is decided on Redis's own clock.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Subprocess } from "bun";
import postgres from "postgres";

import { eventBody } from "../support/harness.ts";
import { postgresAvailable, startPostgres, testDatabaseUrl, type PostgresServer } from "../support/postgres.ts";
import { spawnServe } from "../support/process.ts";
import { startReceiver, type TestReceiver } from "../support/receiver.ts";
import { redisAvailable, startRedis, type RedisServer } from "../support/redis.ts";
import { waitFor } from "../support/wait.ts";

const ADMIN = "cluster-test-admin-token-0123456789";
const SECRET = "cluster-secret-0123456789abcdef";
const available = postgresAvailable() && redisAvailable();
if (!available) console.warn("PostgreSQL or redis-server is not installed: the cluster tests skip (apt-get install postgresql redis-server)");
const maybe = available || process.env.CI === "true" ? describe : describe.skip;

interface Instance {
  proc: Subprocess<"ignore", "pipe", "pipe">;
  url: string;
}

/** Kills the children still running and waits for them, then stops the services they used, in order. */
async function stopAll(children: Subprocess[], ...services: ({ stop(): Promise<unknown> } | undefined)[]): Promise<void> {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  await Promise.all(children.map((c) => c.exited));
  for (const service of services) await service?.stop();
}

maybe("three instances on one PostgreSQL and one Redis", () => {
  let pg: PostgresServer;
  let redis: RedisServer;
  let databaseUrl: string;
  let receiver: TestReceiver;
  const instances: Instance[] = [];
  const children: Subprocess[] = [];

  async function spawnInstance(): Promise<Instance> {
    const env = { OG_DATABASE_URL: databaseUrl, OG_REDIS_URL: redis.url, OG_TEST_CLOCK: "0" };
    return spawnServe({ adminToken: ADMIN, env, children, timeoutMs: 60_000 });
  }

  const admin = (url: string, path: string, json?: unknown) =>
    fetch(url + path, {
      method: json === undefined ? "GET" : "POST",
      headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
      body: json === undefined ? undefined : JSON.stringify(json),
    });
  const api = (url: string, key: string, path: string, json?: unknown) =>
    fetch(url + path, {
      method: json === undefined ? "GET" : "POST",
      headers: { "x-api-key": key, "content-type": "application/json" },
      body: json === undefined ? undefined : JSON.stringify(json),
    });
  const createAccount = async (body: Record<string, unknown>) => {
    const res = await admin(instances[0]!.url, "/admin/accounts", { email: `c${Math.random().toString(36).slice(2)}@example.com`, ...body });
    expect(res.status).toBe(201);
    const created = await res.json();
    return { accountId: created.account_id as string, key: created.api_key as string };
  };
  /** Polls `probe` until it holds (real time deadline); returns its last value. */
  async function until<T>(probe: () => Promise<T>, ok: (value: T) => boolean, what: string, timeoutMs = 20_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await probe().catch(() => undefined as T);
      if (value !== undefined && ok(value)) return value;
      if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
      await Bun.sleep(50);
    }
  }

  beforeAll(async () => {
    [pg, redis, receiver] = await Promise.all([startPostgres(), startRedis(), startReceiver()]);
    databaseUrl = await testDatabaseUrl(pg);
    // All three at once: migrations run under an advisory lock, once.
    instances.push(...(await Promise.all([spawnInstance(), spawnInstance(), spawnInstance()])));
  }, 120_000);

  afterAll(() => stopAll(children, receiver, redis, pg));

  test("three instances starting at once migrated once; /readyz reports the store and Redis", async () => {
    const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
    try {
      const rows = await sql`select hash from drizzle.__drizzle_migrations`;
      const { migrationJournal } = await import("../../src/store/postgres/migrations.ts");
      expect(rows.length).toBe(migrationJournal.entries.length);
    } finally {
      await sql.end();
    }
    for (const instance of instances) {
      const ready = await fetch(instance.url + "/readyz");
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({ status: "ready", store: "ok", store_kind: "postgres", redis: "ok" });
    }
  });

  test("200 concurrent generates spread over the three against 10 remaining units: exactly 10", async () => {
    const { key } = await createAccount({ plan: "custom", quota: 10, requests_per_second: 10_000 });
    const responses = await Promise.all(
      Array.from({ length: 200 }, (_, i) => api(instances[i % 3]!.url, key, "/api/generate", eventBody({ title: "Cluster quota" }))),
    );
    const statuses = await Promise.all(
      responses.map(async (res) => {
        const body = res.status === 200 ? null : await res.json();
        if (res.status === 200) await res.arrayBuffer();
        return res.status === 200 ? "ok" : body.code;
      }),
    );
    expect(statuses.filter((s) => s === "ok").length).toBe(10);
    expect(statuses.filter((s) => s !== "ok").every((s) => s === "QUOTA_EXCEEDED")).toBe(true);
    for (const instance of instances) expect((await (await api(instance.url, key, "/api/user/usage")).json()).used).toBe(10);
  }, 60_000);

  test("a starter key (5/s) hammered through all three at 3x its rate: no 1-second window over 5, no refusal without 5 in its second", async () => {
    const { key } = await createAccount({ plan: "starter" });
    const admitted: { sent: number; received: number }[] = [];
    const refused: { sent: number; received: number }[] = [];
    const inFlight: Promise<void>[] = [];
    const start = performance.now();
    const durationMs = 4_000;
    const intervalMs = 1000 / 15;
    for (let i = 0; ; i++) {
      const due = start + i * intervalMs;
      if (due - start >= durationMs) break;
      const wait = due - performance.now();
      if (wait > 0) await Bun.sleep(wait); // pacing the load generator, not waiting for a result
      const sent = performance.now();
      inFlight.push(
        api(instances[i % 3]!.url, key, "/api/user/usage").then(async (res) => {
          await res.arrayBuffer();
          if (res.status === 200) admitted.push({ sent, received: performance.now() });
          else if (res.status === 429) refused.push({ sent, received: performance.now() });
          else throw new Error(`unexpected status ${res.status}`);
        }),
      );
    }
    await Promise.all(inFlight);
    // Each admission was decided between its request's send and its response's arrival. An exact
    // limit means any 6 admissions span at least 1000 ms of decisions, so the latest response
    // among them arrived at least 1000 ms after the earliest request among them was sent.
    admitted.sort((a, b) => a.sent - b.sent);
    for (let i = 0; i + 5 < admitted.length; i++) {
      const six = admitted.slice(i, i + 6);
      const span = Math.max(...six.map((a) => a.received)) - six[0]!.sent;
      expect(span).toBeGreaterThanOrEqual(1000);
    }
    // Nor does it admit too few: a refusal is decided (between its send and its response) when
    // the second before holds 5 admissions, each decided between its own send and response. So
    // at least 5 admissions overlap [refusal sent − 1000 ms, refusal received]. Whatever delays
    // a loaded machine adds, this holds for an exact limit; it fails for one that counts its
    // refusals, or remembers admissions for longer than a second, once the load outlasts a second.
    expect(refused.length).toBeGreaterThan(0);
    for (const refusal of refused) {
      const inItsSecond = admitted.filter((a) => a.sent <= refusal.received && a.received > refusal.sent - 1000).length;
      expect(inItsSecond, `admissions that can fall in the second before the refusal sent at ${refusal.sent.toFixed(0)} ms`).toBeGreaterThanOrEqual(5);
    }
  }, 60_000);

  test("key replacement on A: the old key is refused on B and C in the very next request", async () => {
    const { accountId, key } = await createAccount({ plan: "custom", quota: 1000, requests_per_second: 1000 });
    for (const instance of instances) expect((await api(instance.url, key, "/api/user/usage")).status).toBe(200);
    const replaced = await admin(instances[0]!.url, `/admin/accounts/${accountId}/keys`, {});
    expect(replaced.status).toBe(201);
    const fresh = (await replaced.json()).api_key as string;
    for (const instance of instances.slice(1)) {
      const old = await api(instance.url, key, "/api/user/usage");
      expect(old.status).toBe(401);
      expect((await old.json()).code).toBe("INVALID_API_KEY");
      expect((await api(instance.url, fresh, "/api/user/usage")).status).toBe(200);
    }
  });

  test("kill -9 of one instance in the middle of traffic: used equals the 200s, every image.generated of them arrives, its reserved units come back", async () => {
    const { accountId, key } = await createAccount({ plan: "custom", quota: 100_000, requests_per_second: 10_000 });
    receiver.respond({ status: 200 }, "/cluster");
    const hook = await api(instances[0]!.url, key, "/api/webhooks", { url: receiver.url("/cluster"), events: ["image.generated"], secret: SECRET });
    expect(hook.status).toBe(201);

    const victim = instances[2]!;
    const okRequestIds: string[] = [];
    let otherOutcomes = 0;
    const fire = async (i: number) => {
      const target = instances[i % 3]!;
      try {
        // The victim's share is all distinct titles, so it dies with renders (and their reserved units) in flight.
        const res = await api(target.url, key, "/api/generate", eventBody({ title: `Cluster crash ${i % 3 === 2 ? `distinct ${i}` : i % 7}` }));
        await res.arrayBuffer();
        if (res.status === 200) okRequestIds.push(res.headers.get("x-request-id")!);
        else otherOutcomes++;
      } catch {
        otherOutcomes++; // the killed instance's connections die with it
      }
    };
    // The survivors' titles are rendered (and cached) before the wave, so during it only the
    // victim renders: any unit held reserved at the kill is the victim's.
    for (let t = 0; t < 7; t++) {
      for (const survivor of [instances[0]!, instances[1]!]) {
        const res = await api(survivor.url, key, "/api/generate", eventBody({ title: `Cluster crash ${t}` }));
        await res.arrayBuffer();
        if (res.status === 200) okRequestIds.push(res.headers.get("x-request-id")!);
      }
    }
    const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
    const held = async () => Number((await sql`select coalesce(sum(count), 0)::int as n from unit_reservations where account_id = ${accountId}`)[0]!.n);
    const firstWave = Promise.all(Array.from({ length: 60 }, (_, i) => fire(i)));
    // Kill once some of the wave has been answered, while the victim holds reserved units for
    // renders still in flight.
    await until(
      async () => [okRequestIds.length, await held()] as const,
      ([n, units]) => n >= 15 && units > 0,
      "answers, and the victim rendering",
      60_000,
    );
    victim.proc.kill("SIGKILL");
    await victim.proc.exited;
    await firstWave;
    // The kill cut requests in flight (the victim held units for them): the case under test.
    expect(otherOutcomes).toBeGreaterThan(0);
    // More traffic on the survivors after the death.
    await Promise.all(Array.from({ length: 30 }, (_, i) => fire(i * 3 + (i % 2))));

    const usage = await (await api(instances[0]!.url, key, "/api/user/usage")).json();
    expect(usage.used).toBe(okRequestIds.length);
    const delivered = () => new Set(receiver.events("/cluster").map((e) => e.data.request_id as string));
    await receiver.waitFor(() => okRequestIds.every((id) => delivered().has(id)), "every image.generated of the 200s delivered", 40_000);
    expect(okRequestIds.length).toBeGreaterThan(15);
    // Units the victim had reserved for renders in flight are given back by a survivor once its
    // liveness lock is gone: nothing stays reserved, so the account loses no quota.
    try {
      const reserved = await until(
        async () => Number((await sql`select coalesce(sum(reserved), 0)::int as n from usage_periods where account_id = ${accountId}`)[0]!.n),
        (n) => n === 0,
        "the killed instance's reservations to be given back",
      );
      expect(reserved).toBe(0);
      expect(await held()).toBe(0);
    } finally {
      await sql.end();
    }
    instances.splice(2, 1); // the survivors carry on in the next tests
  }, 90_000);

  test("Redis stopped: 503 SERVICE_UNAVAILABLE and nothing counted; Redis back: recovery without a restart", async () => {
    const { key } = await createAccount({ plan: "custom", quota: 1000, requests_per_second: 1000 });
    await redis.stop();
    for (const instance of instances) {
      const res = await api(instance.url, key, "/api/generate", eventBody({ title: "Redis is down" }));
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({ error: true, code: "SERVICE_UNAVAILABLE" });
      // /readyz answers from a check at most a second old.
      await until(
        () => fetch(instance.url + "/readyz"),
        (res) => res.status === 503,
        "/readyz to see Redis gone",
      );
    }
    await redis.start();
    for (const instance of instances) {
      await until(
        () => api(instance.url, key, "/api/user/usage"),
        (res) => res.status === 200,
        "the API back after Redis returned",
      );
      expect((await (await api(instance.url, key, "/api/user/usage")).json()).used).toBe(0);
      await until(
        () => fetch(instance.url + "/readyz"),
        (res) => res.status === 200,
        "/readyz to see Redis back",
      );
    }
  }, 60_000);

  test("PostgreSQL restarted: 503 while it is down, then recovery without a restart", async () => {
    const { key } = await createAccount({ plan: "custom", quota: 1000, requests_per_second: 1000 });
    await pg.stop();
    for (const instance of instances) {
      const res = await api(instance.url, key, "/api/user/usage");
      expect(res.status).toBe(503);
      expect((await res.json()).code).toBe("SERVICE_UNAVAILABLE");
    }
    await pg.start();
    for (const instance of instances) {
      await until(
        () => api(instance.url, key, "/api/generate", eventBody({ title: "PostgreSQL is back" })),
        (res) => res.status === 200,
        "generation after PostgreSQL returned",
      );
      await until(
        () => fetch(instance.url + "/readyz"),
        (res) => res.status === 200,
        "/readyz to see PostgreSQL back",
      );
    }
    const used = (await (await api(instances[0]!.url, key, "/api/user/usage")).json()).used;
    expect(used).toBeGreaterThanOrEqual(instances.length);
  }, 90_000);
});

maybe("the test clock shared by two instances (A: OG_ROLE=api, B: OG_ROLE=all)", () => {
  let pg: PostgresServer;
  let redis: RedisServer;
  let receiver: TestReceiver;
  const children: Subprocess[] = [];
  const urls: string[] = [];

  beforeAll(async () => {
    [pg, redis, receiver] = await Promise.all([startPostgres(), startRedis(), startReceiver()]);
    const databaseUrl = await testDatabaseUrl(pg);
    const spawn = async (role: string) => {
      const env = { OG_DATABASE_URL: databaseUrl, OG_REDIS_URL: redis.url, OG_TEST_CLOCK: "1", OG_ROLE: role };
      return (await spawnServe({ adminToken: ADMIN, env, children, timeoutMs: 60_000 })).url;
    };
    urls.push(...(await Promise.all([spawn("api"), spawn("all")])));
  }, 120_000);

  afterAll(() => stopAll(children, receiver, redis, pg));

  const call = (url: string, path: string, init: { key?: string; json?: unknown; admin?: boolean } = {}) =>
    fetch(url + path, {
      method: init.json === undefined ? "GET" : "POST",
      headers: {
        "content-type": "application/json",
        ...(init.key ? { "x-api-key": init.key } : {}),
        ...(init.admin ? { authorization: `Bearer ${ADMIN}` } : {}),
      },
      body: init.json === undefined ? undefined : JSON.stringify(init.json),
    });
  const clockOf = async (url: string) => Date.parse((await (await call(url, "/admin/clock", { admin: true })).json()).now);

  test("one clock: both start on it, an advance on B moves A too and runs the retry that became due before answering; A's event is attempted by B", async () => {
    const [a, b] = urls as [string, string];
    expect(await clockOf(a)).toBe(await clockOf(b));

    const created = await (await call(a, "/admin/accounts", { admin: true, json: { email: "clock@example.com", plan: "pro" } })).json();
    const key = created.api_key as string;
    receiver.respond({ status: 500 }, "/clock");
    const hook = await call(a, "/api/webhooks", { key, json: { url: receiver.url("/clock"), events: ["image.generated"], secret: SECRET } });
    expect(hook.status).toBe(201);
    const hookId = (await hook.json()).id as string;
    const gen = await call(a, "/api/generate", { key, json: eventBody({ title: "Clock" }) });
    expect(gen.status).toBe(200);
    await gen.arrayBuffer();
    // A runs no jobs (OG_ROLE=api): the event committed on A gets its first attempt from B,
    // woken by NOTIFY. It fails; the retry is due in 1 min.
    await receiver.waitForCount(1, "/clock");
    receiver.respond({ status: 200 }, "/clock");
    // The receiver sees the attempt before B records its outcome: wait until the retry is
    // scheduled, so the advance below finds it due rather than still in flight.
    await waitFor(
      async () => {
        const log = await (await call(a, `/api/webhooks/${hookId}/deliveries`, { key })).json();
        return (log.data ?? []).some((attempt: { next_attempt_at: string | null }) => attempt.next_attempt_at !== null);
      },
      "the first attempt's retry to be scheduled",
      // Polled with the account's key: slowly enough to stay inside the plan's rate limit.
      { intervalMs: 250 },
    );

    const before = await clockOf(a);
    // The child processes run the real jitter (±20 % of 1 min): 73 s is past the latest retry.
    const advanced = await call(b, "/admin/clock/advance", { admin: true, json: { seconds: 73 } });
    expect(advanced.status).toBe(200);
    const now = Date.parse((await advanced.json()).now);
    expect(now).toBe(before + 73_000);
    // The retry ran, cluster-wide, before the advance answered.
    expect(receiver.at("/clock").length).toBe(2);
    // The other instance follows the shared clock (it hears the move by NOTIFY).
    await waitFor(async () => (await clockOf(a)) === now, "the other instance to follow the shared clock", { intervalMs: 20 });
    expect(await clockOf(a)).toBe(now);
  }, 60_000);
});
