/**
 * What a dead instance leaves behind, given back by a live one. Each instance holds a
 * session-level advisory lock as its heartbeat (PostgresConnection.holdLiveness); PostgreSQL drops
 * it the moment the instance's connection dies (kill -9, power loss), so an instance without its
 * lock is gone: its job leases are released and its reserved units go back to their accounts,
 * well before a lease would expire on its own.
 */
import { LIVENESS_NS, type PostgresConnection, type Tx } from "./connection.ts";

/** Inside a transaction: releases leases held by instances that are gone; returns how many. Their reservations go back too. */
export async function releaseDeadLeases(c: PostgresConnection, tx: Tx): Promise<number> {
  const released = await tx`
    update jobs set claimed_until = null, claimed_by = null
    where status = 'pending' and claimed_by is not null and claimed_by <> ${c.instanceKey}
      and not exists (select 1 from pg_locks l where l.locktype = 'advisory' and l.classid = ${LIVENESS_NS}
                        and l.objid = jobs.claimed_by and l.objsubid = 2 and l.granted)`;
  await reclaimDeadReservations(c, tx);
  return released.count;
}

/** Inside a transaction: the units reserved by instances that are gone go back to their accounts; returns how many. */
export async function reclaimDeadReservations(c: PostgresConnection, tx: Tx): Promise<number> {
  const rows = await tx`
    with dead as (
      delete from unit_reservations r
      where r.instance_key <> ${c.instanceKey}
        and not exists (select 1 from pg_locks l where l.locktype = 'advisory' and l.classid = ${LIVENESS_NS}
                          and l.objid = r.instance_key and l.objsubid = 2 and l.granted)
      returning account_id, period, count),
    totals as (select account_id, period, sum(count)::int as n from dead group by account_id, period)
    update usage_periods u set reserved = greatest(u.reserved - t.n, 0)
    from totals t where u.account_id = t.account_id and u.period = t.period
    returning t.n`;
  return rows.reduce((sum, row) => sum + Number(row.n), 0);
}
