/**
 * Once-a-month counting of public-URL images against the Store interface (both stores,
 * describeEachStore): the first confirmation of a content address counts and records
 * `image.generated`; a racing second one (another request or instance that also reserved)
 * counts nothing and gives its unit back in the same transaction; a new month counts again.
 */
import { describe, expect, test } from "bun:test";
import { AccountService } from "../../../src/accounts/accounts.ts";
import { TestClock } from "../../../src/clock.ts";
import { Outbox } from "../../../src/events/outbox.ts";
import { periodOf } from "../../../src/metering/period.ts";
import { Metering, type GenerationFacts } from "../../../src/metering/quota.ts";
import { describeEachStore, openTestStore } from "../../support/stores.ts";

const facts: GenerationFacts = { requestId: "req_1", template: "event", width: 1200, height: 630, generationTimeMs: 5 };
const ADDRESS = "a".repeat(64);

async function setup(quota = 10) {
  const store = await openTestStore();
  const clock = new TestClock(Date.UTC(2031, 2, 10, 12));
  const metering = new Metering(store, clock, new Outbox());
  const { account: view } = await new AccountService(store, clock).create({ email: "i@example.com", plan: "custom", quota, requestsPerSecond: 100 });
  const account = (await store.getAccount(view.id))!;
  const counters = async () => (await store.usage(account.id, periodOf(clock.now()))) ?? { used: 0, reserved: 0 };
  return { store, clock, metering, account, counters };
}

describeEachStore(() => {
  describe("withImageUnit", () => {
    test("20 racing confirmations of one address count exactly one; every other unit goes back", async () => {
      const { store, metering, account, counters } = await setup(100);
      expect(await metering.isImageCounted(account.id, ADDRESS)).toBe(false);
      const results = await Promise.all(Array.from({ length: 20 }, () => metering.withImageUnit(account, ADDRESS, async () => ({ result: "bytes", facts }))));
      expect(results.filter((r) => r.counted).length).toBe(1);
      expect(await counters()).toMatchObject({ used: 1, reserved: 0 });
      expect(await metering.isImageCounted(account.id, ADDRESS)).toBe(true);
      expect((await store.dailyUsage(account.id, periodOf(Date.UTC(2031, 2, 10)))).map((d) => d.count)).toEqual([1]);
    });

    test("distinct addresses each count until the quota; a failed render gives its unit back", async () => {
      const { metering, account, counters } = await setup(3);
      await expect(metering.withImageUnit(account, "b".repeat(64), async () => Promise.reject(new Error("render failed")))).rejects.toThrow("render failed");
      expect(await counters()).toMatchObject({ used: 0, reserved: 0 });
      const outcomes = await Promise.allSettled(
        Array.from({ length: 6 }, (_, i) => metering.withImageUnit(account, String(i).repeat(64), async () => ({ result: i, facts }))),
      );
      expect(outcomes.filter((o) => o.status === "fulfilled").length).toBe(3);
      expect(outcomes.filter((o) => o.status === "rejected").map((o) => (o as PromiseRejectedResult).reason.code)).toEqual([
        "QUOTA_EXCEEDED",
        "QUOTA_EXCEEDED",
        "QUOTA_EXCEEDED",
      ]);
      expect(await counters()).toMatchObject({ used: 3, reserved: 0 });
    });

    test("a new calendar month counts the same address again", async () => {
      const { metering, account, clock } = await setup();
      expect((await metering.withImageUnit(account, ADDRESS, async () => ({ result: 1, facts }))).counted).toBe(true);
      expect((await metering.withImageUnit(account, ADDRESS, async () => ({ result: 1, facts }))).counted).toBe(false);
      await clock.advance(31 * 86_400);
      expect(await metering.isImageCounted(account.id, ADDRESS)).toBe(false);
      expect((await metering.withImageUnit(account, ADDRESS, async () => ({ result: 1, facts }))).counted).toBe(true);
    });
  });

  describe("signing keys in the store", () => {
    test("at most N per account under concurrency; delete is scoped to the account; find sees deletion at once", async () => {
      const { store, account } = await setup();
      const key = (i: number) => ({
        id: `sk_${String(i).padStart(20, "0")}`,
        accountId: account.id,
        secret: `ogsk_${"x".repeat(43)}`,
        createdAt: 1000 + i,
        lastUsedAt: null,
      });
      const created = await Promise.all(Array.from({ length: 8 }, (_, i) => store.createSigningKey(key(i), 5)));
      expect(created.filter((c) => c !== "limit_reached").length).toBe(5);
      const list = await store.listSigningKeys(account.id);
      expect(list.length).toBe(5);
      const first = list[0]!;
      expect((await store.findSigningKey(first.id))?.account.id).toBe(account.id);
      expect(await store.deleteSigningKey("acc_other", first.id)).toBe(false);
      await store.touchSigningKey(first.id, 5000);
      expect((await store.findSigningKey(first.id))?.key.lastUsedAt).toBe(5000);
      expect(await store.deleteSigningKey(account.id, first.id)).toBe(true);
      expect(await store.findSigningKey(first.id)).toBeUndefined();
    });
  });
});
