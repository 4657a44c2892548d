/**
 * The domain logic the stores run on their transaction handle, beyond settling and claiming
 * (settle-and-claim.test.ts): an event's fan-out and its alert (src/events/fan-out.ts,
 * src/events/raise-alert.ts), what follows a counted unit and the monthly reset
 * (src/metering/counting.ts), the delivery log's trim (src/webhooks/delivery-log.ts) and a
 * webhook's status change (src/webhooks/status-change.ts): run through the `transact` of
 * both stores (describeEachStore).
 */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { recordEvents } from "../../../src/events/fan-out.ts";
import { confirmReserved, countOne, emitMonthlyReset } from "../../../src/metering/counting.ts";
import type { AlertDraft, DeliveryAttemptRecord, EventDraft, Store, UsageDecision, WebhookChanges } from "../../../src/store/types.ts";
import { DeliveryLog } from "../../../src/webhooks/delivery-log.ts";
import { updateWebhook } from "../../../src/webhooks/status-change.ts";
import { describeEachStore, openTestStore, seedAccount } from "../../support/stores.ts";

let store: Store;
const NOW = Date.UTC(2030, 0, 1);
const PERIOD = "2030-01";
describeEachStore(() => {
  beforeEach(async () => {
    store = await openTestStore();
  });
  afterEach(async () => {
    await store.close();
  });

  async function account(tag: string) {
    const accountId = await seedAccount(store, tag, NOW);
    return accountId;
  }

  async function webhook(accountId: string, id: string, events: string[], createdAt = NOW) {
    await store.createWebhook(
      { id, accountId, url: "https://example.com/h", events, secret: "s", status: "enabled", disabledReason: null, createdAt, updatedAt: createdAt },
      20,
    );
    return id;
  }

  const record = (accountId: string, drafts: EventDraft[], now: number) => store.transact((tx) => recordEvents(tx, accountId, drafts, now));
  const update = (accountId: string, id: string, changes: WebhookChanges) => store.transact((tx) => updateWebhook(tx, accountId, id, changes));
  const log = new DeliveryLog();
  const logAttempt = (attempt: DeliveryAttemptRecord) => store.transact((tx) => log.write(tx, attempt));
  const alert = (dedupeKey: string | null): AlertDraft => ({ kind: "usage_warning", subject: "80 % used", facts: { percent: 80 }, dedupeKey });
  const pendingDeliveries = async () => (await store.listJobs({ status: "pending" })).filter((job) => job.kind === "webhook_delivery");

  test("an event gets one delivery per enabled webhook that takes its type, in creation order; the event row only when one does", async () => {
    const accountId = await account("fan");
    await webhook(accountId, "wh_late", ["image.generated"], NOW + 2);
    await webhook(accountId, "wh_early", ["image.generated", "usage.warning"], NOW + 1);
    await webhook(accountId, "wh_other", ["usage.reset"]);
    await webhook(accountId, "wh_off", ["image.generated"]);
    await update(accountId, "wh_off", {
      url: "https://example.com/h",
      events: ["image.generated"],
      enabled: false,
      disableReason: "manual",
      now: NOW,
    });

    const [taken, untaken] = await record(
      accountId,
      [
        { type: "image.generated", data: '{"n":1}' },
        { type: "usage.limit_reached", data: "{}" },
      ],
      NOW,
    );
    const deliveries = await pendingDeliveries();
    expect(deliveries.map((job) => [job.webhookId, job.eventId, job.lane])).toEqual([
      ["wh_early", taken!.id, "wh_early"],
      ["wh_late", taken!.id, "wh_late"],
    ]);
    expect(await store.getEvent(taken!.id)).toEqual({ id: taken!.id, accountId, type: "image.generated", data: '{"n":1}', createdAt: NOW });
    expect(untaken!.id).toStartWith("evt_");
    expect(await store.getEvent(untaken!.id)).toBeUndefined();
  });

  test("an event's alert is raised once per dedupe key, with the email job that sends it, even when no webhook takes the event", async () => {
    const accountId = await account("alert");
    await record(accountId, [{ type: "usage.warning", data: "{}", alert: alert(`${accountId}:${PERIOD}:usage_warning`) }], NOW);
    await record(accountId, [{ type: "usage.warning", data: "{}", alert: alert(`${accountId}:${PERIOD}:usage_warning`) }], NOW + 1);
    await record(accountId, [{ type: "usage.warning", data: "{}", alert: alert(null) }], NOW + 2);
    const alerts = await store.recentEmailAlerts(accountId, 10);
    expect(alerts.map((a) => [a.kind, a.recipient, a.state, a.facts])).toEqual([
      ["usage_warning", "alert@example.com", "pending", { percent: 80 }],
      ["usage_warning", "alert@example.com", "pending", { percent: 80 }],
    ]);
    const emails = (await store.listJobs({ status: "pending" })).filter((job) => job.kind === "email");
    expect(emails.map((job) => job.id).sort()).toEqual(alerts.map((a) => a.jobId!).sort());
    expect(emails.map((job) => job.payload).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))).toEqual(
      alerts.map((a) => ({ alert_id: a.id })).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
    );
  });

  test("a counted unit counts the day, sets the marks it decides once, and records the events it decides in the same transaction", async () => {
    const accountId = await account("count");
    await webhook(accountId, "wh_count", ["usage.warning"]);
    const decide = (after: { used: number }): UsageDecision =>
      after.used === 2
        ? { marks: ["warned80At", "warned90At"], events: [{ type: "usage.warning", data: `{"used":${after.used}}` }] }
        : { marks: [], events: [] };
    for (let i = 0; i < 3; i++) {
      expect(await store.reserveUnit({ accountId, period: PERIOD, quota: 10 })).toBe(true);
      await store.transact((tx) => confirmReserved(tx, { accountId, period: PERIOD, day: `${PERIOD}-0${1 + (i % 2)}`, now: NOW + i, decide }));
    }
    expect(await store.usage(accountId, PERIOD)).toMatchObject({
      used: 3,
      reserved: 0,
      warned80At: NOW + 1,
      warned90At: NOW + 1,
      warned95At: null,
      limitReachedAt: null,
    });
    expect(await store.dailyUsage(accountId, PERIOD)).toEqual([
      { day: `${PERIOD}-01`, count: 2 },
      { day: `${PERIOD}-02`, count: 1 },
    ]);
    const [delivery] = await pendingDeliveries();
    expect(JSON.parse((await store.getEvent(delivery!.eventId!))!.data)).toEqual({ used: 2 });

    // countOne takes the unit without a reservation, and stops at the quota with nothing written.
    expect(await store.transact((tx) => countOne(tx, { accountId, period: PERIOD, quota: 4, day: `${PERIOD}-02`, now: NOW + 5, decide }))).toMatchObject({
      used: 4,
    });
    expect(await store.transact((tx) => countOne(tx, { accountId, period: PERIOD, quota: 4, day: `${PERIOD}-02`, now: NOW + 6, decide }))).toBeUndefined();
    expect((await store.dailyUsage(accountId, PERIOD)).at(-1)).toEqual({ day: `${PERIOD}-02`, count: 2 });
  });

  test("the monthly reset is emitted once per account and month, with the previous month's use", async () => {
    const accountId = await account("reset");
    await webhook(accountId, "wh_reset", ["usage.reset"]);
    await store.transact((tx) =>
      countOne(tx, { accountId, period: "2029-12", quota: 10, day: "2029-12-31", now: NOW - 1, decide: () => ({ marks: [], events: [] }) }),
    );
    const reset = {
      accountId,
      period: PERIOD,
      previousPeriod: "2029-12",
      now: NOW,
      decide: (previousUsed: number) => ({ type: "usage.reset", data: `{"previous":${previousUsed}}` }),
    };
    expect(await store.accountsOwedReset({ period: PERIOD, createdBefore: NOW + 1, limit: 10 })).toHaveLength(1);
    expect(await store.transact((tx) => emitMonthlyReset(tx, reset))).toBe(true);
    expect(await store.transact((tx) => emitMonthlyReset(tx, { ...reset, now: NOW + 1 }))).toBe(false);
    expect(await store.accountsOwedReset({ period: PERIOD, createdBefore: NOW + 1, limit: 10 })).toEqual([]);
    const deliveries = await pendingDeliveries();
    expect(deliveries).toHaveLength(1);
    expect((await store.getEvent(deliveries[0]!.eventId!))!.data).toBe('{"previous":1}');
    expect(await store.usage(accountId, PERIOD)).toMatchObject({ resetEmittedAt: NOW, used: 0 });
  });

  test("a webhook's delivery log keeps its newest 100 attempts, trimmed now and then", async () => {
    const accountId = await account("log");
    await webhook(accountId, "wh_log", ["image.generated"]);
    for (let i = 0; i < 150; i++) {
      const logged = await logAttempt({
        id: `dlv_${String(i).padStart(3, "0")}`,
        webhookId: "wh_log",
        accountId,
        jobId: null,
        eventId: "evt_x",
        eventType: "image.generated",
        attempt: 1,
        statusCode: 204,
        error: null,
        delivered: true,
        durationMs: 2,
        nextAttemptAt: null,
        createdAt: NOW + i,
      });
      expect(logged).toBe(true);
    }
    const kept = await store.listDeliveryAttempts("wh_log", 1000);
    expect(kept).toHaveLength(100);
    expect(kept[0]).toMatchObject({ id: "dlv_149", delivered: true, statusCode: 204 });
    expect(kept.at(-1)!.id).toBe("dlv_050");
    // A gone webhook's attempts are not logged.
    expect(await store.deleteWebhook(accountId, "wh_log")).toBe(true);
    expect(await logAttempt({ ...kept[0]!, id: "dlv_late" })).toBe(false);
  });

  test("disabling a webhook cancels its queued deliveries and keeps the reason; enabling clears it; the same status changes nothing", async () => {
    const accountId = await account("status");
    await webhook(accountId, "wh_status", ["image.generated"]);
    await record(accountId, [{ type: "image.generated", data: "{}" }], NOW);
    const change = { url: "https://example.com/h2", events: ["image.generated"], disableReason: "paused by you", now: NOW + 1 };
    expect(await update(accountId, "wh_status", { ...change, enabled: false })).toMatchObject({
      status: "disabled",
      disabledReason: "paused by you",
      url: "https://example.com/h2",
    });
    expect(await store.listJobs({ status: "canceled" })).toEqual([expect.objectContaining({ webhookId: "wh_status", lastError: "dropped" })]);
    expect(await update(accountId, "wh_status", { ...change, disableReason: "other" })).toMatchObject({
      status: "disabled",
      disabledReason: "paused by you",
    });
    expect(await update(accountId, "wh_status", { ...change, enabled: true })).toMatchObject({
      status: "enabled",
      disabledReason: null,
      events: ["image.generated"],
    });
  });
});
