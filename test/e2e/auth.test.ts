import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eventBody, startTestService, type TestService } from "../support/harness.ts";

let s: TestService;
beforeAll(async () => {
  s = await startTestService();
});
afterAll(() => s.stop());

async function expectError(res: Response, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toContain("application/json");
  expect(res.headers.get("x-request-id")).toMatch(/^req_/);
  const body = (await res.json()) as Record<string, unknown>;
  expect(body.error).toBe(true);
  expect(body.code).toBe(code);
  expect(typeof body.message).toBe("string");
  return body;
}

const usedOf = async (key: string) => {
  const res = await s.api("/api/user/usage", { key });
  return ((await res.json()) as { used: number }).used;
};

describe("authentication pipeline (the documented order)", () => {
  test("missing key → 401 MISSING_API_KEY, even with a malformed body", async () => {
    await expectError(await s.api("/api/user/usage"), 401, "MISSING_API_KEY");
    await expectError(await s.api("/api/generate", { body: "{not json", headers: { "content-type": "application/json" } }), 401, "MISSING_API_KEY");
    await expectError(await s.api("/api/user/usage", { key: "" }), 401, "MISSING_API_KEY");
  });

  test("unknown, malformed and revoked keys → 401 INVALID_API_KEY", async () => {
    await expectError(await s.api("/api/user/usage", { key: "og_" + "A".repeat(32) }), 401, "INVALID_API_KEY");
    await expectError(await s.api("/api/user/usage", { key: "not-a-key" }), 401, "INVALID_API_KEY");
    await expectError(await s.api("/api/user/usage", { key: "og_short" }), 401, "INVALID_API_KEY");
  });

  test("canceled subscription → 403 SUBSCRIPTION_CANCELED; past due → 403 PAYMENT_PAST_DUE; nothing counted", async () => {
    const canceled = await s.createAccount({ plan: "pro", status: "canceled" });
    await expectError(await s.api("/api/generate", { key: canceled.apiKey, json: eventBody() }), 403, "SUBSCRIPTION_CANCELED");
    const pastDue = await s.createAccount({ plan: "pro", status: "past_due" });
    await expectError(await s.api("/api/generate", { key: pastDue.apiKey, json: eventBody() }), 403, "PAYMENT_PAST_DUE");
    // Reactivating the account lets the same key through, and shows nothing was counted.
    await s.admin(`/admin/accounts/${pastDue.accountId}`, { method: "PATCH", json: { status: "active" } });
    expect(await usedOf(pastDue.apiKey)).toBe(0);
  });

  test("a replaced key stops at once; the new key works (API and CLI-equivalent admin route)", async () => {
    const { accountId, apiKey } = await s.createAccount({ plan: "pro" });
    expect((await s.api("/api/user/usage", { key: apiKey })).status).toBe(200);
    const res = await s.admin(`/admin/accounts/${accountId}/keys`, { method: "POST" });
    expect(res.status).toBe(201);
    const { api_key: newKey } = (await res.json()) as { api_key: string };
    expect(newKey).toMatch(/^og_[A-Za-z0-9]{32}$/);
    expect(newKey).not.toBe(apiKey);
    await expectError(await s.api("/api/user/usage", { key: apiKey }), 401, "INVALID_API_KEY");
    expect((await s.api("/api/user/usage", { key: newKey })).status).toBe(200);
  });

  test("keys are stored only as SHA-256 hashes", async () => {
    const { accountId, apiKey } = await s.createAccount();
    const rows = await s.service.services.store.listApiKeys(accountId);
    expect(rows.some((r) => r.keyHash === new Bun.CryptoHasher("sha256").update(apiKey).digest("hex"))).toBe(true);
    const dump = JSON.stringify(rows);
    expect(dump).not.toContain(apiKey);
  });

  test("admin API: off without a token is 404; wrong token is 401", async () => {
    const res = await s.api("/admin/accounts", { json: { email: "a@b.co", plan: "free" }, headers: { authorization: "Bearer wrong-token-xxxxxxxxxxxx" } });
    await expectError(res, 401, "UNAUTHORIZED");
    const off = await startTestService({ OG_ADMIN_TOKEN: "" });
    try {
      await expectError(await off.api("/admin/accounts/acc_x", { headers: { authorization: "Bearer anything" } }), 404, "NOT_FOUND");
    } finally {
      await off.stop();
    }
  });

  test("unknown route → 404 NOT_FOUND, wrong method → 405 with Allow", async () => {
    const { apiKey } = await s.createAccount({ plan: "pro" });
    await expectError(await s.api("/api/nope", { key: apiKey }), 404, "NOT_FOUND");
    const res = await s.api("/api/generate", { key: apiKey, method: "GET" });
    await expectError(res, 405, "METHOD_NOT_ALLOWED");
    expect(res.headers.get("allow")).toBe("POST");
  });
});
