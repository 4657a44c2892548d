/**
 * A webhook disabled after its retry schedule (docs/events.md) emails its owner: which
 * endpoint, why, and how to re-enable it — and nothing secret.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { eventBody, startTestService, type TestService } from "../support/harness.ts";
import { startReceiver, type TestReceiver } from "../support/receiver.ts";
import { startSmtpServer, type TestSmtpServer } from "../support/smtp.ts";

const BASE_URL = "https://og.example.test";
const SECRET = "never-in-an-email-0123456789";

let s: TestService;
let r: TestReceiver;
let smtp: TestSmtpServer;
beforeAll(async () => {
  smtp = await startSmtpServer();
  r = await startReceiver();
  s = await startTestService({ SMTP_URL: smtp.url, OG_BASE_URL: BASE_URL, OG_ALLOW_PRIVATE_NETWORKS: "1" });
});
afterAll(async () => {
  await s.stop();
  await r.stop();
  await smtp.stop();
});

test("the owner is told which endpoint was disabled, why, and how to re-enable it", async () => {
  const email = "hook-owner@example.com";
  const { accountId, apiKey } = await s.createAccount({ plan: "custom", quota: 1000, requests_per_second: 1000, email });
  r.respond({ status: 503 }, "/always-fails");
  const url = r.url("/always-fails") + "?token=query-token-xyz";
  const created = await s.api("/api/webhooks", { key: apiKey, json: { url, events: ["image.generated"], secret: SECRET } });
  expect(created.status).toBe(201);
  const webhook = (await created.json()) as { id: string };

  const res = await s.api("/api/generate", { key: apiKey, json: eventBody() });
  await res.arrayBuffer();
  await r.waitForCount(1, "/always-fails");
  for (const [i, delay] of [60, 300, 1800, 7200, 86400].entries()) {
    expect(smtp.to(email)).toHaveLength(0); // still enabled: no email yet
    await s.advance(delay);
    await r.waitForCount(i + 2, "/always-fails");
  }

  const [mail] = await smtp.waitForCount(1, email);
  const state = (await (await s.api(`/api/webhooks/${webhook.id}`, { key: apiKey })).json()) as { status: string };
  expect(state.status).toBe("disabled");

  expect(mail!.to).toEqual([email]);
  // The subject (logged, and kept in the email log) names the webhook by id, never by URL.
  expect(mail!.subject).toContain(`webhook ${webhook.id} disabled`);
  expect(mail!.subject).not.toContain("/always-fails");
  expect(mail!.subject).not.toContain(String(new URL(r.url("/")).port));
  for (const part of [mail!.text, mail!.html]) {
    expect(part).toContain(webhook.id);
    expect(part).toContain("HTTP 503"); // why: the last error
    expect(part).toContain(`PUT /api/webhooks/${webhook.id}`);
    expect(part).toContain(`${BASE_URL}/dashboard`);
    expect(part).not.toContain(SECRET);
    expect(part).not.toContain("query-token-xyz");
    expect(part).not.toContain(apiKey);
  }
  expect(mail!.text).toContain(`Endpoint:   ${r.url("/always-fails")}?…`);
  expect(mail!.text).toContain('"enabled": true');
  expect(mail!.html).toContain("&quot;enabled&quot;: true"); // escaped, not raw markup

  const alerts = await s.service.services.email.recent(accountId);
  expect(alerts.map((a) => [a.kind, a.state, a.attempts])).toEqual([["webhook_disabled", "sent", 1]]);

  // One email per disabling: nothing more while it stays disabled…
  await s.advance(3600);
  expect(smtp.to(email)).toHaveLength(1);

  // …but re-enabled and failing through the schedule again is a new incident, and a new email.
  const put = await s.api(`/api/webhooks/${webhook.id}`, { key: apiKey, method: "PUT", json: { url, events: ["image.generated"], enabled: true } });
  expect(put.status).toBe(200);
  const again = await s.api("/api/generate", { key: apiKey, json: eventBody() });
  await again.arrayBuffer();
  await r.waitForCount(7, "/always-fails");
  for (const [i, delay] of [60, 300, 1800, 7200, 86400].entries()) {
    await s.advance(delay);
    await r.waitForCount(i + 8, "/always-fails");
  }
  await smtp.waitForCount(2, email);
  expect((await s.service.services.email.recent(accountId)).map((a) => [a.kind, a.state])).toEqual([
    ["webhook_disabled", "sent"],
    ["webhook_disabled", "sent"],
  ]);
}, 30_000);
