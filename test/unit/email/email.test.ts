/** Alert messages and SMTP error classification, in-process (the SMTP round trips are in test/e2e/email*.test.ts). */
import { describe, expect, test } from "bun:test";
import { classify } from "../../../src/email/mailer.ts";
import { buildAlertEmail, displayUrl, escapeHtml } from "../../../src/email/messages.ts";

describe("alert messages", () => {
  test("every value is escaped in the HTML part", () => {
    const email = buildAlertEmail(
      "webhook_disabled",
      { webhook_id: "wh_1", url: 'https://x.test/<script>alert("x")</script>', reason: "last error: <b>HTTP 500</b> & 'more'" },
      "https://og.example.test/dashboard?a=1&b=2",
    );
    expect(email.html).not.toContain("<script>");
    expect(email.html).not.toContain("<b>");
    expect(email.html).toContain("&lt;b&gt;HTTP 500&lt;/b&gt; &amp; &#39;more&#39;");
    expect(email.html).toContain('href="https://og.example.test/dashboard?a=1&amp;b=2"');
    expect(email.text).toContain("last error: <b>HTTP 500</b> & 'more'"); // the text part is plain text
  });

  test("usage numbers and the reset date", () => {
    const email = buildAlertEmail(
      "usage_warning",
      { used: 400, quota: 500, percentage: 80, plan: "starter", resets_at: "2030-07-01T00:00:00.000Z" },
      "https://og.test/dashboard",
    );
    expect(email.subject).toBe("ogsmith: you have used 80% of your monthly quota (400 of 500 images)");
    expect(email.text).toContain("Plan:             Starter");
    expect(email.text).toContain("Quota resets:     1 July 2030, 00:00 UTC");
    expect(email.text).toContain("Remaining:        100");
  });

  test("webhook URLs lose credentials, query and fragment", () => {
    expect(displayUrl("https://user:pw@hooks.test/in?token=abc#x")).toBe("https://hooks.test/in?…");
    expect(displayUrl("https://hooks.test/in")).toBe("https://hooks.test/in");
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe("&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
  });
});

describe("SMTP errors", () => {
  test("5xx is permanent, 4xx and connection failures are retried, session-level 5xx (auth, STARTTLS) are retried", () => {
    expect(classify({ code: "EENVELOPE", responseCode: 550, response: "550 No such user", permanent: true })).toEqual({
      status: "failed",
      error: "EENVELOPE: 550 No such user",
      permanent: true,
    });
    expect(classify({ code: "EENVELOPE", responseCode: 451, response: "451 Later", permanent: false }).permanent).toBe(false);
    expect(classify({ code: "ESOCKET", message: "connect ECONNREFUSED 127.0.0.1:25" }).permanent).toBe(false);
    expect(classify({ code: "EAUTH", responseCode: 535, response: "535 Bad credentials", permanent: true }).permanent).toBe(false);
    expect(classify({ code: "ETLS", responseCode: 500, response: "500 command not recognized", permanent: true }).permanent).toBe(false);
    expect(classify({ code: "EMESSAGE", responseCode: 554, response: "554 Message refused", permanent: true }).permanent).toBe(true);
    expect(classify(new Error("x".repeat(2000))).error.length).toBeLessThan(600);
  });
});
