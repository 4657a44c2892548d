/**
 * Batches: many images in one call, drawn in the background (the store port of src/batches).
 * The rules of the Store (../types.ts) hold for every method: each is atomic, operational faults
 * are thrown as StoreUnavailableError, times are epoch ms, records are plain objects.
 */
import type { EventDraft } from "./jobs.ts";
import type { UsageCounters, UsageDecision } from "./usage.ts";

export type BatchStatus = "queued" | "running" | "done" | "canceled";
export type BatchItemStatus = "queued" | "done" | "failed";

export interface BatchRecord {
  /** `bat_` + random id. */
  id: string;
  accountId: string;
  signingKeyId: string;
  /** The request that created the batch. */
  requestId: string;
  /** The month (`YYYY-MM`) whose quota holds the batch's units. */
  period: string;
  status: BatchStatus;
  total: number;
  done: number;
  failed: number;
  createdAt: number;
  finishedAt: number | null;
}

export interface BatchItemRecord {
  batchId: string;
  index: number;
  status: BatchItemStatus;
  url: string | null;
  error: string | null;
}

/** An item handed to a drawer, with what drawing it needs from its batch. */
export interface ClaimedBatchItem {
  batchId: string;
  index: number;
  accountId: string;
  signingKeyId: string;
  requestId: string;
  period: string;
  /** The validated generate body, as JSON text. */
  body: string;
  /** Claims so far, this one included. */
  attempts: number;
}

export interface NewBatch {
  id: string;
  accountId: string;
  signingKeyId: string;
  requestId: string;
  period: string;
  /** The account's monthly quota: the batch's units are reserved only while `used + reserved + batch_reserved + total <= quota`. */
  quota: number;
  createdAt: number;
  /** Each item's validated generate body, as JSON text, in index order. */
  items: string[];
}

/** How one drawing ended. */
export type BatchItemOutcome =
  | {
      ok: true;
      url: string;
      /** The image's content address: recorded as counted this month, so a crawler's fetch of the URL counts nothing more. */
      contentAddress: string;
      day: string;
      /** The events the counted unit causes (`image.generated`, thresholds), from the counters after it. */
      decide: (after: UsageCounters) => UsageDecision;
    }
  | { ok: false; error: string };

export interface BatchItemSettlement {
  batchId: string;
  index: number;
  now: number;
  outcome: BatchItemOutcome;
  /** `batch.completed`, when this item was the batch's last. */
  completed: (batch: BatchRecord) => EventDraft;
}

/**
 * Batches and their items. Creating a batch, settling an item and canceling a batch are the
 * core's routines (src/batches/settlement.ts), run through `Store.transact`.
 */
export interface BatchesPort {
  /** The account's batch (another account's is undefined). */
  getBatch(accountId: string, id: string): Promise<BatchRecord | undefined>;
  /** The account's batches created at or after `since`, newest first. */
  listBatches(accountId: string, since: number, limit: number): Promise<BatchRecord[]>;
  /** Items of a batch from `fromIndex` on, in index order. */
  batchItems(batchId: string, fromIndex: number, limit: number): Promise<BatchItemRecord[]>;
  /**
   * Claims up to `limit` queued items whose lease is free or expired (real time), oldest batch
   * first; each claim's attempts + 1 and a lease to `realNow + leaseMs`. Concurrent claimers
   * never get the same item while its lease runs.
   */
  claimBatchItems(input: { limit: number; realNow: number; leaseMs: number }): Promise<ClaimedBatchItem[]>;
  /** Gives a claimed item's lease back, and its claim's attempt (a passing failure: it is drawn again later). */
  unclaimBatchItem(batchId: string, index: number): Promise<void>;
  /**
   * Start-up: leases of queued items left by a previous run go (SQLite: every one; PostgreSQL:
   * those of instances that are gone). Returns how many.
   */
  releaseBatchLeases(): Promise<number>;
  /** Deletes batches created before `createdBefore` that are finished, with their items. */
  pruneBatches(createdBefore: number): Promise<number>;
}
