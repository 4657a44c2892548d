/**
 * Usage, reservations and the monthly reset in PostgreSQL (../ports/usage.ts); confirming and
 * counting units, with what follows them, and the monthly reset are src/metering/counting.ts's
 * routines, run through `transact` on the transaction handle (./tx.ts). Exact across instances:
 * - a unit is reserved by ONE conditional upsert whose `WHERE used + reserved < quota` PostgreSQL
 *   re-checks after taking the row lock, so concurrent reservations never exceed the quota; the
 *   same statement records it as the reserving instance's (unit_reservations), so a dead
 *   instance's units are given back by a live one (./liveness.ts);
 * - confirmations and counts lock the month's row (./tx.ts), so each sees distinct counters and
 *   a threshold event is decided once;
 * - the monthly reset is claimed by a conditional update of `reset_emitted_at` (once per account
 *   and month cluster-wide).
 * Every transaction locks the month's row before the instance's reservation row, in
 * reserveUnit's order, so two never wait on each other in a cycle.
 */
import type { AccountRecord } from "../ports/accounts.ts";
import type { UsageCounters, UsagePort } from "../ports/usage.ts";
import { ACCOUNT, columns, USAGE } from "../records.ts";
import type { PostgresConnection } from "./connection.ts";
import { reclaimDeadReservations } from "./liveness.ts";
import { PostgresTx } from "./tx.ts";

const USAGE_COLUMNS = columns(USAGE);
const OWED_COLUMNS = columns(ACCOUNT, { table: "a" });

export class PostgresUsage implements UsagePort {
  /** Month counters being read, by account and month (see `usage`). */
  readonly #usageReads = new SharedReads<UsageCounters | undefined>();

  constructor(private readonly c: PostgresConnection) {}

  reserveUnit(input: { accountId: string; period: string; quota: number }): Promise<boolean> {
    // ONE statement: create the month's row with this reservation, or take one more unit only
    // while used + reserved < quota. On conflict PostgreSQL locks the row and evaluates the
    // WHERE on its latest version, so concurrent reservations from every instance are exact.
    return this.c.run(async (sql) => {
      const rows = await sql`
        with reserved as (
          insert into usage_periods (account_id, period, reserved)
          select ${input.accountId}, ${input.period}, 1 where ${input.quota}::int > 0
          on conflict (account_id, period) do update set reserved = usage_periods.reserved + 1
            where usage_periods.used + usage_periods.reserved + usage_periods.batch_reserved < ${input.quota}::int
          returning account_id, period)
        insert into unit_reservations (instance_key, account_id, period, count)
        select ${this.c.instanceKey}, account_id, period, 1 from reserved
        on conflict (instance_key, account_id, period) do update set count = unit_reservations.count + 1
        returning 1`;
      return rows.length > 0;
    });
  }

  releaseUnit(input: { accountId: string; period: string }): Promise<void> {
    return this.c.write((tx) => new PostgresTx(this.c, tx).releaseReserved(input.accountId, input.period));
  }

  isImageCounted(input: { accountId: string; period: string; contentAddress: string }): Promise<boolean> {
    return this.c.run(
      async (sql) =>
        (
          await sql`select 1 from counted_images where account_id = ${input.accountId} and period = ${input.period} and content_address = ${input.contentAddress}`
        ).length > 0,
    );
  }

  /**
   * Concurrent reads of one account's month share a query, but only one sent after each of them
   * arrived (SharedReads), so every read still sees every count answered before it began.
   */
  usage(accountId: string, period: string): Promise<UsageCounters | undefined> {
    return this.#usageReads.read(`${accountId}\u0000${period}`, () =>
      this.c.run(
        async (sql) =>
          (await sql`select ${sql.unsafe(USAGE_COLUMNS)} from usage_periods where account_id = ${accountId} and period = ${period}`)[0] as
            | UsageCounters
            | undefined,
      ),
    );
  }

  dailyUsage(accountId: string, period: string): Promise<{ day: string; count: number }[]> {
    return this.c.run(
      async (sql) =>
        (await sql`select day, count from usage_days where account_id = ${accountId} and day like ${`${period}-%`} order by day`) as unknown as {
          day: string;
          count: number;
        }[],
    );
  }

  /**
   * Start-up: units reserved by instances that are gone (a previous run of this one included)
   * go back to their accounts; live instances' reservations are left alone. The same happens
   * whenever dead leases are released (a claim's liveness check).
   */
  clearStaleReservations(): Promise<void> {
    return this.c.write(async (tx) => {
      await reclaimDeadReservations(this.c, tx);
    });
  }

  reclaimReservations(heldBy: (accountId: string, period: string) => number): Promise<number> {
    return this.c.write(async (tx) => {
      const mine = await tx`select account_id, period from unit_reservations where instance_key = ${this.c.instanceKey} and count > 0`;
      let back = 0;
      for (const { account_id: accountId, period } of mine) {
        // reserveUnit's lock order (the month's row, then the reservation row). Once this
        // instance's row is locked, no reservation of ours can commit on it before this
        // transaction does, and each one that did was counted by the caller before it was sent:
        // `heldBy` read now can only be larger than what the row holds, never smaller.
        await tx`select 1 from usage_periods where account_id = ${accountId} and period = ${period} for update`;
        const [row] = await tx`select count from unit_reservations
          where instance_key = ${this.c.instanceKey} and account_id = ${accountId} and period = ${period} for update`;
        const excess = Number(row?.count ?? 0) - heldBy(accountId, period);
        if (excess <= 0) continue;
        await tx`update unit_reservations set count = count - ${excess}
          where instance_key = ${this.c.instanceKey} and account_id = ${accountId} and period = ${period}`;
        await tx`update usage_periods set reserved = greatest(reserved - ${excess}, 0) where account_id = ${accountId} and period = ${period}`;
        back += excess;
      }
      return back;
    });
  }

  accountsOwedReset(input: { period: string; createdBefore: number; limit: number }): Promise<AccountRecord[]> {
    return this.c.run(
      async (sql) =>
        (await sql`select ${sql.unsafe(OWED_COLUMNS)} from accounts a left join usage_periods u on u.account_id = a.id and u.period = ${input.period}
          where a.created_at < ${input.createdBefore} and u.reset_emitted_at is null order by a.seq limit ${input.limit}`) as unknown as AccountRecord[],
    );
  }
}

/**
 * Reads of one key coalesced without ever answering from before a caller arrived: a read that
 * finds a query of its key in flight (sent before it arrived) does not join it, but waits for
 * the next one, sent as soon as that query settles and shared by every read that arrived
 * meanwhile. So at most one query per key is in flight, and each answer is as fresh as a query
 * of the caller's own.
 */
export class SharedReads<T> {
  readonly #slots = new Map<string, { running: Promise<T>; next?: Promise<T> }>();
  /** Queries sent (for tests). */
  queries = 0;

  read(key: string, query: () => Promise<T>): Promise<T> {
    const slot = this.#slots.get(key);
    if (!slot) {
      const fresh = {} as { running: Promise<T>; next?: Promise<T> };
      this.#slots.set(key, fresh);
      return this.#send(fresh, key, query);
    }
    slot.next ??= slot.running.then(
      () => this.#send(slot, key, query),
      () => this.#send(slot, key, query),
    );
    return slot.next;
  }

  #send(slot: { running: Promise<T>; next?: Promise<T> }, key: string, query: () => Promise<T>): Promise<T> {
    slot.next = undefined;
    this.queries++;
    const running: Promise<T> = query().finally(() => {
      if (slot.running === running && slot.next === undefined) this.#slots.delete(key);
    });
    slot.running = running;
    return running;
  }
}
