/**
 * What creating, settling and canceling a batch write, decided once for both stores and run
 * inside the store's transaction (see ../store/tx-steps.ts). The batch's units live in the
 * month's `batch_reserved` from creation until each item settles: a drawn item moves its unit into
 * `used` (with its events, like any counted unit: ../metering/counting.ts) and records its image
 * as counted this month; a failed or canceled one gives it back. The batch row is locked first in
 * every transaction that changes the batch, so its counts never race, and an item leaves `queued`
 * exactly once: no item is counted twice, however many drawers or instances try.
 */
import { afterCount } from "../metering/counting.ts";
import { recordEvent } from "../events/fan-out.ts";
import type { BatchItemSettlement, BatchRecord, NewBatch } from "../store/ports/batches.ts";
import type { BatchTx } from "../store/ports/tx.ts";
import { step, type TxRoutine } from "../store/tx-steps.ts";

/** The error of an item canceled before it was drawn. */
export const CANCELED_ITEM_ERROR = "canceled before it was drawn";

/**
 * Creates the batch and its items and reserves `items.length` units of `period` at once: `{left}`
 * (nothing written) when fewer units are left. Tells the job listeners (`onJobsAvailable`), so
 * drawers on every instance look at once.
 */
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

/**
 * Settles a queued item: drawn — the item is done with its URL, one of the batch's units moves
 * into `used` with its events, the image is recorded as counted — or failed, its unit given back;
 * the batch's counts follow, and its last item finishes it with `batch.completed`. `settled:
 * false` when the item had already left `queued` (canceled, or settled by another drawer):
 * nothing is written.
 */
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

/**
 * Cancels the account's batch: its queued items fail as canceled and their units go back; items
 * already drawn stay. Undefined for another account's or no batch; a finished batch is returned unchanged.
 */
export function* cancelBatch(tx: BatchTx, accountId: string, batchId: string, now: number): TxRoutine<BatchRecord | undefined> {
  const batch = yield* step(tx.lockBatch(batchId));
  if (batch?.accountId !== accountId) return undefined;
  if (batch.status === "done" || batch.status === "canceled") return batch;
  const canceled = yield* step(tx.failQueuedItems(batchId, CANCELED_ITEM_ERROR));
  if (canceled > 0) yield* step(tx.releaseBatchUnits(batch.accountId, batch.period, canceled));
  return yield* step(tx.updateBatch(batchId, { status: "canceled", done: batch.done, failed: batch.failed + canceled, finishedAt: now }));
}
