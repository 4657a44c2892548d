/**
 * Signing keys (/api/signing-keys) in process (test/support/in-process.ts): the secret shown once,
 * the limit of five, and another account's key.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { customAccount, type InProcessApp, startInProcessApp } from "../support/in-process.ts";

let s: InProcessApp;
beforeAll(async () => {
  s = await startInProcessApp();
});
afterAll(() => s.stop());

const api = (path: string, key: string, init: { method?: string; json?: unknown } = {}) => s.api(path, { key, ...init });

const account = (input: Record<string, unknown> = {}) => customAccount(s, { quota: 1000, requests_per_second: 1000, ...input });

async function signingKey(apiKey: string): Promise<{ id: string; secret: string }> {
  const res = await api("/api/signing-keys", apiKey, { method: "POST" });
  expect(res.status).toBe(201);
  return (await res.json()) as { id: string; secret: string };
}

async function expectError(res: Response, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get("cache-control")).toBe("no-store");
  const body = (await res.json()) as { error: boolean; code: string };
  expect(body.error).toBe(true);
  expect(body.code).toBe(code);
}

describe("signing keys", () => {
  test("create shows the secret once; list never does; at most 5, the 6th is 409; another account's key is 404", async () => {
    const a = await account();
    const b = await account();
    const created = await signingKey(a.key);
    expect(created.id).toMatch(/^sk_[A-Za-z0-9]{20}$/);
    expect(created.secret).toMatch(/^ogsk_[A-Za-z0-9_-]{43}$/);
    const list = await (await api("/api/signing-keys", a.key)).text();
    expect(list).toContain(created.id);
    expect(list).not.toContain(created.secret);
    expect((JSON.parse(list) as { data: { id: string; created_at: string; last_used_at: null }[] }).data).toEqual([
      { id: created.id, created_at: expect.any(String), last_used_at: null },
    ]);

    // Four more, concurrently with three extra: exactly five exist.
    const results = await Promise.all(Array.from({ length: 7 }, () => api("/api/signing-keys", a.key, { method: "POST" })));
    expect(results.filter((r) => r.status === 201).length).toBe(4);
    for (const r of results.filter((r) => r.status !== 201)) await expectError(r, 409, "CONFLICT");
    expect(((await (await api("/api/signing-keys", a.key)).json()) as { data: unknown[] }).data.length).toBe(5);

    await expectError(await api(`/api/signing-keys/${created.id}`, b.key, { method: "DELETE" }), 404, "NOT_FOUND");
    const deleted = await api(`/api/signing-keys/${created.id}`, a.key, { method: "DELETE" });
    expect(deleted.status).toBe(200);
    expect(await deleted.json()).toEqual({ id: created.id, deleted: true });
    await expectError(await api(`/api/signing-keys/${created.id}`, a.key, { method: "DELETE" }), 404, "NOT_FOUND");
  });
});
