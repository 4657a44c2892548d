/**
 * A webhook deleted while its test send is in flight: the call still answers 200 with every
 * webhook's result (the deleted one's attempt is simply not logged — its log went with it),
 * through the API with and without `webhook_id` and through the dashboard's send-test.
 * The receiver holds its answer until the DELETE has been answered, so no timing is involved.
 */
import { expect, test } from "bun:test";
import { useServiceWithReceiver } from "../support/harness.ts";

const fx = useServiceWithReceiver();

const SECRET = "test-send-secret-0123456789";

async function createWebhook(key: string, path: string): Promise<{ id: string }> {
  const res = await fx.s.api("/api/webhooks", { key, json: { url: fx.r.url(path), events: ["image.generated"], secret: SECRET } });
  expect(res.status).toBe(201);
  return (await res.json()) as { id: string };
}

async function deleteWhileHung(key: string, id: string, path: string, sent: number) {
  await fx.r.waitForCount(sent, path); // the test attempt is at the receiver, waiting for its answer
  expect(fx.r.pending).toBeGreaterThan(0);
  const deleted = await fx.s.api(`/api/webhooks/${id}`, { key, method: "DELETE" });
  expect(deleted.status).toBe(200);
  fx.r.releaseHung();
}

test("deleting one webhook mid-send: 200 with every result, the others' attempts logged", async () => {
  const { apiKey } = await fx.s.createAccount({ plan: "pro" });
  fx.r.respond({ hang: true }, "/slow");
  fx.r.respond({ status: 204 }, "/fast");
  const slow = await createWebhook(apiKey, "/slow");
  const fast = await createWebhook(apiKey, "/fast");

  const call = fx.s.api("/api/webhooks/test", { key: apiKey, json: {} });
  await deleteWhileHung(apiKey, slow.id, "/slow", 1);
  const res = await call;
  expect(res.status).toBe(200);
  const { results } = (await res.json()) as { results: { webhook_id: string; delivered: boolean; status_code: number | null }[] };
  expect(results.map((x) => [x.webhook_id, x.delivered, x.status_code])).toEqual([
    [slow.id, true, 200],
    [fast.id, true, 204],
  ]);

  const log = (await (await fx.s.api(`/api/webhooks/${fast.id}/deliveries`, { key: apiKey })).json()) as { data: { event_type: string }[] };
  expect(log.data.map((d) => d.event_type)).toEqual(["webhook.test"]);
  expect((await fx.s.api(`/api/webhooks/${slow.id}/deliveries`, { key: apiKey })).status).toBe(404);
});

test("deleting the named webhook mid-send: 200 with its result", async () => {
  const { apiKey } = await fx.s.createAccount({ plan: "pro" });
  fx.r.respond({ hang: true }, "/named");
  const webhook = await createWebhook(apiKey, "/named");
  const call = fx.s.api("/api/webhooks/test", { key: apiKey, json: { webhook_id: webhook.id } });
  await deleteWhileHung(apiKey, webhook.id, "/named", 1);
  const res = await call;
  expect(res.status).toBe(200);
  expect(((await res.json()) as { results: { webhook_id: string }[] }).results.map((x) => x.webhook_id)).toEqual([webhook.id]);
});

test("the dashboard's send-test: 200 with the result when the webhook is deleted meanwhile", async () => {
  const { apiKey } = await fx.s.createAccount({ plan: "pro" });
  fx.r.respond({ hang: true }, "/dash");
  const webhook = await createWebhook(apiKey, "/dash");
  const origin = new URL(fx.s.url).origin;
  const signIn = await fetch(`${fx.s.url}/dashboard/api/session`, {
    method: "POST",
    headers: { "content-type": "application/json", origin },
    body: JSON.stringify({ api_key: apiKey }),
  });
  expect(signIn.status).toBe(200);
  const cookie = signIn.headers.get("set-cookie")!.split(";")[0]!;
  const call = fetch(`${fx.s.url}/dashboard/api/webhooks/${webhook.id}/test`, { method: "POST", headers: { origin, cookie } });
  await deleteWhileHung(apiKey, webhook.id, "/dash", 1);
  const res = await call;
  expect(res.status).toBe(200);
  expect((await res.json()) as { webhook_id: string; delivered: boolean }).toMatchObject({ webhook_id: webhook.id, delivered: true });
});
