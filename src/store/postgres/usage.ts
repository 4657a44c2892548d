/**
 * Usage, reservations and the monthly reset in PostgreSQL (../ports/usage.ts); what follows a
 * counted unit is src/metering/counting.ts, run on the transaction handle (./tx.ts). Exact across
 * instances:
 * - a unit is reserved by ONE conditional upsert whose `WHERE used + reserved < quota` PostgreSQL
 *   re-checks after taking the row lock, so concurrent reservations never exceed the quota; the
 *   same statement records it as the reserving instance's (unit_reservations), so a dead
 *   instance's units are given back by a live one (./liveness.ts);
 * - confirmations lock the month's row with their UPDATE, so each sees distinct counters and a
 *   threshold event is decided once;
 * - the monthly reset is claimed by a conditional update of `reset_emitted_at` (once per account
 *   and month cluster-wide).
 * Every transaction locks the month's row before the instance's reservation row, in
 * reserveUnit's order, so two never wait on each other in a cycle.
 */
import { afterCount, type CountedUnit, emitMonthlyReset, type MonthlyReset } from "../../metering/counting.ts";
import { runAwaiting } from "../tx-steps.ts";
import type { AccountRecord } from "../ports/accounts.ts";
import type { UsageCounters, UsagePort } from "../ports/usage.ts";
import { ACCOUNT, columns, USAGE } from "../records.ts";
import type { PostgresConnection, Tx } from "./connection.ts";
import { reclaimDeadReservations } from "./liveness.ts";
import { PostgresTx } from "./tx.ts";

const USAGE_COLUMNS = columns(USAGE);
const OWED_COLUMNS = columns(ACCOUNT, { table: "a" });

export class PostgresUsage implements UsagePort {
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
    return this.c.write(async (tx) => {
      await this.#giveBack(tx, input.accountId, input.period);
    });
  }

  /**
   * Inside a transaction: gives one of this instance's reserved units back. Only a unit this
   * instance still holds is taken off `reserved` (one already reclaimed after this instance was
   * taken for dead is not given back twice).
   */
  async #giveBack(tx: Tx, accountId: string, period: string): Promise<void> {
    if (!(await this.#takeHeld(tx, accountId, period))) return;
    await tx`update usage_periods set reserved = greatest(reserved - 1, 0) where account_id = ${accountId} and period = ${period}`;
  }

  /** Inside a transaction: locks the month's row, then takes one unit off this instance's reservations; false when it held none. */
  async #takeHeld(tx: Tx, accountId: string, period: string): Promise<boolean> {
    await tx`select 1 from usage_periods where account_id = ${accountId} and period = ${period} for update`;
    const held = await tx`update unit_reservations set count = count - 1
      where instance_key = ${this.c.instanceKey} and account_id = ${accountId} and period = ${period} and count > 0 returning 1`;
    return held.length > 0;
  }

  confirmUnit(input: CountedUnit): Promise<UsageCounters> {
    return this.c.write((tx) => this.#confirm(tx, input));
  }

  confirmImageUnit(input: CountedUnit & { contentAddress: string }): Promise<UsageCounters | undefined> {
    const { accountId, period, contentAddress, now } = input;
    return this.c.write(async (tx) => {
      // The primary key decides across instances: a concurrent insert of the same row waits for
      // the other transaction and then finds the conflict.
      const inserted = await tx`insert into counted_images (account_id, period, content_address, created_at)
        values (${accountId}, ${period}, ${contentAddress}, ${now}) on conflict do nothing returning 1`;
      if (inserted.length === 0) {
        await this.#giveBack(tx, accountId, period);
        return undefined;
      }
      return this.#confirm(tx, input);
    });
  }

  isImageCounted(input: { accountId: string; period: string; contentAddress: string }): Promise<boolean> {
    return this.c.run(
      async (sql) =>
        (
          await sql`select 1 from counted_images where account_id = ${input.accountId} and period = ${input.period} and content_address = ${input.contentAddress}`
        ).length > 0,
    );
  }

  countUnit(input: CountedUnit & { quota: number }): Promise<UsageCounters | undefined> {
    return this.c.write(async (tx) => {
      // As reserveUnit's one conditional statement, but taking the unit straight into `used`;
      // the row lock it takes is held until commit, so concurrent counts see distinct counters.
      const [after] = await tx`insert into usage_periods (account_id, period, used) select ${input.accountId}, ${input.period}, 1 where ${input.quota}::int > 0
        on conflict (account_id, period) do update set used = usage_periods.used + 1
          where usage_periods.used + usage_periods.reserved + usage_periods.batch_reserved < ${input.quota}::int
        returning ${tx.unsafe(USAGE_COLUMNS)}`;
      return after ? runAwaiting(afterCount(new PostgresTx(this.c, tx), after as UsageCounters, input)) : undefined;
    });
  }

  /** Inside the caller's transaction: the unit moves from this instance's reservations into `used`. */
  async #confirm(tx: Tx, input: CountedUnit): Promise<UsageCounters> {
    const { accountId, period } = input;
    await tx`insert into usage_periods (account_id, period) values (${accountId}, ${period}) on conflict do nothing`;
    // If the unit was reclaimed after this instance was taken for dead, `reserved` already gave it back.
    const held = await this.#takeHeld(tx, accountId, period);
    // The UPDATE holds the row lock until commit: concurrent confirmations see distinct counters.
    const [after] = await tx`update usage_periods set used = used + 1, reserved = greatest(reserved - ${held ? 1 : 0}, 0)
      where account_id = ${accountId} and period = ${period} returning ${tx.unsafe(USAGE_COLUMNS)}`;
    return runAwaiting(afterCount(new PostgresTx(this.c, tx), after as UsageCounters, input));
  }

  usage(accountId: string, period: string): Promise<UsageCounters | undefined> {
    return this.c.run(
      async (sql) =>
        (await sql`select ${sql.unsafe(USAGE_COLUMNS)} from usage_periods where account_id = ${accountId} and period = ${period}`)[0] as
          | UsageCounters
          | undefined,
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

  emitMonthlyReset(input: MonthlyReset): Promise<boolean> {
    return this.c.write((tx) => runAwaiting(emitMonthlyReset(new PostgresTx(this.c, tx), input)));
  }
}
