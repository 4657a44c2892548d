/**
 * The monthly reset against the Store interface: one `usage.reset` per account and month with
 * the previous month's usage, never twice (also when two resetters race, as two instances
 * would), none for an account created during the month.
 */
import { expect, test } from "bun:test";
import { AccountService } from "../../../src/accounts/accounts.ts";
import { TestClock } from "../../../src/clock.ts";
import { Outbox } from "../../../src/events/outbox.ts";
import { Metering } from "../../../src/metering/quota.ts";
import type { Store } from "../../../src/store/types.ts";
import { MonthlyReset } from "../../../src/worker/monthly-reset.ts";
import { describeEachStore, openTestStore } from "../../support/stores.ts";

const facts = { requestId: "req_1", template: "event", width: 1200, height: 630, generationTimeMs: 5 };

/** The `usage.reset` events recorded, as the delivery jobs of a webhook subscribed to them show. */
async function resets(store: Store) {
  const jobs = await store.listJobs({ status: "pending" });
  const events = await Promise.all(jobs.map((job) => store.getEvent(job.eventId!)));
  return events.filter((e) => e!.type === "usage.reset").map((e) => ({ accountId: e!.accountId, data: JSON.parse(e!.data), at: e!.createdAt }));
}

async function subscribe(store: Store, accountId: string) {
  await store.createWebhook(
    {
      id: `wh_${accountId}`,
      accountId,
      url: "https://example.com/h",
      events: ["usage.reset"],
      secret: "s".repeat(16),
      status: "enabled",
      disabledReason: null,
      createdAt: 0,
      updatedAt: 0,
    },
    20,
  );
}

describeEachStore(() => {
  test("once per account and month, with the previous month's usage; none for an account created during the month", async () => {
    const store = await openTestStore();
    const clock = new TestClock(Date.UTC(2031, 4, 20, 12));
    const outbox = new Outbox();
    const accounts = new AccountService(store, clock);
    const metering = new Metering(store, clock, outbox);
    const reset = new MonthlyReset(store, clock, outbox);

    const { account: old } = await accounts.create({ email: "old@example.com", plan: "custom", quota: 9, requestsPerSecond: 1 });
    await subscribe(store, old.id);
    const oldRecord = (await store.getAccount(old.id))!;
    for (let i = 0; i < 3; i++) await metering.confirm(oldRecord, await metering.reserve(oldRecord), facts);
    expect(await reset.check()).toBe(0); // May 2031: the account did not exist when May began

    await clock.advance(12 * 86_400); // 1 June 2031, 12:00
    const { account: fresh } = await accounts.create({ email: "new@example.com", plan: "pro" });
    await subscribe(store, fresh.id);
    expect(await reset.check()).toBe(1);
    expect(await reset.check()).toBe(0); // cheap: the month was checked
    expect(await new MonthlyReset(store, clock, outbox).check()).toBe(0); // a restart: claimed already
    expect(await resets(store)).toEqual([{ accountId: old.id, data: { previous_usage: 3, new_quota: 9, plan: "custom" }, at: clock.now() }]);

    await clock.advance(30 * 86_400); // 1 July: both existed when July began; June had no usage
    const [a, b] = await Promise.all([new MonthlyReset(store, clock, outbox).check(), new MonthlyReset(store, clock, outbox).check()]);
    expect(a + b).toBe(2); // two racing resetters emit each account's reset once between them
    const july = (await resets(store)).filter((r) => r.at === clock.now());
    expect(july.map((r) => r.accountId).sort()).toEqual([old.id, fresh.id].sort());
    expect(july.find((r) => r.accountId === old.id)!.data.previous_usage).toBe(0);
  });
});
