/**
 * Email over TLS (SMTP_URL, docs/operations.md): STARTTLS with AUTH against a server whose self-signed
 * certificate the test trusts through OG_SMTP_CA_FILE, and implicit TLS with `smtps://`.
 * Bun's TLS over SMTP has broken before; this guards the pinned Bun version.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { eventBody, startTestService } from "../support/harness.ts";
import { selfSignedCert, type SelfSignedCert } from "../support/certificates.ts";
import { startSmtpServer } from "../support/smtp.ts";

let cert: SelfSignedCert;
beforeAll(() => {
  cert = selfSignedCert("127.0.0.1", "localhost");
});
afterAll(() => cert.cleanup());

async function quotaOfOne(env: Record<string, string>, email: string) {
  const s = await startTestService(env);
  const { accountId, apiKey } = await s.createAccount({ plan: "custom", quota: 1, requests_per_second: 100, email });
  const res = await s.api("/api/generate", { key: apiKey, json: eventBody() });
  await res.arrayBuffer();
  expect(res.status).toBe(200);
  return { s, accountId, apiKey };
}

test("STARTTLS with a self-signed certificate the operator trusts, and AUTH over it", async () => {
  const smtp = await startSmtpServer({ tls: cert, auth: { user: "ogsmith@example.test", pass: "p@ss:w/rd" } });
  const email = "tls@example.com";
  const { s, accountId, apiKey } = await quotaOfOne({ SMTP_URL: smtp.url, OG_SMTP_CA_FILE: cert.caFile }, email);
  try {
    expect(smtp.url).toStartWith("smtp://");
    const mails = await smtp.waitForCount(3, email);
    for (const mail of mails) {
      expect(mail.secure).toBe(true); // upgraded with STARTTLS before anything was sent
      expect(mail.user).toBe("ogsmith@example.test");
      expect(mail.text).toContain("Monthly quota:    1");
      expect(mail.text).not.toContain(apiKey);
    }
    await smtp.waitFor(async () => (await s.service.services.email.recent(accountId)).every((a) => a.state === "sent"), "alerts marked sent");
  } finally {
    await s.stop();
    await smtp.stop();
  }
}, 30_000);

test("without trust in the certificate nothing is sent in the clear: the attempt fails and is retried", async () => {
  const smtp = await startSmtpServer({ tls: cert, auth: { user: "u", pass: "p" } });
  const email = "untrusted@example.com";
  const { s, accountId } = await quotaOfOne({ SMTP_URL: smtp.url }, email);
  try {
    const recent = () => s.service.services.email.recent(accountId);
    await smtp.waitFor(async () => (await recent()).length === 3 && (await recent()).every((a) => a.attempts === 1), "first attempts");
    for (const a of await recent()) {
      expect(a.state).toBe("pending");
      expect(a.last_error?.toLowerCase()).toContain("certificate");
    }
    expect(smtp.messages).toHaveLength(0);
  } finally {
    await s.stop();
    await smtp.stop();
  }
}, 30_000);

test("smtps:// uses TLS from the first byte", async () => {
  const smtp = await startSmtpServer({ tls: cert, implicitTls: true });
  const email = "smtps@example.com";
  const { s } = await quotaOfOne({ SMTP_URL: smtp.url, OG_SMTP_CA_FILE: cert.caFile }, email);
  try {
    expect(smtp.url).toStartWith("smtps://");
    const mails = await smtp.waitForCount(3, email);
    expect(mails.every((m) => m.secure)).toBe(true);
  } finally {
    await s.stop();
    await smtp.stop();
  }
}, 30_000);
