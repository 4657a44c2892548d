/**
 * What an operator changes while the server runs applies on the very next request, whether it
 * was changed through this server (the admin API) or by another process on the same store (the
 * CLI). The server remembers the owners of API keys and signing keys between requests (SQLite),
 * so these are the cases where a remembered answer would be wrong.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { buildSignedUrl } from "../../src/signing/index.ts";
import { runCli } from "../support/process.ts";
import { startTestService, type TestService } from "../support/harness.ts";

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc.stop());

const usage = (key: string) => svc.api("/api/user/usage", { key });
const errorCode = async (res: Response) => ((await res.json()) as { code: string }).code;

test("a key replaced with the CLI is refused on the next request; the new one works at once", async () => {
  const { accountId, apiKey } = await svc.createAccount({ plan: "starter" });
  // Used twice, so the server has it at hand.
  for (let i = 0; i < 2; i++) expect((await usage(apiKey)).status).toBe(200);

  const replaced = await runCli(["keys", "replace", accountId, "--json"], svc.storeEnv);
  expect(replaced.code).toBe(0);
  const newKey = (JSON.parse(replaced.stdout) as { api_key: string }).api_key;

  const old = await usage(apiKey);
  expect(old.status).toBe(401);
  expect(await errorCode(old)).toBe("INVALID_API_KEY");
  expect((await usage(newKey)).status).toBe(200);
});

test("a status or plan changed with the CLI applies on the next request", async () => {
  const { accountId, apiKey } = await svc.createAccount({ plan: "starter" });
  for (let i = 0; i < 2; i++) expect((await usage(apiKey)).status).toBe(200);

  expect((await runCli(["accounts", "update", accountId, "--status", "canceled"], svc.storeEnv)).code).toBe(0);
  const refused = await usage(apiKey);
  expect(refused.status).toBe(403);
  expect(await errorCode(refused)).toBe("SUBSCRIPTION_CANCELED");

  expect((await runCli(["accounts", "update", accountId, "--status", "active", "--plan", "custom", "--quota", "77", "--rps", "3"], svc.storeEnv)).code).toBe(0);
  const back = await usage(apiKey);
  expect(back.status).toBe(200);
  expect(back.headers.get("ratelimit-limit")).toBe("3");
  expect(((await back.json()) as { quota: number }).quota).toBe(77);
});

test("a plan changed through the admin API applies on the next request", async () => {
  const { accountId, apiKey } = await svc.createAccount({ plan: "starter" });
  for (let i = 0; i < 2; i++) expect((await usage(apiKey)).headers.get("ratelimit-limit")).toBe("5");
  const changed = await svc.admin(`/admin/accounts/${accountId}`, { method: "PATCH", json: { plan: "pro" } });
  expect(changed.status).toBe(200);
  const next = await usage(apiKey);
  expect(next.status).toBe(200);
  expect(next.headers.get("ratelimit-limit")).not.toBe("5");
  expect(((await next.json()) as { plan: string }).plan).toBe("pro");
});

test("a signed image URL follows the account's status changed with the CLI, and its key's deletion", async () => {
  const { accountId, apiKey } = await svc.createAccount({ plan: "starter" });
  const created = await svc.api("/api/signing-keys", { key: apiKey, method: "POST" });
  expect(created.status).toBe(201);
  const key = (await created.json()) as { id: string; secret: string };
  const url = buildSignedUrl({ baseUrl: svc.url, keyId: key.id, secret: key.secret, template: "event", ext: "png", params: { title: "Operator changes" } });
  for (let i = 0; i < 2; i++) expect((await fetch(url)).status).toBe(200);

  expect((await runCli(["accounts", "update", accountId, "--status", "canceled"], svc.storeEnv)).code).toBe(0);
  const refused = await fetch(url);
  expect(refused.status).toBe(403);
  expect(await errorCode(refused)).toBe("SUBSCRIPTION_CANCELED");

  expect((await runCli(["accounts", "update", accountId, "--status", "active"], svc.storeEnv)).code).toBe(0);
  expect((await fetch(url)).status).toBe(200);
  expect((await svc.api(`/api/signing-keys/${key.id}`, { key: apiKey, method: "DELETE" })).status).toBe(200);
  const gone = await fetch(url);
  expect(gone.status).toBe(401);
});
