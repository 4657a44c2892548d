/**
 * What creating, settling and canceling a batch write, decided once for both stores and run
 * inside the store's transaction (see ../store/tx-steps.ts). The batch's units live in the
 * month's `batch_reserved` from creation until each item settles: a drawn item moves its unit into
 * `used` (with its events, like any counted unit: ../metering/counting.ts) and records its image
 * as counted this month; a failed or canceled one gives it back. The batch row is locked first in
 * every transaction that changes the batch, so its counts never race, and an item leaves `queued`
 * exactly once: no item is counted twice, however many drawers or instances try.
 */
import { afterCount, type CountTx } from "../metering/counting.ts";
import { recordEvent } from "../events/fan-out.ts";
import type { BatchItemSettlement, BatchItemStatus, BatchRecord, BatchStatus, NewBatch } from "../store/ports/batches.ts";
import type { UsageCounters } from "../store/ports/usage.ts";
import { type Step, step, type TxRoutine } from "../store/tx-steps.ts";

/** The error of an item canceled before it was drawn. */
export const CANCELED_ITEM_ERROR = "canceled before it was drawn";

/** What the batch routines read and write, inside the store's transaction. */
export interface BatchTx extends CountTx {
  /**
   * Reserves `units` of the month for a batch while `used + reserved + batch_reserved + units <=
   * quota` (creating the month's counters when missing; the row locked). `{left}` when they do not fit.
   */
  reserveBatchUnits(accountId: string, period: string, quota: number, units: number): Step<{ reserved: true } | { reserved: false; left: number }>;
  insertBatch(batch: BatchRecord, items: readonly string[]): Step<void>;
  /** The batch, its row locked until the transaction ends. */
  lockBatch(batchId: string): Step<BatchRecord | null>;
  itemStatus(batchId: string, index: number): Step<BatchItemStatus | null>;
  setItem(batchId: string, index: number, status: BatchItemStatus, url: string | null, error: string | null): Step<void>;
  /** Every queued item of the batch fails with `error`; returns how many. */
  failQueuedItems(batchId: string, error: string): Step<number>;
  /** One of the batch units moves into `used`; the counters after it. */
  countBatchUnit(accountId: string, period: string): Step<UsageCounters>;
  /** Gives `units` batch units back (never below zero). */
  releaseBatchUnits(accountId: string, period: string, units: number): Step<void>;
  /** Records the image as counted this month (nothing when it is already). */
  markImageCounted(accountId: string, period: string, contentAddress: string, now: number): Step<void>;
  updateBatch(batchId: string, change: { status: BatchStatus; done: number; failed: number; finishedAt: number | null }): Step<BatchRecord>;
}

/** See BatchesPort.createBatch. */
export function* createBatch(tx: BatchTx, input: NewBatch): TxRoutine<{ batch: BatchRecord } | { left: number }> {
  const total = input.items.length;
  const reserved = yield* step(tx.reserveBatchUnits(input.accountId, input.period, input.quota, total));
  if (!reserved.reserved) return { left: reserved.left };
  const batch: BatchRecord = {
    id: input.id,
    accountId: input.accountId,
    signingKeyId: input.signingKeyId,
    requestId: input.requestId,
    period: input.period,
    status: "queued",
    total,
    done: 0,
    failed: 0,
    createdAt: input.createdAt,
    finishedAt: null,
  };
  yield* step(tx.insertBatch(batch, input.items));
  // Drawers (on every instance) look at once rather than at their next tick.
  yield* step(tx.jobsQueued());
  return { batch };
}

/** See BatchesPort.settleBatchItem. */
export function* settleBatchItem(tx: BatchTx, s: BatchItemSettlement): TxRoutine<{ settled: boolean }> {
  const batch = yield* step(tx.lockBatch(s.batchId));
  if (!batch) return { settled: false };
  if ((yield* step(tx.itemStatus(s.batchId, s.index))) !== "queued") return { settled: false };
  const { outcome } = s;
  if (outcome.ok) {
    yield* step(tx.setItem(s.batchId, s.index, "done", outcome.url, null));
    const after = yield* step(tx.countBatchUnit(batch.accountId, batch.period));
    yield* step(tx.markImageCounted(batch.accountId, batch.period, outcome.contentAddress, s.now));
    yield* afterCount(tx, after, { accountId: batch.accountId, period: batch.period, day: outcome.day, now: s.now, decide: outcome.decide });
  } else {
    yield* step(tx.setItem(s.batchId, s.index, "failed", null, outcome.error));
    yield* step(tx.releaseBatchUnits(batch.accountId, batch.period, 1));
  }
  const done = batch.done + (outcome.ok ? 1 : 0);
  const failed = batch.failed + (outcome.ok ? 0 : 1);
  const finished = done + failed >= batch.total;
  const updated = yield* step(tx.updateBatch(batch.id, { status: finished ? "done" : "running", done, failed, finishedAt: finished ? s.now : null }));
  if (finished) yield* recordEvent(tx, batch.accountId, s.completed(updated), s.now);
  return { settled: true };
}

/** See BatchesPort.cancelBatch. */
export function* cancelBatch(tx: BatchTx, batchId: string, now: number): TxRoutine<BatchRecord | undefined> {
  const batch = yield* step(tx.lockBatch(batchId));
  if (!batch) return undefined;
  if (batch.status === "done" || batch.status === "canceled") return batch;
  const canceled = yield* step(tx.failQueuedItems(batchId, CANCELED_ITEM_ERROR));
  if (canceled > 0) yield* step(tx.releaseBatchUnits(batch.accountId, batch.period, canceled));
  return yield* step(tx.updateBatch(batchId, { status: "canceled", done: batch.done, failed: batch.failed + canceled, finishedAt: now }));
}
