/**
 * Email alerts against a real SMTP server on loopback (docs/events.md): 80 / 95 / 100 %
 * alerts arrive once each with the right recipient and numbers, retries on the test clock when
 * SMTP is down or answers 4xx, a 550 fails at once, no SMTP_URL records "not sent", and the
 * operator sees the log in `accounts show`.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { EMAIL_RETRY_SCHEDULE, type EmailAlertView } from "../../src/email/alerts.ts";
import { nextResetAt } from "../../src/metering/period.ts";
import { eventBody, startTestService, type TestService } from "../support/harness.ts";
import { runCli } from "../support/process.ts";
import { startSmtpServer, type TestSmtpServer } from "../support/smtp.ts";

const BASE_URL = "https://og.example.test";
const FROM = "ogsmith alerts <alerts@og.example.test>";

let s: TestService;
let smtp: TestSmtpServer;
beforeAll(async () => {
  smtp = await startSmtpServer();
  s = await startTestService({ SMTP_URL: smtp.url, OG_EMAIL_FROM: FROM, OG_BASE_URL: BASE_URL });
});
afterAll(async () => {
  await s.stop();
  await smtp.stop();
});

async function generate(key: string, expected = 200) {
  const res = await s.api("/api/generate", { key, json: eventBody() });
  await res.arrayBuffer();
  expect(res.status).toBe(expected);
}

const alerts = (accountId: string): Promise<EmailAlertView[]> => s.service.services.email.recent(accountId);

async function waitForAlerts(accountId: string, what: string, condition: (list: EmailAlertView[]) => boolean) {
  let last: EmailAlertView[] = [];
  await smtp
    .waitFor(async () => condition((last = await alerts(accountId))), what)
    .catch((error) => {
      throw new Error(`${error.message}; alerts: ${JSON.stringify(last)}`);
    });
}

/** "1 March 2026, 00:00 UTC" for the reset after `now`. */
function resetText(now: number) {
  const d = new Date(nextResetAt(now));
  return `${d.getUTCDate()} ${d.toLocaleString("en-US", { month: "long", timeZone: "UTC" })} ${d.getUTCFullYear()}, 00:00 UTC`;
}

describe("usage alerts", () => {
  test("80 %, 95 % and 100 % arrive exactly once each, with the recipient and the numbers", async () => {
    const email = "thresholds@example.com";
    const { accountId, apiKey } = await s.createAccount({ plan: "custom", quota: 20, requests_per_second: 100, email });
    for (let i = 1; i <= 15; i++) await generate(apiKey);
    expect(await alerts(accountId)).toEqual([]); // 75 %: nothing yet

    await generate(apiKey); // 16/20 = 80 %
    const [warning] = await smtp.waitForCount(1, email);
    expect(warning!.to).toEqual([email]);
    expect(warning!.fromHeader).toContain("alerts@og.example.test");
    expect(warning!.subject).toBe("ogsmith: you have used 80% of your monthly quota (16 of 20 images)");
    expect(warning!.text).toContain("Used this month:  16");
    expect(warning!.text).toContain("Monthly quota:    20");
    expect(warning!.text).toContain("Remaining:        4");
    expect(warning!.text).toContain("Plan:             Custom");
    expect(warning!.text).toContain(`Quota resets:     ${resetText(s.now())}`);
    expect(warning!.text).toContain(`${BASE_URL}/dashboard`);
    expect(warning!.html).toContain(`href="${BASE_URL}/dashboard"`);
    expect(warning!.html).toContain('<td style="padding:4px 0">16</td>');

    await generate(apiKey); // 17
    await generate(apiKey); // 18 = 90 %: a webhook event, not an email
    expect(await alerts(accountId)).toHaveLength(1);

    await generate(apiKey); // 19 = 95 %
    const critical = (await smtp.waitForCount(2, email))[1]!;
    expect(critical.subject).toBe("ogsmith: critical — 95% of your monthly quota used (19 of 20 images)");
    expect(critical.text).toContain("Used this month:  19");

    await generate(apiKey); // 20 = 100 %
    const exceeded = (await smtp.waitForCount(3, email))[2]!;
    expect(exceeded.subject).toBe("ogsmith: monthly quota exceeded (20 of 20 images)");
    expect(exceeded.text).toContain("Remaining:        0");
    expect(exceeded.text).toContain("QUOTA_EXCEEDED");

    await generate(apiKey, 429); // refused requests cause nothing
    await s.advance(6 * 3600); // anything that could still be due runs now
    expect(smtp.to(email)).toHaveLength(3);
    expect(smtp.rcptAttempts.filter((a) => a === email)).toHaveLength(3);

    const log = await alerts(accountId);
    expect(log.map((a) => [a.kind, a.state, a.attempts, a.last_error])).toEqual([
      ["quota_exceeded", "sent", 1, null],
      ["usage_critical", "sent", 1, null],
      ["usage_warning", "sent", 1, null],
    ]);
    for (const mail of smtp.to(email)) {
      expect(mail.text).not.toContain(apiKey);
      expect(mail.html).not.toContain(apiKey);
    }

    // The operator's view of the same log.
    const env = { ...s.storeEnv, OG_BOOTSTRAP: "false", OG_LOG_LEVEL: "silent" };
    const shown = await runCli(["accounts", "show", accountId], env);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain("Email alerts (last 3, newest first):");
    expect(shown.stdout).toMatch(/quota_exceeded\s+sent\s+1/);
    expect(shown.stdout).toMatch(/usage_warning\s+sent\s+1/);
    const json = JSON.parse((await runCli(["accounts", "show", accountId, "--json"], env)).stdout);
    expect(json.email_alerts.map((a: EmailAlertView) => [a.kind, a.state, a.attempts])).toEqual([
      ["quota_exceeded", "sent", 1],
      ["usage_critical", "sent", 1],
      ["usage_warning", "sent", 1],
    ]);
  }, 30_000);

  test("one request crossing every threshold sends all three; next month they come again", async () => {
    const email = "jump@example.com";
    const { accountId, apiKey } = await s.createAccount({ plan: "custom", quota: 2, requests_per_second: 100, email });
    await generate(apiKey); // 50 %
    await generate(apiKey); // 100 %: crosses 80, 90, 95 and 100 at once
    const mails = await smtp.waitForCount(3, email);
    expect(mails.map((m) => m.subject).sort()).toEqual([
      "ogsmith: critical — 95% of your monthly quota used (2 of 2 images)",
      "ogsmith: monthly quota exceeded (2 of 2 images)",
      "ogsmith: you have used 80% of your monthly quota (2 of 2 images)",
    ]);

    await s.advance((nextResetAt(s.now()) - s.now()) / 1000 + 60);
    await generate(apiKey);
    await generate(apiKey);
    await smtp.waitForCount(6, email);
    await s.advance(3600);
    expect(smtp.to(email)).toHaveLength(6);
    expect((await alerts(accountId)).filter((a) => a.state === "sent")).toHaveLength(6);
  }, 30_000);
});

describe("delivery failures", () => {
  test("SMTP down, then up: the alert is retried after the backoff and arrives", async () => {
    const email = "down-then-up@example.com";
    const { accountId, apiKey } = await s.createAccount({ plan: "custom", quota: 1, requests_per_second: 100, email });
    await smtp.down();
    try {
      await generate(apiKey); // 100 % at once: three alerts, all failing to connect
      await waitForAlerts(accountId, "three failed first attempts", (l) => l.length === 3 && l.every((a) => a.attempts === 1));
      for (const a of await alerts(accountId)) {
        expect(a.state).toBe("pending");
        expect(a.last_error).toContain("ECONNREFUSED");
        expect(Date.parse(a.next_attempt_at!)).toBe(s.now() + EMAIL_RETRY_SCHEDULE[0] * 1000);
      }
    } finally {
      await smtp.up();
    }
    await s.advance(EMAIL_RETRY_SCHEDULE[0] - 1);
    expect(smtp.to(email)).toHaveLength(0); // not a second early
    await s.advance(1);
    await smtp.waitForCount(3, email);
    await waitForAlerts(accountId, "all sent", (l) => l.every((a) => a.state === "sent"));
    expect((await alerts(accountId)).map((a) => a.attempts)).toEqual([2, 2, 2]);
    expect((await alerts(accountId)).every((a) => a.next_attempt_at === null && a.sent_at !== null)).toBe(true);
  }, 30_000);

  test("550 is permanent: recorded as failed after one attempt, never retried", async () => {
    const email = "no-such-user@example.com";
    smtp.reject({ code: 550, message: "5.1.1 No such user" }, email);
    try {
      const { accountId, apiKey } = await s.createAccount({ plan: "custom", quota: 1, requests_per_second: 100, email });
      await generate(apiKey);
      await waitForAlerts(accountId, "three rejected alerts", (l) => l.length === 3 && l.every((a) => a.state === "failed"));
      await s.advance(EMAIL_RETRY_SCHEDULE.reduce((a, b) => a + b, 0) + 60);
      for (const a of await alerts(accountId)) {
        expect(a.attempts).toBe(1);
        expect(a.last_error).toContain("550");
        expect(a.last_error).toContain("not retried");
        expect(a.next_attempt_at).toBeNull();
      }
      expect(smtp.rcptAttempts.filter((a) => a === email)).toHaveLength(3);
      expect(smtp.to(email)).toHaveLength(0);
    } finally {
      smtp.accept(email);
    }
  }, 30_000);

  test("4xx is retried with backoff and given up after 8 attempts, with the reason recorded", async () => {
    const email = "greylisted@example.com";
    smtp.reject({ code: 451, message: "4.7.1 Try again later" }, email);
    try {
      const { accountId, apiKey } = await s.createAccount({ plan: "custom", quota: 1, requests_per_second: 100, email });
      await generate(apiKey);
      await waitForAlerts(accountId, "first attempts", (l) => l.length === 3 && l.every((a) => a.attempts === 1));
      for (const [i, delay] of EMAIL_RETRY_SCHEDULE.entries()) {
        expect((await alerts(accountId)).every((a) => a.state === "pending" && a.attempts === i + 1)).toBe(true);
        await s.advance(delay);
        await waitForAlerts(accountId, `attempt ${i + 2}`, (l) => l.every((a) => a.attempts === i + 2));
      }
      const log = await alerts(accountId);
      expect(log.map((a) => a.state)).toEqual(["failed", "failed", "failed"]);
      for (const a of log) {
        expect(a.attempts).toBe(EMAIL_RETRY_SCHEDULE.length + 1);
        expect(a.last_error).toBe("gave up after 8 attempts: EENVELOPE: 451 4.7.1 Try again later");
      }
      await s.advance(86_400);
      expect(smtp.rcptAttempts.filter((a) => a === email)).toHaveLength(3 * 8);
    } finally {
      smtp.accept(email);
    }
  }, 30_000);
});

test("without SMTP_URL the alert is recorded and logged as not sent, and nothing fails", async () => {
  const plain = await startTestService({ OG_BASE_URL: BASE_URL });
  try {
    const res = await plain.admin("/admin/accounts", { json: { email: "nosmtp@example.com", plan: "custom", quota: 1, requests_per_second: 100 } });
    const { account_id, api_key } = (await res.json()) as { account_id: string; api_key: string };
    const gen = await plain.api("/api/generate", { key: api_key, json: eventBody() });
    await gen.arrayBuffer();
    expect(gen.status).toBe(200);
    const recent = () => plain.service.services.email.recent(account_id);
    await smtp.waitFor(async () => (await recent()).length === 3 && (await recent()).every((a) => a.state !== "pending"), "not_sent alerts");
    expect((await recent()).map((a) => [a.state, a.attempts, a.last_error])).toEqual([
      ["not_sent", 1, "SMTP_URL is not set"],
      ["not_sent", 1, "SMTP_URL is not set"],
      ["not_sent", 1, "SMTP_URL is not set"],
    ]);
    expect(smtp.to("nosmtp@example.com")).toHaveLength(0);
  } finally {
    await plain.stop();
  }
}, 30_000);
