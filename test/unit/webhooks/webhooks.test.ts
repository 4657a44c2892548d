/**
 * Webhook core, in process: signatures against independent implementations, the envelope bytes,
 * input checks, the address guard at registration and at delivery (no connection outside
 * loopback, ever), the job table's retry schedule (fixed or computed per attempt) and leases,
 * the sender's Retry-After, and lane fairness.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sign as signOctokit, verify as verifyOctokit } from "@octokit/webhooks-methods";
import { Webhook } from "standardwebhooks";
import { TestClock } from "../../../src/clock.ts";
import { envelopeBody } from "../../../src/events/envelope.ts";
import { JobQueue, type JobOutcome } from "../../../src/events/jobs.ts";
import { deliveryHeaders, ogSignature, standardSignature } from "../../../src/events/signing.ts";
import { silentLogger } from "../../../src/logger.ts";
import { WebhookSender } from "../../../src/webhooks/delivery.ts";
import { RETRY_SCHEDULE } from "../../../src/webhooks/delivery-job.ts";
import { checkWebhookInput } from "../../../src/webhooks/input.ts";
import { WebhookService } from "../../../src/webhooks/service.ts";
import { DeliveryLog } from "../../../src/webhooks/delivery-log.ts";
import { JobRunner } from "../../../src/worker/runner.ts";
import { openSqliteStore } from "../../../src/store/sqlite/index.ts";
import type { Store } from "../../../src/store/types.ts";
import { fakeResolver, listenTcp, loopbackOnly, type TcpFixture } from "../../support/loopback.ts";
import { startReceiver, type TestReceiver } from "../../support/receiver.ts";

const SECRET = "unit-secret-0123456789abcdef";

describe("signatures", () => {
  const body = envelopeBody({
    id: "evt_abc",
    type: "image.generated",
    data: '{"request_id":"req_1","template":"event"}',
    createdAt: Date.UTC(2030, 0, 2, 3, 4, 5, 678),
  });

  test("X-OG-Signature equals @octokit/webhooks-methods' sign and verifies with its verify", async () => {
    expect(ogSignature(SECRET, body)).toBe(await signOctokit(SECRET, body));
    expect(await verifyOctokit(SECRET, body, ogSignature(SECRET, body))).toBe(true);
    expect(ogSignature(SECRET, body)).toMatch(/^sha256=[0-9a-f]{64}$/);
  });

  test("webhook-signature equals standardwebhooks' sign, with the secret as raw bytes or as base64", () => {
    const at = new Date(Date.UTC(2030, 0, 2, 3, 4, 5));
    const seconds = Math.floor(at.getTime() / 1000);
    const ours = standardSignature(SECRET, "evt_abc", seconds, body);
    expect(ours).toBe(new Webhook(SECRET, { format: "raw" }).sign("evt_abc", at, body));
    expect(ours).toBe(new Webhook(Buffer.from(SECRET).toString("base64")).sign("evt_abc", at, body));
    expect(ours).toBe(new Webhook("whsec_" + Buffer.from(SECRET).toString("base64")).sign("evt_abc", at, body));
  });

  test("delivery headers carry both schemes over the same bytes", () => {
    const sentAt = Date.now();
    const h = deliveryHeaders({
      secret: SECRET,
      eventId: "evt_abc",
      eventType: "image.generated",
      deliveryId: "dlv_1",
      sentAt,
      body,
      userAgent: "ogsmith-webhooks/9.9.9",
    });
    expect(h).toEqual({
      "content-type": "application/json",
      "user-agent": "ogsmith-webhooks/9.9.9",
      "x-og-signature": ogSignature(SECRET, body),
      "x-og-event": "image.generated",
      "x-og-event-id": "evt_abc",
      "x-og-delivery": "dlv_1",
      "webhook-id": "evt_abc",
      "webhook-timestamp": String(Math.floor(sentAt / 1000)),
      "webhook-signature": standardSignature(SECRET, "evt_abc", Math.floor(sentAt / 1000), body),
    });
    expect(new Webhook(SECRET, { format: "raw" }).verify(body, h)).toMatchObject({ id: "evt_abc" });
  });

  test("non-ASCII secrets are keyed by their UTF-8 bytes in both schemes", async () => {
    const secret = "ünïcødé-secret-✓-0123";
    expect(await verifyOctokit(secret, body, ogSignature(secret, body))).toBe(true);
    const at = new Date(Date.UTC(2030, 0, 1));
    expect(standardSignature(secret, "evt_x", at.getTime() / 1000, body)).toBe(
      new Webhook(Buffer.from(secret, "utf8").toString("base64")).sign("evt_x", at, body),
    );
  });
});

describe("envelope", () => {
  test("{id, event, timestamp, data} with the stored data spliced in byte for byte", () => {
    const data = '{"b":1,"a":{"z":[1,2]},"s":"ü \\u2028"}';
    const body = envelopeBody({ id: "evt_1", type: "usage.warning", data, createdAt: Date.UTC(2031, 4, 6, 7, 8, 9, 10) });
    expect(body).toBe(`{"id":"evt_1","event":"usage.warning","timestamp":"2031-05-06T07:08:09.010Z","data":${data}}`);
    expect(JSON.parse(body)).toEqual({ id: "evt_1", event: "usage.warning", timestamp: "2031-05-06T07:08:09.010Z", data: JSON.parse(data) });
  });
});

describe("input checks", () => {
  const ok = { url: "https://example.com/hook", events: ["image.generated"], secret: SECRET };
  const fields = (input: object, mode: "create" | "update" = "create") => checkWebhookInput(input, mode).map((p) => p.field);

  test("valid input passes; every bad field is named", () => {
    expect(fields(ok)).toEqual([]);
    expect(fields({ ...ok, url: "javascript:alert(1)" })).toEqual(["url"]);
    expect(fields({ ...ok, url: "https://x.test/" + "a".repeat(2040) })).toEqual(["url"]);
    expect(fields({ ...ok, events: [] })).toEqual(["events"]);
    expect(fields({ ...ok, events: ["image.generated", "image.generated"] })).toEqual(["events.1"]);
    expect(fields({ ...ok, events: ["usage.reset", "webhook.test"] })).toEqual(["events.1"]);
    expect(fields({ ...ok, secret: "x".repeat(15) })).toEqual(["secret"]);
    expect(fields({ ...ok, secret: "x".repeat(256) })).toEqual([]);
    expect(fields({})).toEqual(["url", "events", "secret"]);
  });

  test("a body that is not a JSON object is one problem, and the service stores nothing", async () => {
    for (const body of [null, [], 5, "x", true]) expect(checkWebhookInput(body, "create")).toEqual([{ field: "body", message: "must be a JSON object" }]);
    const { webhooks, store } = await core({ allowPrivate: true });
    for (const body of [null, [ok], 5]) {
      const error = await webhooks.create("acc_1", body).catch((e) => e);
      expect({ code: error.code, fields: error.details?.map((d: { field: string }) => d.field) }).toEqual({ code: "VALIDATION_ERROR", fields: ["body"] });
    }
    expect(await store.listWebhooks("acc_1")).toEqual([]);
    const created = await webhooks.create("acc_1", ok);
    const error = await webhooks.update("acc_1", created.id, null).catch((e) => e);
    expect(error.code).toBe("VALIDATION_ERROR");
    expect((await webhooks.get("acc_1", created.id)).url).toBe(ok.url);
  });

  test("updates: secret optional, enabled boolean", () => {
    expect(fields({ url: ok.url, events: ok.events }, "update")).toEqual([]);
    expect(fields({ url: ok.url, events: ok.events, enabled: "true" }, "update")).toEqual(["enabled"]);
  });
});

/** An in-memory store with one account; the clock is a test clock. */
async function core(options: { allowPrivate: boolean; resolver?: ReturnType<typeof fakeResolver> }) {
  const store = await openSqliteStore(":memory:");
  const clock = new TestClock(Date.UTC(2030, 5, 1));
  const now = clock.now();
  await store.createAccount(
    { id: "acc_1", email: "a@example.com", plan: "pro", status: "active", customQuota: null, customRequestsPerSecond: null, createdAt: now, updatedAt: now },
    { id: "key_1", accountId: "acc_1", keyHash: "0".repeat(64), keyPrefix: "og_abcd", createdAt: now, revokedAt: null },
  );
  const fence = loopbackOnly();
  const sender = new WebhookSender({ allowPrivate: options.allowPrivate, resolver: options.resolver, transport: fence.transport });
  const webhooks = new WebhookService(store, clock, sender, new DeliveryLog(), { allowPrivate: options.allowPrivate, resolver: options.resolver });
  return { store, clock, sender, webhooks, fence };
}

describe("address guard", () => {
  let tcp: TcpFixture;
  beforeAll(async () => {
    tcp = await listenTcp();
  });
  afterAll(() => tcp.stop());

  test("registration refuses hosts that resolve into blocked ranges, by the guard's classification", async () => {
    const resolver = fakeResolver({
      "private.example": ["10.0.0.7"],
      "mixed.example": ["93.184.215.14", "192.168.1.2"],
      "metadata.example": ["169.254.169.254"],
      "cgnat.example": ["100.64.3.4"],
      "ula.example": ["fd12:3456::1"],
      "public.example": ["93.184.215.14"],
    });
    const { webhooks } = await core({ allowPrivate: false, resolver });
    for (const host of ["private.example", "mixed.example", "metadata.example", "cgnat.example", "ula.example"]) {
      const error = await webhooks.create("acc_1", { url: `https://${host}/hook`, events: ["usage.reset"], secret: SECRET }).catch((e) => e);
      expect({ host, code: error.code, fields: error.details?.map((d: any) => d.field) }).toEqual({ host, code: "VALIDATION_ERROR", fields: ["url"] });
    }
    // A public address registers (nothing is connected to at registration).
    const created = await webhooks.create("acc_1", { url: "https://public.example/hook", events: ["usage.reset"], secret: SECRET });
    expect(created.status).toBe("enabled");
    // A name that does not resolve today is accepted: it is checked again at every delivery.
    expect((await webhooks.create("acc_1", { url: "https://nxdomain.example/hook", events: ["usage.reset"], secret: SECRET })).status).toBe("enabled");
  });

  test("delivery refuses a blocked address before connecting (flag off), e.g. after DNS rebinding", async () => {
    const rebinding = fakeResolver({ "rebind.example": ["127.0.0.1"] });
    const { sender, fence } = await core({ allowPrivate: false, resolver: rebinding });
    const body = envelopeBody({ id: "evt_1", type: "image.generated", data: "{}", createdAt: 0 });
    for (const url of [`http://rebind.example:${tcp.port}/`, `http://127.0.0.1:${tcp.port}/`, `http://[::1]:${tcp.port}/`]) {
      const result = await sender.send({ url, secret: SECRET }, { eventId: "evt_1", eventType: "image.generated", body }, "dlv_1", 0);
      expect(result).toMatchObject({ delivered: false, statusCode: null, error: expect.stringContaining("blocked_address") });
    }
    expect(tcp.connections).toBe(0);
    expect(fence.attempts).toEqual([]);
    expect(fence.violations).toEqual([]);
  });
});

describe("job table", () => {
  let store: Store;
  let clock: TestClock;
  let queue: JobQueue;
  let real = 1_000_000;
  const outcomes: JobOutcome[] = [];
  const fresh = async () => {
    store = await openSqliteStore(":memory:");
    clock = new TestClock(Date.UTC(2030, 0, 1));
    queue = new JobQueue(store, clock, () => real);
    queue.register({ kind: "fake", retrySchedule: RETRY_SCHEDULE, perform: async () => outcomes.shift() ?? { ok: true } });
  };
  beforeAll(fresh);
  const claim = async () => (await queue.claimDue({ limit: 10, laneRoom: () => 10, leaseMs: 30_000 })).jobs;

  test("the retry schedule is data: due again 60, 300, 1800, 7200, 86400 s after each failure, then failed", async () => {
    const id = await queue.enqueue({ kind: "fake", lane: "l" });
    for (const [i, delay] of RETRY_SCHEDULE.entries()) {
      const [job] = await claim();
      expect(job!.attempts).toBe(i + 1);
      const settled = await queue.settle(job!, { ok: false, error: "HTTP 500" });
      expect(settled).toMatchObject({ attempt: i + 1, nextRunAt: clock.now() + delay * 1000, gaveUp: false, status: "pending" });
      await clock.advance(delay - 1);
      expect(await claim()).toEqual([]);
      await clock.advance(1);
    }
    const [last] = await claim();
    expect(last!.attempts).toBe(6);
    expect(await queue.settle(last!, { ok: false, error: "HTTP 500" })).toMatchObject({ attempt: 6, nextRunAt: null, gaveUp: true, status: "failed" });
    expect(await store.getJob(id)).toMatchObject({ status: "failed", lastError: "HTTP 500", attempts: 6 });
  });

  test("a claimed job is leased: not handed out twice until the lease ends or a restart releases it", async () => {
    await queue.enqueue({ kind: "fake", lane: "l" });
    const [job] = await claim();
    expect(await claim()).toEqual([]);
    real += 30_001; // the lease ran out (the process that claimed it died)
    const [again] = await claim();
    expect(again!.id).toBe(job!.id);
    expect(again!.attempts).toBe(2);
    expect(await queue.releaseLeases()).toBe(1); // start-up of a new process
    expect((await claim())[0]!.id).toBe(job!.id);
  });

  test("unknown kinds are left alone; lanes are capped per claim; other lanes are found past a busy one", async () => {
    await fresh();
    await queue.enqueue({ kind: "someone-elses", lane: "x" });
    for (let i = 0; i < 5; i++) await queue.enqueue({ kind: "fake", lane: "busy" });
    await queue.enqueue({ kind: "fake", lane: "quiet" });
    const claimed = (await queue.claimDue({ limit: 10, laneRoom: (lane) => (lane === "busy" ? 2 : 10), leaseMs: 1000 })).jobs;
    expect(claimed.map((j) => j.lane).sort()).toEqual(["busy", "busy", "quiet"]);
    expect((await queue.claimDue({ limit: 10, laneRoom: (lane) => (lane === "busy" ? 0 : 10), leaseMs: 1000, searchPastFullLanes: true })).jobs).toEqual([]);

    // 100 due jobs of a busy lane ahead of one of a quiet lane: the window (limit*2+16) sees only
    // the busy lane; the search past it finds the quiet one, and says when it found nothing.
    await fresh();
    for (let i = 0; i < 100; i++) await queue.enqueue({ kind: "fake", lane: "busy", runAt: clock.now() - 1000 });
    await queue.enqueue({ kind: "fake", lane: "quiet" });
    const room = (lane: string) => (lane === "busy" ? 0 : 10);
    expect(await queue.claimDue({ limit: 1, laneRoom: room, leaseMs: 1000 })).toEqual({ jobs: [], searchedEmpty: false });
    const found = await queue.claimDue({ limit: 1, laneRoom: room, leaseMs: 1000, searchPastFullLanes: true });
    expect(found.jobs.map((j) => j.lane)).toEqual(["quiet"]);
    expect(await queue.claimDue({ limit: 1, laneRoom: room, leaseMs: 1000, searchPastFullLanes: true })).toEqual({ jobs: [], searchedEmpty: true });
  });
});

describe("job kinds that compute their own retry delay", () => {
  test("retryDelayMs decides the next run time (from the attempt's start); null gives up; successes never ask", async () => {
    const store = await openSqliteStore(":memory:");
    const clock = new TestClock(Date.UTC(2030, 0, 1));
    const queue = new JobQueue(store, clock);
    const asked: { attempt: number; error: string | undefined; startedAt: number }[] = [];
    queue.register({
      kind: "computed",
      retrySchedule: [1, 1, 1], // the fallback, unused: retryDelayMs wins
      retryDelayMs: (job, outcome, startedAt) => {
        asked.push({ attempt: job.attempts, error: outcome.error, startedAt });
        return job.attempts === 1 ? 90_500 : null;
      },
      perform: async () => ({ ok: false }),
    });
    const claim = async () => (await queue.claimDue({ limit: 10, laneRoom: () => 10, leaseMs: 30_000 })).jobs;
    const id = await queue.enqueue({ kind: "computed", lane: "l" });
    const [first] = await claim();
    const startedAt = clock.now();
    await clock.advance(5); // the attempt took a while: the delay still counts from its start
    expect(await queue.settle(first!, { ok: false, error: "HTTP 503" })).toMatchObject({
      attempt: 1,
      nextRunAt: startedAt + 90_500,
      gaveUp: false,
      status: "pending",
    });
    await clock.advance(85.499);
    expect(await claim()).toEqual([]);
    await clock.advance(0.001);
    const [second] = await claim();
    expect(await queue.settle(second!, { ok: false, error: "HTTP 500" })).toMatchObject({ attempt: 2, nextRunAt: null, gaveUp: true, status: "failed" });
    expect(asked).toEqual([
      { attempt: 1, error: "HTTP 503", startedAt },
      { attempt: 2, error: "HTTP 500", startedAt: startedAt + 90_500 },
    ]);
    expect(await store.getJob(id)).toMatchObject({ status: "failed", attempts: 2 });

    await queue.enqueue({ kind: "computed", lane: "l" });
    const [third] = await claim();
    expect(await queue.settle(third!, { ok: true })).toMatchObject({ status: "succeeded", nextRunAt: null });
    expect(asked).toHaveLength(2);
  });
});

describe("sender", () => {
  let receiver: TestReceiver;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(() => receiver.stop());
  const sender = new WebhookSender({ allowPrivate: true });
  const send = (path: string) =>
    sender.send({ url: receiver.url(path), secret: SECRET }, { eventId: "evt_1", eventType: "image.generated", body: "{}" }, "dlv_1", Date.now());

  test("a failing answer's Retry-After comes back as sent; a success's does not", async () => {
    receiver.respond({ status: 503, headers: { "retry-after": "120" } }, "/busy");
    receiver.respond({ status: 429, headers: { "retry-after": "Wed, 21 Oct 2037 07:28:00 GMT" } }, "/dated");
    receiver.respond({ status: 500 }, "/plain");
    receiver.respond({ status: 200, headers: { "retry-after": "120" } }, "/fine");
    expect(await send("/busy")).toMatchObject({ delivered: false, statusCode: 503, retryAfter: "120" });
    expect(await send("/dated")).toMatchObject({ delivered: false, statusCode: 429, retryAfter: "Wed, 21 Oct 2037 07:28:00 GMT" });
    expect(await send("/plain")).toMatchObject({ delivered: false, statusCode: 500, retryAfter: null });
    expect(await send("/fine")).toMatchObject({ delivered: true, statusCode: 200, retryAfter: null });
  });
});

describe("runner", () => {
  let receiver: TestReceiver;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(() => receiver.stop());

  test("a stuck lane holds at most its per-lane share; other lanes keep flowing", async () => {
    const store = await openSqliteStore(":memory:");
    const clock = new TestClock(Date.UTC(2030, 0, 1));
    const queue = new JobQueue(store, clock);
    const release: (() => void)[] = [];
    const done: string[] = [];
    queue.register({
      kind: "fake",
      retrySchedule: [],
      perform: (job) =>
        job.lane === "stuck"
          ? new Promise<JobOutcome>((resolve) => release.push(() => resolve({ ok: true })))
          : Promise.resolve({ ok: true }).then((o) => {
              done.push(job.id);
              return o;
            }),
    });
    const runner = new JobRunner(queue, silentLogger, { concurrency: 6, perLane: 2 });
    for (let i = 0; i < 50; i++) await queue.enqueue({ kind: "fake", lane: "stuck" });
    for (let i = 0; i < 30; i++) await queue.enqueue({ kind: "fake", lane: `free-${i % 3}` });
    runner.kick();
    await receiver.waitFor(() => done.length === 30, "30 jobs on free lanes");
    expect(release).toHaveLength(2);
    while (release.length > 0 || runner.active > 0) {
      for (const f of release.splice(0)) f();
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    await runner.runDue();
    expect(await store.listJobs({ status: "pending" })).toEqual([]);
    await runner.stop();
  });

  test("stopping aborts what outlives the grace period and leaves it leased for the next start", async () => {
    const store = await openSqliteStore(":memory:");
    const queue = new JobQueue(store, new TestClock(Date.UTC(2030, 0, 1)));
    queue.register({
      kind: "hang",
      retrySchedule: [60],
      perform: (_job, signal) => new Promise<JobOutcome>((_, reject) => signal.addEventListener("abort", () => reject(signal.reason))),
    });
    const id = await queue.enqueue({ kind: "hang", lane: "l" });
    const runner = new JobRunner(queue, silentLogger);
    await runner.pump();
    expect(runner.active).toBe(1);
    await runner.stop(20);
    const row = (await store.getJob(id))!;
    expect(row).toMatchObject({ status: "pending", attempts: 1, lastError: null });
    expect(row.claimedUntil).not.toBeNull();
    expect(await queue.releaseLeases()).toBe(1);
  });
});
