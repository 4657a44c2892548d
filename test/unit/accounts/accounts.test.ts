/** Accounts and keys against the Store interface: validation, key lookup, replacement, limits. */
import { expect, test } from "bun:test";
import { AccountService } from "../../../src/accounts/accounts.ts";
import { hashApiKey } from "../../../src/accounts/keys.ts";
import { TestClock } from "../../../src/clock.ts";
import { describeEachStore, openTestStore } from "../../support/stores.ts";

async function setup() {
  const store = await openTestStore();
  const clock = new TestClock(Date.UTC(2031, 0, 1));
  return { store, clock, accounts: new AccountService(store, clock) };
}

const fieldsOf = (error: any) => error.details?.map((d: { field: string }) => d.field);

describeEachStore(() => {
  test("create returns the key once; only its hash is stored; the key finds the account", async () => {
    const { store, accounts } = await setup();
    const { account, apiKey } = await accounts.create({ email: "a@example.com", plan: "starter" });
    expect(apiKey).toMatch(/^og_[A-Za-z0-9]{32}$/);
    expect(account).toMatchObject({
      email: "a@example.com",
      plan: "starter",
      status: "active",
      quota: 500,
      requests_per_second: 5,
      key_prefix: apiKey.slice(0, 7),
    });
    const keys = await store.listApiKeys(account.id);
    expect(keys.map((k) => k.keyHash)).toEqual([hashApiKey(apiKey)]);
    expect(JSON.stringify(keys)).not.toContain(apiKey);
    expect((await accounts.findByKey(apiKey))?.account.id).toBe(account.id);
    expect(await accounts.findByKey("og_" + "x".repeat(32))).toBeUndefined();
    expect(await accounts.count()).toBe(1);
  });

  test("bad input names every field and changes nothing", async () => {
    const { accounts } = await setup();
    expect(fieldsOf(await accounts.create({ email: "nope", plan: "gold", status: "frozen" }).catch((e) => e))).toEqual(["email", "plan", "status"]);
    expect(fieldsOf(await accounts.create({ email: "c@example.com", plan: "custom" }).catch((e) => e))).toEqual(["quota", "requests_per_second"]);
    expect(fieldsOf(await accounts.create({ email: "c@example.com", plan: "pro", quota: 5 }).catch((e) => e))).toEqual(["quota"]);
    expect(await accounts.count()).toBe(0);
  });

  test("replacing the key stops the old one at once; the new one works", async () => {
    const { accounts } = await setup();
    const { account, apiKey } = await accounts.create({ email: "r@example.com", plan: "pro" });
    const newKey = await accounts.replaceKey(account.id);
    expect(await accounts.findByKey(apiKey)).toBeUndefined();
    expect((await accounts.findByKey(newKey))?.account.id).toBe(account.id);
    expect((await accounts.show(account.id)).key_prefix).toBe(newKey.slice(0, 7));
    expect(await accounts.replaceKey("acc_missing").catch((e) => e.code)).toBe("NOT_FOUND");
  });

  test("update: custom limits apply and are cleared when leaving custom; unknown ids are NOT_FOUND", async () => {
    const { accounts, clock } = await setup();
    const { account } = await accounts.create({ email: "u@example.com", plan: "free" });
    await clock.advance(60);
    const custom = await accounts.update(account.id, { plan: "custom", quota: 7, requestsPerSecond: 3 });
    expect(custom).toMatchObject({ plan: "custom", quota: 7, requests_per_second: 3 });
    expect(custom.updated_at).not.toBe(custom.created_at);
    expect(await accounts.update(account.id, { status: "past_due" })).toMatchObject({ status: "past_due", quota: 7 });
    expect(await accounts.update(account.id, { plan: "agency" })).toMatchObject({ plan: "agency", quota: 10000, requests_per_second: 25 });
    expect(await accounts.update("acc_missing", { plan: "pro" }).catch((e) => e.code)).toBe("NOT_FOUND");
    expect((await accounts.list()).map((a) => a.id)).toEqual([account.id]);
  });
});
