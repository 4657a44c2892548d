/**
 * Metering against the Store interface: reserve / confirm / release, the once-a-month threshold
 * marks and their events, exactness under concurrency, and `withUnit` giving the unit back
 * whatever fails between reserve and answer — the confirmation itself included.
 */
import { describe, expect, test } from "bun:test";
import { AccountService } from "../../../src/accounts/accounts.ts";
import { TestClock } from "../../../src/clock.ts";
import { Outbox } from "../../../src/events/outbox.ts";
import { Metering, QuotaExceededError, type GenerationFacts } from "../../../src/metering/quota.ts";
import { periodOf } from "../../../src/metering/period.ts";
import { StoreUnavailableError } from "../../../src/store/errors.ts";
import type { Store } from "../../../src/store/types.ts";
import { waitFor } from "../../support/wait.ts";
import { describeEachStore, openTestStore } from "../../support/stores.ts";

const facts: GenerationFacts = { requestId: "req_1", template: "event", width: 1200, height: 630, generationTimeMs: 5 };

async function setup(quota = 10, wrap: (store: Store) => Store = (s) => s) {
  const inner = await openTestStore();
  const store = wrap(inner);
  const clock = new TestClock(Date.UTC(2031, 2, 10, 12));
  const outbox = new Outbox();
  const metering = new Metering(store, clock, outbox, undefined, { reclaims: true });
  const accounts = new AccountService(inner, clock);
  const { account: view } = await accounts.create({ email: "m@example.com", plan: "custom", quota, requestsPerSecond: 100 });
  const account = (await inner.getAccount(view.id))!;
  const counters = async () => (await inner.usage(account.id, periodOf(clock.now()))) ?? { used: 0, reserved: 0 };
  return { store: inner, clock, outbox, metering, account, counters };
}

/**
 * A store whose named methods fail the next `times` calls: before doing their work (an
 * unavailable database) or, with `afterCommit`, after it (a connection lost after the commit).
 */
function failing(methods: (keyof Store)[], times: { n: number }, afterCommit = false) {
  const fault = () => new StoreUnavailableError(afterCommit ? "injected fault after commit" : "injected fault", afterCommit ? "unreachable" : "disk_full");
  return (store: Store): Store =>
    new Proxy(store, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver);
        if (typeof value !== "function") return value;
        if (!methods.includes(name as keyof Store)) return value.bind(target);
        return async (...args: unknown[]) => {
          if (!afterCommit && times.n > 0) {
            times.n--;
            throw fault();
          }
          const result = await value.apply(target, args);
          if (afterCommit && times.n > 0) {
            times.n--;
            throw fault();
          }
          return result;
        };
      },
    });
}

describeEachStore(() => {
  describe("reserve, confirm, release", () => {
    test("a confirmed unit moves from reserved to used; a released one goes back", async () => {
      const { metering, account, counters } = await setup();
      const r1 = await metering.reserve(account);
      expect(await counters()).toMatchObject({ used: 0, reserved: 1 });
      expect(await metering.confirm(account, r1, facts)).toBe(1);
      expect(await counters()).toMatchObject({ used: 1, reserved: 0 });
      const r2 = await metering.reserve(account);
      await metering.release(r2);
      await metering.release(r2); // never below zero
      expect(await counters()).toMatchObject({ used: 1, reserved: 0 });
      expect(await metering.usage(account)).toMatchObject({ quota: 10, used: 1, remaining: 9, percent_used: 10 });
    });

    test("reserved units count against the quota; QUOTA_EXCEEDED carries the quota", async () => {
      const { metering, account } = await setup(2);
      await metering.reserve(account);
      await metering.reserve(account);
      const error = await metering.reserve(account).catch((e) => e);
      expect(error).toBeInstanceOf(QuotaExceededError);
      expect(error).toMatchObject({ code: "QUOTA_EXCEEDED", quota: 2, message: "Monthly quota exceeded. Limit: 2 images." });
    });

    test("thresholds: each mark and event once a month, several in one confirmation when a request crosses them", async () => {
      const { store, metering, account, counters, clock } = await setup(4);
      await store.createWebhook(
        {
          id: "wh_all",
          accountId: account.id,
          url: "https://example.com/h",
          events: ["image.generated", "usage.warning", "usage.limit_reached", "usage.reset"],
          secret: "s".repeat(16),
          status: "enabled",
          disabledReason: null,
          createdAt: 0,
          updatedAt: 0,
        },
        20,
      );
      const types = async () => Promise.all((await store.listJobs({ status: "pending" })).map(async (job) => (await store.getEvent(job.eventId!))!.type));
      for (let i = 0; i < 3; i++) await metering.confirm(account, await metering.reserve(account), facts);
      // 3 of 4 = 75 %: no warning yet.
      expect((await types()).filter((t) => t !== "image.generated")).toEqual([]);
      await metering.confirm(account, await metering.reserve(account), facts);
      // 4 of 4 crosses 80, 90, 95 and 100 % at once.
      expect((await types()).filter((t) => t !== "image.generated")).toEqual(["usage.warning", "usage.warning", "usage.warning", "usage.limit_reached"]);
      expect(await counters()).toMatchObject({
        used: 4,
        warned80At: clock.now(),
        warned90At: clock.now(),
        warned95At: clock.now(),
        limitReachedAt: clock.now(),
      });
      const warnings = (await store.listJobs({ status: "pending" })).map((j) => j.eventId!);
      const data = await Promise.all(warnings.map(async (id) => JSON.parse((await store.getEvent(id))!.data)));
      expect(data.filter((d) => d.percentage).map((d) => d.percentage)).toEqual([80, 90, 95]);
    });

    test("a new month starts at zero without any job", async () => {
      const { metering, account, clock } = await setup(3);
      await metering.confirm(account, await metering.reserve(account), facts);
      await clock.advance(31 * 86_400);
      expect(await metering.usage(account)).toMatchObject({ used: 0, remaining: 3 });
    });
  });

  describe("exact under concurrency", () => {
    test("200 concurrent counted generations against 10 units: exactly 10 succeed, nothing stays reserved", async () => {
      const { metering, account, counters } = await setup(10);
      let worked = 0;
      const results = await Promise.allSettled(
        Array.from({ length: 200 }, () =>
          metering.withUnit(account, async () => {
            worked++;
            await new Promise((resolve) => setImmediate(resolve));
            return { result: "png", facts };
          }),
        ),
      );
      const ok = results.filter((r) => r.status === "fulfilled");
      expect(ok).toHaveLength(10);
      expect(worked).toBe(10);
      expect(results.filter((r) => r.status === "rejected").every((r) => (r as PromiseRejectedResult).reason instanceof QuotaExceededError)).toBe(true);
      expect(await counters()).toMatchObject({ used: 10, reserved: 0 });
      expect(ok.map((r) => (r as PromiseFulfilledResult<{ used: number }>).value.used).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    });
  });

  describe("countDone: work already done (a cache hit) counted in one step", () => {
    test("counts into used directly, with the threshold events; units reserved in flight count against the quota; exhausted writes nothing", async () => {
      const { store, metering, account, counters } = await setup(5);
      await store.createWebhook(
        {
          id: "wh_all",
          accountId: account.id,
          url: "https://example.com/h",
          events: ["image.generated", "usage.warning", "usage.limit_reached"],
          secret: "s".repeat(16),
          status: "enabled",
          disabledReason: null,
          createdAt: 0,
          updatedAt: 0,
        },
        20,
      );
      const types = async () => Promise.all((await store.listJobs({ status: "pending" })).map(async (job) => (await store.getEvent(job.eventId!))!.type));
      expect(await metering.countDone(account, facts)).toEqual({ quota: 5, used: 1, remaining: 4 });
      expect(await counters()).toMatchObject({ used: 1, reserved: 0 });
      await metering.reserve(account); // a render in flight holds one unit
      for (let i = 0; i < 3; i++) await metering.countDone(account, facts);
      expect(await counters()).toMatchObject({ used: 4, reserved: 1 });
      // 4 of 5 = 80 %: the first warning, once.
      expect((await types()).filter((t) => t !== "image.generated")).toEqual(["usage.warning"]);
      const error = await metering.countDone(account, facts).catch((e) => e);
      expect(error).toBeInstanceOf(QuotaExceededError);
      expect(error).toMatchObject({ code: "QUOTA_EXCEEDED", quota: 5 });
      expect(await counters()).toMatchObject({ used: 4, reserved: 1 });
      expect((await types()).length).toBe(5);
    });

    test("200 concurrent counts against 10 units: exactly 10 succeed with distinct counters", async () => {
      const { metering, account, counters } = await setup(10);
      const results = await Promise.allSettled(Array.from({ length: 200 }, () => metering.countDone(account, facts)));
      const ok = results.filter((r) => r.status === "fulfilled");
      expect(ok.map((r) => (r as PromiseFulfilledResult<{ used: number }>).value.used).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      expect(results.filter((r) => r.status === "rejected").every((r) => (r as PromiseRejectedResult).reason instanceof QuotaExceededError)).toBe(true);
      expect(await counters()).toMatchObject({ used: 10, reserved: 0 });
    });
  });

  describe("withUnit: no unit lost or double-counted whatever fails", () => {
    test("the work fails: the unit is released and the error passes through", async () => {
      const { metering, account, counters } = await setup(1);
      const boom = new Error("render failed");
      expect(await metering.withUnit(account, () => Promise.reject(boom)).catch((e) => e)).toBe(boom);
      expect(await counters()).toMatchObject({ used: 0, reserved: 0 });
      expect((await metering.withUnit(account, async () => ({ result: 1, facts }))).remaining).toBe(0);
    });

    test("the confirmation fails: nothing counted, the unit released, the store's error passes through", async () => {
      const times = { n: 1 };
      const { metering, account, counters } = await setup(1, failing(["transact"], times));
      const error = await metering.withUnit(account, async () => ({ result: 1, facts })).catch((e) => e);
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect(await counters()).toMatchObject({ used: 0, reserved: 0 });
      // The one unit is still there to use.
      expect(await metering.withUnit(account, async () => ({ result: 1, facts }))).toMatchObject({ used: 1, remaining: 0 });
    });

    test("the confirmation and the release fail: the unit comes back with the next reclaim, once", async () => {
      const times = { n: 2 }; // confirm, release
      const { metering, account, counters } = await setup(2, failing(["transact", "releaseUnit"], times));
      expect(await metering.withUnit(account, async () => ({ result: 1, facts })).catch((e) => e)).toBeInstanceOf(StoreUnavailableError);
      expect(await counters()).toMatchObject({ used: 0, reserved: 1 });
      expect(metering.unitsHeld).toBe(0);
      expect(await metering.reclaimUnheld()).toBe(1);
      expect(await metering.reclaimUnheld()).toBe(0);
      expect(metering.reclaimed).toBe(1);
      expect(await counters()).toMatchObject({ used: 0, reserved: 0 });
      for (const used of [1, 2]) expect(await metering.withUnit(account, async () => ({ result: 1, facts }))).toMatchObject({ used });
    });

    test("a reservation that committed but reported a failure is reclaimed (no request holds it)", async () => {
      const times = { n: 3 };
      const { metering, account, counters } = await setup(3, failing(["reserveUnit"], times, true));
      for (let i = 0; i < 3; i++)
        expect(await metering.withUnit(account, async () => ({ result: 1, facts })).catch((e) => e)).toBeInstanceOf(StoreUnavailableError);
      // Before reclaiming, the whole quota is reserved by nobody: the account cannot generate.
      expect(await counters()).toMatchObject({ used: 0, reserved: 3 });
      expect(await metering.withUnit(account, async () => ({ result: 1, facts })).catch((e) => e)).toBeInstanceOf(QuotaExceededError);
      expect(await metering.reclaimUnheld()).toBe(3);
      for (const used of [1, 2, 3]) expect(await metering.withUnit(account, async () => ({ result: 1, facts }))).toMatchObject({ used });
      expect(await counters()).toMatchObject({ used: 3, reserved: 0 });
    });

    test("a reclaim never takes a unit that a request in flight holds", async () => {
      const { metering, account, counters } = await setup(2);
      let finish!: () => void;
      const working = new Promise<void>((resolve) => {
        finish = resolve;
      });
      const inFlight = metering.withUnit(account, async () => {
        await working;
        return { result: 1, facts };
      });
      await waitFor(() => metering.unitsHeld === 1, "the unit to be reserved");
      expect(await metering.reclaimUnheld({ always: true })).toBe(0);
      expect(await counters()).toMatchObject({ used: 0, reserved: 1 });
      finish();
      expect(await inFlight).toMatchObject({ used: 1 });
      expect(await counters()).toMatchObject({ used: 1, reserved: 0 });
    });

    test("concurrent reservations and reclaims: never more than the quota, none lost", async () => {
      const { metering, account, counters } = await setup(20);
      const runs = Array.from({ length: 30 }, () => metering.withUnit(account, async () => ({ result: 1, facts })).catch((e) => e));
      const reclaims = Array.from({ length: 10 }, () => metering.reclaimUnheld({ always: true }));
      const results = await Promise.all(runs);
      expect(await Promise.all(reclaims)).toEqual(Array(10).fill(0));
      expect(results.filter((r) => r instanceof QuotaExceededError)).toHaveLength(10);
      expect(await counters()).toMatchObject({ used: 20, reserved: 0 });
    });
  });
});
