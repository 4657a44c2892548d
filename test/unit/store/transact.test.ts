/**
 * `Store.transact`, the one way the core's routines reach a transaction: what a routine writes
 * commits with its result, and a routine that throws leaves nothing behind — run against both
 * stores (describeEachStore).
 */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { settleJob } from "../../../src/events/settlement.ts";
import { step } from "../../../src/store/tx-steps.ts";
import type { NewJob, Store, StoreTx } from "../../../src/store/types.ts";
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

  const job = (lane: string): NewJob => ({ kind: "transact_test", lane, runAt: NOW, now: NOW });
  const pendingLanes = async () => (await store.listJobs({ status: "pending" })).map((j) => j.lane).sort();

  test("a routine's writes commit together with its result", async () => {
    const ids = await store.transact(function* (tx: StoreTx) {
      const first = yield* step(tx.insertJob(job("a")));
      const second = yield* step(tx.insertJob(job("b")));
      return [first, second];
    });
    expect(ids).toHaveLength(2);
    expect((await store.getJob(ids[0]!))?.lane).toBe("a");
    expect(await pendingLanes()).toEqual(["a", "b"]);
  });

  test("a routine that throws writes nothing, and the store goes on", async () => {
    await expect(
      store.transact(function* (tx: StoreTx) {
        yield* step(tx.insertJob(job("lost")));
        throw new Error("the routine failed after a write");
      }),
    ).rejects.toThrow("the routine failed after a write");
    expect(await pendingLanes()).toEqual([]);
    await store.transact(function* (tx: StoreTx) {
      yield* step(tx.insertJob(job("kept")));
    });
    expect(await pendingLanes()).toEqual(["kept"]);
  });

  test("settling a delivery attempt without a delivery log to write it to is refused, and the job is left as it was", async () => {
    const id = await store.enqueueJob(job("no-log"));
    const settlement = {
      jobId: id,
      now: NOW + 1,
      status: "succeeded" as const,
      runAt: NOW,
      lastError: null,
      deliveryAttempt: {
        id: "dlv_no_log",
        webhookId: "wh_none",
        accountId: "acc_none",
        jobId: id,
        eventId: "evt_x",
        eventType: "image.generated",
        attempt: 1,
        statusCode: 204,
        error: null,
        delivered: true,
        durationMs: 1,
        nextAttemptAt: null,
        createdAt: NOW,
      },
    };
    await expect(store.transact((tx) => settleJob(tx, settlement))).rejects.toThrow("gave no delivery log");
    expect(await store.getJob(id)).toMatchObject({ status: "pending", finishedAt: null });
  });
});
