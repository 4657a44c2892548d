/**
 * The settle cascade and the lane fairness of a claim, as each store writes what the core
 * decides (src/events/settlement.ts, src/events/lane-claim.ts) through its `transact`: run
 * against both stores (describeEachStore).
 */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { claimJobs } from "../../../src/events/lane-claim.ts";
import { settleJob } from "../../../src/events/settlement.ts";
import type { ClaimRequest, JobSettlement, Store } from "../../../src/store/types.ts";
import { DeliveryLog } from "../../../src/webhooks/delivery-log.ts";
import { describeEachStore, openTestStore } from "../../support/stores.ts";

let store: Store;
const NOW = Date.UTC(2030, 0, 1);
describeEachStore(() => {
  beforeEach(async () => {
    store = await openTestStore();
  });
  afterEach(async () => {
    await store.close();
  });
  const log = new DeliveryLog();
  const settle = (settlement: JobSettlement) => store.transact((tx) => settleJob(tx, settlement, log));
  const claim = (request: ClaimRequest) => store.transact((tx) => claimJobs(tx, request));

  async function accountWithWebhooks(tag: string, webhooks: number) {
    const accountId = `acc_${tag}`;
    await store.createAccount(
      {
        id: accountId,
        email: `${tag}@example.com`,
        plan: "starter",
        status: "active",
        customQuota: null,
        customRequestsPerSecond: null,
        createdAt: NOW,
        updatedAt: NOW,
      },
      { id: `key_${tag}`, accountId, keyHash: `h_${tag}`, keyPrefix: "og_abcd", createdAt: NOW, revokedAt: null },
    );
    const ids: string[] = [];
    for (let i = 0; i < webhooks; i++) {
      const id = `wh_${tag}_${i}`;
      await store.createWebhook(
        {
          id,
          accountId,
          url: "https://example.com/h",
          events: ["image.generated"],
          secret: "s",
          status: "enabled",
          disabledReason: null,
          createdAt: NOW,
          updatedAt: NOW,
        },
        20,
      );
      ids.push(id);
    }
    return { accountId, webhookIds: ids };
  }

  const delivery = (accountId: string, webhookId: string, runAt = NOW) =>
    store.enqueueJob({ kind: "webhook_delivery", lane: webhookId, accountId, webhookId, runAt, now: NOW });
  const attempt = (accountId: string, webhookId: string, jobId: string, n: number) => ({
    id: `dlv_${jobId}_${n}`,
    webhookId,
    accountId,
    jobId,
    eventId: "evt_x",
    eventType: "image.generated",
    attempt: n,
    statusCode: 500,
    error: null,
    delivered: false,
    durationMs: 3,
    nextAttemptAt: null,
    createdAt: NOW,
  });
  const giveUp = (accountId: string, webhookId: string, jobId: string) => ({
    jobId,
    now: NOW + 1,
    status: "failed" as const,
    runAt: NOW,
    lastError: "http 500",
    deliveryAttempt: attempt(accountId, webhookId, jobId, 8),
    disableWebhook: {
      webhookId,
      reason: "failing",
      alert: { kind: "webhook_disabled" as const, subject: "Webhook disabled", facts: { webhook_id: webhookId }, dedupeKey: null },
    },
  });

  test("a final failure disables the enabled webhook, cancels its queued deliveries, alerts the owner once, and logs the attempt", async () => {
    const {
      accountId,
      webhookIds: [hook],
    } = await accountWithWebhooks("cascade", 1);
    const failing = await delivery(accountId, hook!);
    const queued = await delivery(accountId, hook!, NOW + 1000);
    expect(await settle(giveUp(accountId, hook!, failing))).toEqual({ wasPending: true, status: "failed" });
    expect(await store.getWebhookById(hook!)).toMatchObject({ status: "disabled", disabledReason: "failing" });
    expect(await store.getJob(failing)).toMatchObject({ status: "failed", lastError: "http 500", finishedAt: NOW + 1 });
    expect(await store.getJob(queued)).toMatchObject({ status: "canceled", lastError: "dropped" });
    const alerts = await store.recentEmailAlerts(accountId, 10);
    expect(alerts.map((a) => [a.kind, a.recipient])).toEqual([["webhook_disabled", "cascade@example.com"]]);
    expect((await store.listDeliveryAttempts(hook!, 10)).map((a) => a.jobId)).toEqual([failing]);

    // Settling the canceled one as a final failure too: it was not pending, so no second alert.
    expect(await settle(giveUp(accountId, hook!, queued))).toEqual({ wasPending: false, status: "canceled" });
    expect(await store.recentEmailAlerts(accountId, 10)).toHaveLength(1);
  });

  test("a retry puts the job back to pending at its next run time and leaves the webhook alone", async () => {
    const {
      accountId,
      webhookIds: [hook],
    } = await accountWithWebhooks("retry", 1);
    const job = await delivery(accountId, hook!);
    const settled = await settle({
      jobId: job,
      now: NOW + 1,
      status: "pending",
      runAt: NOW + 60_000,
      lastError: "http 500",
      deliveryAttempt: attempt(accountId, hook!, job, 1),
    });
    expect(settled).toEqual({ wasPending: true, status: "pending" });
    expect(await store.getJob(job)).toMatchObject({ status: "pending", runAt: NOW + 60_000, claimedUntil: null, finishedAt: null });
    expect(await store.getWebhookById(hook!)).toMatchObject({ status: "enabled" });
  });

  test("a claim takes oldest first, at most each lane's room, up to the limit, and searches past full lanes when asked", async () => {
    const {
      accountId,
      webhookIds: [busy, quiet],
    } = await accountWithWebhooks("lanes", 2);
    const busyJobs: string[] = [];
    for (let i = 0; i < 40; i++) busyJobs.push(await delivery(accountId, busy!, NOW - 1000 + i));
    const quietJob = await delivery(accountId, quiet!, NOW);
    const request = { kinds: ["webhook_delivery"], now: NOW, realNow: NOW, leaseMs: 30_000, laneRoom: (lane: string) => (lane === busy ? 3 : 8) };

    // Limit 4: the window (24 rows) is all the busy lane, which has room for 3.
    const first = await claim({ ...request, limit: 4 });
    expect(first.jobs.map((j) => j.id)).toEqual(busyJobs.slice(0, 3));
    expect(first.searchedEmpty).toBe(false);
    const past = await claim({ ...request, limit: 4, laneRoom: (lane) => (lane === busy ? 0 : 8), searchPastFullLanes: true });
    expect(past.jobs.map((j) => j.id)).toEqual([quietJob]);
    expect(past.jobs[0]).toMatchObject({ attempts: 1, claimedUntil: NOW + 30_000 });
    const again = await claim({ ...request, limit: 4, laneRoom: (lane) => (lane === busy ? 0 : 8), searchPastFullLanes: true });
    expect(again).toEqual({ jobs: [], searchedEmpty: true });
  });
});
