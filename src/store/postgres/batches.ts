/**
 * Batches in PostgreSQL (../ports/batches.ts); what creating, settling and canceling write is the
 * core's routines (src/batches/settlement.ts), run through `transact` on the transaction handle
 * (./tx.ts). Exact across instances: items are claimed with FOR UPDATE SKIP LOCKED and a lease
 * stamped with the claiming instance, every change to a batch locks its row first, and an item
 * leaves `queued` once.
 */
import type { BatchesPort, BatchItemRecord, BatchRecord, ClaimedBatchItem } from "../ports/batches.ts";
import { BATCH, BATCH_ITEM, columns } from "../records.ts";
import { LIVENESS_NS, type PostgresConnection } from "./connection.ts";

const BATCH_COLUMNS = columns(BATCH);
const ITEM_COLUMNS = columns(BATCH_ITEM);

export class PostgresBatches implements BatchesPort {
  constructor(private readonly c: PostgresConnection) {}

  getBatch(accountId: string, id: string): Promise<BatchRecord | undefined> {
    return this.c.run(
      async (sql) => (await sql`select ${sql.unsafe(BATCH_COLUMNS)} from batches where id = ${id} and account_id = ${accountId}`)[0] as BatchRecord | undefined,
    );
  }

  listBatches(accountId: string, since: number, limit: number): Promise<BatchRecord[]> {
    return this.c.run(
      async (sql) =>
        (await sql`select ${sql.unsafe(BATCH_COLUMNS)} from batches where account_id = ${accountId} and created_at >= ${since}
          order by created_at desc, seq desc limit ${limit}`) as unknown as BatchRecord[],
    );
  }

  batchItems(batchId: string, fromIndex: number, limit: number): Promise<BatchItemRecord[]> {
    return this.c.run(
      async (sql) =>
        (await sql`select ${sql.unsafe(ITEM_COLUMNS)} from batch_items where batch_id = ${batchId} and idx >= ${fromIndex} order by idx limit ${limit}`) as unknown as BatchItemRecord[],
    );
  }

  claimBatchItems(input: { limit: number; realNow: number; leaseMs: number }): Promise<ClaimedBatchItem[]> {
    if (input.limit <= 0) return Promise.resolve([]);
    return this.c.write(async (tx) => {
      // SKIP LOCKED: another instance claiming at the same moment takes other items. A lease of
      // an instance that is gone (its liveness lock dropped) is free at once, not when it runs out.
      const rows = await tx`
        with picked as (
          select batch_id, idx from batch_items i
          where status = 'queued' and (claimed_until is null or claimed_until < ${input.realNow}
            or (claimed_by is not null and claimed_by <> ${this.c.instanceKey}
                and not exists (select 1 from pg_locks l where l.locktype = 'advisory' and l.classid = ${LIVENESS_NS}
                                  and l.objid = i.claimed_by and l.objsubid = 2 and l.granted)))
          order by seq limit ${input.limit} for update skip locked)
        update batch_items i set claimed_until = ${input.realNow + input.leaseMs}, claimed_by = ${this.c.instanceKey}, attempts = i.attempts + 1
        from picked p, batches b where i.batch_id = p.batch_id and i.idx = p.idx and b.id = i.batch_id
        returning i.batch_id as "batchId", i.idx as "index", b.account_id as "accountId", b.signing_key_id as "signingKeyId",
          b.request_id as "requestId", b.period, i.body, i.attempts`;
      return (rows as unknown as ClaimedBatchItem[]).sort((a, b) => (a.batchId === b.batchId ? a.index - b.index : 0));
    });
  }

  unclaimBatchItem(batchId: string, index: number): Promise<void> {
    return this.c.write(async (tx) => {
      await tx`update batch_items set claimed_until = null, claimed_by = null, attempts = greatest(attempts - 1, 0) where batch_id = ${batchId} and idx = ${index} and status = 'queued'`;
    });
  }

  /** Leases of instances that are gone (a previous run of this one included); live instances' stay. */
  releaseBatchLeases(): Promise<number> {
    return this.c.write(async (tx) => {
      const released = await tx`update batch_items i set claimed_until = null, claimed_by = null
        where status = 'queued' and claimed_by is not null and claimed_by <> ${this.c.instanceKey}
          and not exists (select 1 from pg_locks l where l.locktype = 'advisory' and l.classid = ${LIVENESS_NS}
                            and l.objid = i.claimed_by and l.objsubid = 2 and l.granted)`;
      return released.count;
    });
  }

  pruneBatches(createdBefore: number): Promise<number> {
    return this.c.write(async (tx) => (await tx`delete from batches where created_at < ${createdBefore} and status in ('done', 'canceled')`).count);
  }
}
