/**
 * The app-level answers in process: /healthz, and routes that do not exist (404 and 405 in the envelope).
 */
import { describe, expect, test } from "bun:test";
import { envelope } from "../support/envelope.ts";
import { customAccount, useInProcessApp } from "../support/in-process.ts";

const s = useInProcessApp();

describe("routes that do not exist", () => {
  test("an unknown path is 404 NOT_FOUND in the envelope", async () => {
    await envelope(await s.api("/no/such/page"), 404, "NOT_FOUND");
    const { key } = await customAccount(s);
    await envelope(await s.api("/api/no-such-route", { key }), 404, "NOT_FOUND");
  });

  test("a known path with another method is 405 METHOD_NOT_ALLOWED with Allow", async () => {
    const { key } = await customAccount(s);
    const res = await s.api("/api/user/usage", { key, method: "DELETE" });
    await envelope(res, 405, "METHOD_NOT_ALLOWED");
    expect(res.headers.get("allow")).toContain("GET");
  });
});

describe("shapes", () => {
  test("GET /healthz answers without a key and carries a request id", async () => {
    const res = await s.api("/healthz");
    expect(res.status).toBe(200);
    expect(res.headers.get("x-request-id")).toMatch(/^req_/);
  });
});
