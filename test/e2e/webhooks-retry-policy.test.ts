/**
 * The retry policy on the test clock (docs/events.md, Retry schedule): jitter of ±20 % around
 * the nominal delays, and a receiver's Retry-After honoured as a floor of at most 24 h, never
 * adding retries. The jitter's random source is pinned per test (0 = the earliest edge of the
 * band, 1 = the latest, 0.5 = exactly nominal), so every retry time is asserted to the second:
 * nothing a second early, the retry on the dot.
 */
import { afterAll, beforeAll, beforeEach, expect, test } from "bun:test";
import { eventBody, startTestService, type TestService } from "../support/harness.ts";
import { startReceiver, type Behaviour, type TestReceiver } from "../support/receiver.ts";

let s: TestService;
let r: TestReceiver;
/** What the service's jitter source returns right now. */
let draw = 0.5;
beforeAll(async () => {
  s = await startTestService({ OG_ALLOW_PRIVATE_NETWORKS: "1" }, { retryRandom: () => draw });
  r = await startReceiver();
});
beforeEach(() => {
  draw = 0.5;
});
afterAll(async () => {
  await s.stop();
  await r.stop();
});

const SECRET = "retry-policy-secret-0123456789";
const iso = (ms: number) => new Date(ms).toISOString();

/**
 * A webhook on `path` whose receiver answers `behaviour`, and one event: resolves once the
 * first attempt has arrived, with the clock time of that attempt (the test clock stands still).
 */
async function failingDelivery(path: string, behaviour: Behaviour) {
  const { apiKey } = await s.createAccount({ plan: "custom", quota: 1000, requests_per_second: 1000 });
  r.respond(behaviour, path);
  const created = await s.api("/api/webhooks", { key: apiKey, json: { url: r.url(path), events: ["image.generated"], secret: SECRET } });
  expect(created.status).toBe(201);
  const webhookId = ((await created.json()) as { id: string }).id;
  const t0 = s.now();
  const res = await s.api("/api/generate", { key: apiKey, json: eventBody() });
  expect(res.status).toBe(200);
  await res.arrayBuffer();
  await r.waitForCount(1, path);
  return { apiKey, webhookId, t0 };
}

/** The delivery log, oldest attempt first. */
async function log(apiKey: string, webhookId: string) {
  const res = await s.api(`/api/webhooks/${webhookId}/deliveries`, { key: apiKey });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: { attempt: number; status_code: number | null; next_attempt_at: string | null }[] }).data.reverse();
}

/**
 * The next attempt to `path` comes `seconds` after the previous one: nothing at `seconds − 1`,
 * there by `seconds`. `before` is how many attempts `path` has had so far.
 */
async function expectRetryAfter(path: string, seconds: number, before: number) {
  await s.advance(seconds - 1);
  expect({ path, second: seconds - 1, attempts: r.at(path).length }).toEqual({ path, second: seconds - 1, attempts: before });
  await s.advance(1);
  await r.waitForCount(before + 1, path);
  expect({ path, second: seconds, attempts: r.at(path).length }).toEqual({ path, second: seconds, attempts: before + 1 });
}

/** Runs the remaining schedule `delays` (seconds between attempts) and checks the webhook is then disabled for good. */
async function expectScheduleThenDisabled(path: string, delays: number[], d: { apiKey: string; webhookId: string; t0: number }) {
  for (const [i, delay] of delays.entries()) await expectRetryAfter(path, delay, i + 1);
  const webhook = (await (await s.api(`/api/webhooks/${d.webhookId}`, { key: d.apiKey })).json()) as { status: string; disabled_reason: string };
  expect(webhook.status).toBe("disabled");
  expect(webhook.disabled_reason).toContain("6 failed attempts");
  await s.advance(86400 * 3);
  expect(r.at(path)).toHaveLength(6);
  // The log names each next attempt at the time it then happened.
  const expected: (string | null)[] = [];
  let at = d.t0;
  for (const delay of delays) {
    at += delay * 1000;
    expected.push(iso(at));
  }
  expected.push(null);
  expect((await log(d.apiKey, d.webhookId)).map((a) => a.next_attempt_at)).toEqual(expected);
}

test("jitter at its lower edge (random 0): every retry at 80 % of its nominal delay — the first not at 47 s, at 48 s", async () => {
  draw = 0;
  const d = await failingDelivery("/early", { status: 500 });
  await expectScheduleThenDisabled("/early", [48, 240, 1440, 5760, 69120], d);
});

test("jitter at its upper edge (random 1): every retry at 120 % — the first not at 71 s, at 72 s", async () => {
  draw = 1;
  const d = await failingDelivery("/late", { status: 500 });
  await expectScheduleThenDisabled("/late", [72, 360, 2160, 8640, 103680], d);
});

test("503 with Retry-After: 600 → no retry at 60 s, the retry at 600 s; it holds for the next one too", async () => {
  const d = await failingDelivery("/busy", { status: 503, headers: { "retry-after": "600" } });
  await s.advance(60);
  expect(r.at("/busy")).toHaveLength(1);
  await expectRetryAfter("/busy", 600 - 60, 1);
  // The 2nd retry: nominal 5 min, but the receiver still asks for 10.
  r.respond({ status: 200 }, "/busy");
  await expectRetryAfter("/busy", 600, 2);
  await s.advance(86400 * 3); // delivered: the chain ends
  expect(r.at("/busy")).toHaveLength(3);
  expect((await log(d.apiKey, d.webhookId)).map((a) => [a.attempt, a.status_code, a.next_attempt_at])).toEqual([
    [1, 503, iso(d.t0 + 600_000)],
    [2, 503, iso(d.t0 + 1_200_000)],
    [3, 200, null],
  ]);
});

test("Retry-After as an HTTP date: the retry lands on that date; a date already past is ignored", async () => {
  const dueAt = Date.parse(new Date(s.now() + 15 * 60_000).toUTCString()); // HTTP dates have whole seconds
  const d = await failingDelivery("/dated", { status: 429, headers: { "retry-after": new Date(dueAt).toUTCString() } });
  await expectRetryAfter("/dated", (dueAt - d.t0) / 1000, 1);
  // The same date again is now in the past: the 2nd retry keeps its nominal 5 min.
  await expectRetryAfter("/dated", 300, 2);
  r.respond({ status: 204 }, "/dated");
  await expectRetryAfter("/dated", 1800, 3);
  expect((await log(d.apiKey, d.webhookId)).map((a) => a.next_attempt_at)).toEqual([iso(dueAt), iso(dueAt + 300_000), iso(dueAt + 2_100_000), null]);
});

test("a Retry-After of 3 days counts for 24 h at most", async () => {
  const d = await failingDelivery("/parked", { status: 503, headers: { "retry-after": String(3 * 86400) } });
  r.respond({ status: 200 }, "/parked");
  await expectRetryAfter("/parked", 86400, 1);
  expect((await log(d.apiKey, d.webhookId))[0]!.next_attempt_at).toBe(iso(d.t0 + 86_400_000));
});

test("a Retry-After shorter than the schedule, zero or malformed brings no retry forward", async () => {
  const d = await failingDelivery("/eager", { status: 503, headers: { "retry-after": "1" } });
  await expectRetryAfter("/eager", 60, 1);
  r.respond({ status: 503, headers: { "retry-after": "0" } }, "/eager");
  await expectRetryAfter("/eager", 300, 2);
  r.respond({ status: 503, headers: { "retry-after": "soon" } }, "/eager");
  await expectRetryAfter("/eager", 1800, 3);
  r.respond({ status: 200 }, "/eager");
  await expectRetryAfter("/eager", 7200, 4);
  expect((await log(d.apiKey, d.webhookId)).map((a) => a.status_code)).toEqual([503, 503, 503, 503, 200]);
});

test("with Retry-After on every answer the schedule keeps its length: 5 retries, then disabled", async () => {
  const d = await failingDelivery("/throttled", { status: 429, headers: { "retry-after": "3600" } });
  // max(nominal, 1 h): 1 h, 1 h, 1 h, then 2 h and 24 h as scheduled.
  await expectScheduleThenDisabled("/throttled", [3600, 3600, 3600, 7200, 86400], d);
});
