/**
 * Retries and disabling (docs/events.md): the whole schedule on the test clock —
 * nothing a second early, the retry on the dot — then disabled, then silent, then re-enabled.
 */
import { expect, test } from "bun:test";
import { eventBody, useServiceWithReceiver } from "../support/harness.ts";

const fx = useServiceWithReceiver();

const SECRET = "retry-secret-0123456789abcdef";
const SCHEDULE = [60, 300, 1800, 7200, 86400];

async function generate(key: string) {
  const res = await fx.s.api("/api/generate", { key, json: eventBody() });
  expect(res.status).toBe(200);
  await res.arrayBuffer();
  return res.headers.get("x-request-id")!;
}

test("1 min, 5 min, 30 min, 2 h, 24 h; the 5th retry failing disables; re-enabling starts fresh", async () => {
  const { apiKey } = await fx.s.createAccount({ plan: "custom", quota: 1000, requests_per_second: 1000 });
  fx.r.respond({ status: 500 }, "/down");
  const create = await fx.s.api("/api/webhooks", { key: apiKey, json: { url: fx.r.url("/down"), events: ["image.generated"], secret: SECRET } });
  const wh = await create.json();
  const other = await (
    await fx.s.api("/api/webhooks", { key: apiKey, json: { url: fx.r.url("/healthy"), events: ["image.generated"], secret: SECRET } })
  ).json();

  const requestId = await generate(apiKey);
  await fx.r.waitForCount(1, "/down"); // the first attempt, at once
  const t0 = fx.s.now();

  for (const [i, delay] of SCHEDULE.entries()) {
    await fx.s.advance(delay - 1);
    expect({ retry: i + 1, attempts: fx.r.at("/down").length }).toEqual({ retry: i + 1, attempts: i + 1 });
    await fx.s.advance(1);
    await fx.r.waitForCount(i + 2, "/down");
    expect(fx.r.at("/down")).toHaveLength(i + 2);
  }

  // Six attempts of one event: identical body and event id, a new delivery id each time.
  const attempts = fx.r.at("/down");
  expect(new Set(attempts.map((a) => a.body)).size).toBe(1);
  expect(new Set(attempts.map((a) => a.headers["webhook-id"])).size).toBe(1);
  expect(new Set(attempts.map((a) => a.headers["x-og-delivery"])).size).toBe(6);
  expect(JSON.parse(attempts[0]!.body).data.request_id).toBe(requestId);

  const disabled = await (await fx.s.api(`/api/webhooks/${wh.id}`, { key: apiKey })).json();
  expect(disabled.status).toBe("disabled");
  expect(disabled.disabled_reason).toContain("6 failed attempts");
  expect(disabled.disabled_reason).toContain("HTTP 500");
  // The other webhook of the account is unaffected.
  expect((await (await fx.s.api(`/api/webhooks/${other.id}`, { key: apiKey })).json()).status).toBe("enabled");

  // The log: attempts 6..1, each with the time of the next one.
  const log = (await (await fx.s.api(`/api/webhooks/${wh.id}/deliveries`, { key: apiKey })).json()).data as any[];
  expect(log.map((d) => d.attempt)).toEqual([6, 5, 4, 3, 2, 1]);
  let due = t0;
  const expectedNext = SCHEDULE.map((delay) => (due += delay * 1000));
  expect(log.map((d) => d.next_attempt_at).reverse()).toEqual([...expectedNext.map((ms) => new Date(ms).toISOString()), null]);
  expect(log.every((d) => d.status_code === 500 && d.delivered === false)).toBe(true);

  // Disabled: new events are not queued for it, and nothing more arrives however long we wait.
  fx.r.respond({ status: 200 }, "/down");
  await generate(apiKey);
  await fx.r.waitForCount(2, "/healthy");
  await fx.s.advance(86400 * 3);
  expect(fx.r.at("/down")).toHaveLength(6);

  // Re-enable: fresh start — the dropped event stays dropped, new events are delivered at once.
  const put = await fx.s.api(`/api/webhooks/${wh.id}`, {
    key: apiKey,
    method: "PUT",
    json: { url: fx.r.url("/down"), events: ["image.generated"], enabled: true },
  });
  expect(put.status).toBe(200);
  expect(await put.json()).toMatchObject({ status: "enabled", disabled_reason: null });
  const fresh = await generate(apiKey);
  await fx.r.waitForCount(7, "/down");
  expect(JSON.parse(fx.r.at("/down")[6]!.body).data.request_id).toBe(fresh);
  await fx.s.advance(86400);
  expect(fx.r.at("/down")).toHaveLength(7);
});

test("a success on a retry ends the chain; slow (>5 s) answers count as failures", async () => {
  const { apiKey } = await fx.s.createAccount({ plan: "custom", quota: 1000, requests_per_second: 1000 });
  // No answer at all: past the 5 s whatever the load (an answer due at 5.5 s could still beat a
  // delivery process that the machine left waiting).
  fx.r.respond({ hang: true }, "/slow");
  const wh = await (await fx.s.api("/api/webhooks", { key: apiKey, json: { url: fx.r.url("/slow"), events: ["image.generated"], secret: SECRET } })).json();
  await generate(apiKey);
  await fx.r.waitForCount(1, "/slow");
  await fx.s.advance(0); // waits for the attempt in flight to time out
  const log = (await (await fx.s.api(`/api/webhooks/${wh.id}/deliveries`, { key: apiKey })).json()).data as any[];
  expect(log[0]).toMatchObject({ attempt: 1, delivered: false, status_code: null, error: expect.stringContaining("timeout") });
  expect(log[0].duration_ms).toBeGreaterThanOrEqual(4_900);

  fx.r.releaseHung(); // the answer comes at last, to a delivery that gave up on it
  fx.r.respond({ status: 200 }, "/slow");
  await fx.s.advance(60);
  await fx.r.waitForCount(2, "/slow");
  await fx.s.advance(86400 * 2);
  expect(fx.r.at("/slow")).toHaveLength(2);
  const after = (await (await fx.s.api(`/api/webhooks/${wh.id}/deliveries`, { key: apiKey })).json()).data as any[];
  expect(after[0]).toMatchObject({ attempt: 2, delivered: true, status_code: 200, next_attempt_at: null });
}, 20_000);

test("one slow receiver does not hold back deliveries to the others", async () => {
  const { apiKey } = await fx.s.createAccount({ plan: "custom", quota: 1000, requests_per_second: 1000 });
  fx.r.respond({ hang: true }, "/stuck");
  await fx.s.api("/api/webhooks", { key: apiKey, json: { url: fx.r.url("/stuck"), events: ["image.generated"], secret: SECRET } });
  await fx.s.api("/api/webhooks", { key: apiKey, json: { url: fx.r.url("/quick"), events: ["image.generated"], secret: SECRET } });
  for (let i = 0; i < 20; i++) await generate(apiKey);
  // All 20 reach the quick receiver while the stuck one holds its (bounded) share of slots.
  // The stuck receiver never answers until released: held back, these would never arrive, so the
  // deadline only needs to be generous.
  await fx.r.waitForCount(20, "/quick");
  expect(fx.r.at("/stuck").length).toBeLessThanOrEqual(8);
  fx.r.releaseHung();
  fx.r.respond({ status: 200 }, "/stuck");
  await fx.r.waitForCount(20, "/stuck");
});
