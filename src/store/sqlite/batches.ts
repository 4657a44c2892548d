/**
 * Batches in SQLite (../ports/batches.ts). What creating, settling and canceling write is the
 * core's routines (src/batches/settlement.ts), run through `transact` on the transaction handle
 * (./tx.ts). One process draws on this file, so a lease left by a previous run is simply cleared
 * at start-up.
 */
import type { BatchesPort, BatchItemRecord, BatchRecord, ClaimedBatchItem } from "../ports/batches.ts";
import { BATCH, BATCH_ITEM, columns } from "../records.ts";
import { LEAVES_KEYS, type SqliteConnection } from "./connection.ts";

const BATCH_COLUMNS = columns(BATCH);
const ITEM_COLUMNS = columns(BATCH_ITEM);

export class SqliteBatches implements BatchesPort {
  constructor(private readonly c: SqliteConnection) {}

  getBatch(accountId: string, id: string): Promise<BatchRecord | undefined> {
    return this.c.read(
      () => (this.c.sql(`SELECT ${BATCH_COLUMNS} FROM batches WHERE id = ? AND account_id = ?`).get(id, accountId) as BatchRecord | null) ?? undefined,
    );
  }

  listBatches(accountId: string, since: number, limit: number): Promise<BatchRecord[]> {
    return this.c.read(
      () =>
        this.c
          .sql(`SELECT ${BATCH_COLUMNS} FROM batches WHERE account_id = ? AND created_at >= ? ORDER BY created_at DESC, rowid DESC LIMIT ?`)
          .all(accountId, since, limit) as BatchRecord[],
    );
  }

  batchItems(batchId: string, fromIndex: number, limit: number): Promise<BatchItemRecord[]> {
    return this.c.read(
      () =>
        this.c
          .sql(`SELECT ${ITEM_COLUMNS} FROM batch_items WHERE batch_id = ? AND idx >= ? ORDER BY idx LIMIT ?`)
          .all(batchId, fromIndex, limit) as BatchItemRecord[],
    );
  }

  async claimBatchItems(input: { limit: number; realNow: number; leaseMs: number }): Promise<ClaimedBatchItem[]> {
    if (input.limit <= 0) return [];
    // Looked for every second by an idle server: a read first, the write only when there is something to claim.
    const due = "SELECT 1 AS x FROM batch_items WHERE status = 'queued' AND (claimed_until IS NULL OR claimed_until < ?) LIMIT 1";
    if (!(await this.c.read(() => this.c.sql(due).get(input.realNow) !== null))) return [];
    return this.c.write(() => {
      const claimed = this.c
        .sql(
          `UPDATE batch_items SET claimed_until = ?1, attempts = attempts + 1 WHERE rowid IN (
             SELECT rowid FROM batch_items WHERE status = 'queued' AND (claimed_until IS NULL OR claimed_until < ?2) ORDER BY rowid LIMIT ?3)
           RETURNING batch_id AS batchId, idx AS "index", body, attempts`,
        )
        .all(input.realNow + input.leaseMs, input.realNow, input.limit) as Pick<ClaimedBatchItem, "batchId" | "index" | "body" | "attempts">[];
      const batchOf = this.c.sql(`SELECT ${BATCH_COLUMNS} FROM batches WHERE id = ?`);
      const batches = new Map<string, BatchRecord>();
      return claimed
        .sort((a, b) => (a.batchId === b.batchId ? a.index - b.index : 0))
        .map((item) => {
          let batch = batches.get(item.batchId);
          if (!batch) batches.set(item.batchId, (batch = batchOf.get(item.batchId) as BatchRecord));
          return { ...item, accountId: batch.accountId, signingKeyId: batch.signingKeyId, requestId: batch.requestId, period: batch.period };
        });
    }, LEAVES_KEYS);
  }

  unclaimBatchItem(batchId: string, index: number): Promise<void> {
    return this.c.write(() => {
      this.c
        .sql("UPDATE batch_items SET claimed_until = NULL, attempts = max(attempts - 1, 0) WHERE batch_id = ? AND idx = ? AND status = 'queued'")
        .run(batchId, index);
    }, LEAVES_KEYS);
  }

  releaseBatchLeases(): Promise<number> {
    return this.c.write(
      () => this.c.sql("UPDATE batch_items SET claimed_until = NULL WHERE status = 'queued' AND claimed_until IS NOT NULL").run().changes,
      LEAVES_KEYS,
    );
  }

  pruneBatches(createdBefore: number): Promise<number> {
    return this.c.write(
      () => this.c.sql("DELETE FROM batches WHERE created_at < ? AND status IN ('done', 'canceled')").run(createdBefore).changes,
      LEAVES_KEYS,
    );
  }
}
