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
import type { Subscription } from "../ports/tx.ts";
import {
  afterCount,
  type CountedGroup,
  type CountedUnit,
  type CountGroupTx,
  countGroup,
  emitMonthlyReset,
  type MonthlyReset,
} from "../../metering/counting.ts";
import { runAwaiting } from "../tx-steps.ts";
import type { AccountRecord } from "../ports/accounts.ts";
import type { UsageCounters, UsagePort } from "../ports/usage.ts";
import { ACCOUNT, columns, USAGE } from "../records.ts";
import { isRetryableConflict, type PostgresConnection, type Tx } from "./connection.ts";
import { reclaimDeadReservations } from "./liveness.ts";
import { PostgresTx } from "./tx.ts";

const USAGE_COLUMNS = columns(USAGE);
const TAKEN_COLUMNS = columns(USAGE, { table: "usage_periods" });
const OWED_COLUMNS = columns(ACCOUNT, { table: "a" });

/** Done units counted in one transaction at most (the queue's others wait for the next one). */
const MAX_COUNT_BATCH = 128;
/**
 * Count transactions this instance runs at once: a unit arriving while one is in flight starts
 * the second at once instead of waiting a whole transaction for its turn (the second waits for
 * the month's row lock inside PostgreSQL, where the first's commit releases it at once).
 */
const MAX_COUNTS_IN_FLIGHT = 2;
/** Tries of a count transaction PostgreSQL aborted for a deadlock or a serialization conflict (as `c.write`). */
const PIPELINED_TX_TRIES = 5;

interface QueuedCount {
  input: CountedUnit & { quota: number };
  resolve: (after: UsageCounters | undefined) => void;
  reject: (error: unknown) => void;
}

export class PostgresUsage implements UsagePort {
  /** Done units waiting for the count transaction in flight to commit (see `countUnit`). */
  #counts: QueuedCount[] = [];
  #countsInFlight = 0;
  /** Month counters being read, by account and month (see `usage`). */
  readonly #usageReads = new SharedReads<UsageCounters | undefined>();
  /** Transactions that counted done units (for tests). */
  countTransactions = 0;

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

  /**
   * Done units (cached images) are counted in groups: a unit that arrives while the count
   * transactions in flight are MAX_COUNTS_IN_FLIGHT waits for one of them to commit, then is
   * counted with every other unit that arrived meanwhile in ONE transaction (src/metering/counting.ts `countGroup`: exact, as if
   * counted one after the other). Each caller's promise settles only after the transaction that
   * counted its unit committed, so an answered image is still a counted one; when that
   * transaction fails, every unit in it fails with nothing written.
   */
  countUnit(input: CountedUnit & { quota: number }): Promise<UsageCounters | undefined> {
    return new Promise((resolve, reject) => {
      this.#counts.push({ input, resolve, reject });
      if (this.#countsInFlight < MAX_COUNTS_IN_FLIGHT) void this.#countQueued();
    });
  }

  async #countQueued(): Promise<void> {
    this.#countsInFlight++;
    while (this.#counts.length > 0) {
      const batch = this.#counts.splice(0, MAX_COUNT_BATCH);
      try {
        const results = await this.#countBatch(batch.map((queued) => queued.input));
        batch.forEach((queued, i) => queued.resolve(results[i]));
      } catch (error) {
        for (const queued of batch) queued.reject(error);
      }
    }
    this.#countsInFlight--;
  }

  /** One transaction over the groups of `units`, locked in account order (two instances' batches never wait in a cycle). */
  #countBatch(units: (CountedUnit & { quota: number })[]): Promise<(UsageCounters | undefined)[]> {
    const groups = new Map<string, CountedGroup & { units: CountedUnit[]; at: number[] }>();
    units.forEach((unit, at) => {
      const key = `${unit.accountId}\u0000${unit.period}\u0000${unit.quota}\u0000${unit.day}`;
      let group = groups.get(key);
      if (!group) groups.set(key, (group = { accountId: unit.accountId, period: unit.period, quota: unit.quota, day: unit.day, units: [], at: [] }));
      group.units.push(unit);
      group.at.push(at);
    });
    const ordered = [...groups.values()].sort((a, b) => (a.accountId < b.accountId ? -1 : a.accountId > b.accountId ? 1 : a.period < b.period ? -1 : 1));
    return this.#writePipelined(async (tx) => {
      this.countTransactions++;
      const handle = new GroupCountTx(this.c, tx);
      const results: (UsageCounters | undefined)[] = units.map(() => undefined);
      for (const group of ordered) {
        const counted = await runAwaiting(countGroup(handle, group));
        counted.forEach((after, i) => {
          results[group.at[i]!] = after;
        });
      }
      return results;
    });
  }

  /**
   * `c.write` with BEGIN sent in the same flight as the first statement rather than one round
   * trip ahead of it (postgres.js pipelines the statements of one connection): a count batch is
   * two round trips (BEGIN + its statement, then COMMIT) when its units cause no other writes.
   * Retried whole after a deadlock or serialization conflict, as `c.write` is.
   */
  async #writePipelined<T>(body: (tx: Tx) => Promise<T>): Promise<T> {
    for (let tries = 1; ; tries++) {
      try {
        return await this.c.run(async (sql) => {
          const tx = await sql.reserve();
          try {
            // Its failure (the connection's) fails the body's first statement too.
            const begun = tx`begin`.execute().then(
              () => undefined,
              (error: unknown) => error,
            );
            let result: T;
            try {
              result = await body(tx as unknown as Tx);
              const failed = await begun;
              if (failed) throw failed;
            } catch (error) {
              await begun;
              await tx`rollback`.catch(() => {});
              throw error;
            }
            await tx`commit`;
            return result;
          } finally {
            tx.release();
          }
        });
      } catch (error) {
        if (tries >= PIPELINED_TX_TRIES || !isRetryableConflict(error)) throw error;
        this.c.conflictRetries++;
        await Bun.sleep(Math.random() * 10 * tries);
      }
    }
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

  emitMonthlyReset(input: MonthlyReset): Promise<boolean> {
    return this.c.write((tx) => runAwaiting(emitMonthlyReset(new PostgresTx(this.c, tx), input)));
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

/** The transaction handle for counting groups: ./tx.ts's, plus the group's reads and writes; an account's webhooks are read once per transaction. */
class GroupCountTx extends PostgresTx implements CountGroupTx {
  readonly #subscriptions = new Map<string, Promise<Subscription[]>>();

  override enabledSubscriptions(accountId: string): Promise<Subscription[]> {
    let found = this.#subscriptions.get(accountId);
    if (!found) this.#subscriptions.set(accountId, (found = super.enabledSubscriptions(accountId)));
    return found;
  }

  /**
   * ONE statement (with the transaction's BEGIN and COMMIT, the whole batch is three round trips
   * when its units cause no writes of their own): lock the month's row and read what is taken,
   * add the units that fit, count the day, and read the account's webhooks for the events.
   * The locking read sees the row's latest committed version, and the UPDATE of that locked row
   * in the same statement works on it too, so `granted` is exact under concurrency.
   */
  async takeUnits(accountId: string, period: string, quota: number, day: string, n: number): Promise<{ granted: number; after: UsageCounters }> {
    const take = () => this.tx`
      with locked as (
        select used + reserved + batch_reserved as taken from usage_periods where account_id = ${accountId} and period = ${period} for update),
      taken as (
        update usage_periods set used = usage_periods.used + least(${n}::int, greatest(0, ${quota}::int - locked.taken))
        from locked where account_id = ${accountId} and period = ${period}
        returning ${this.tx.unsafe(TAKEN_COLUMNS)}, least(${n}::int, greatest(0, ${quota}::int - locked.taken)) as granted),
      days as (
        insert into usage_days (account_id, day, count) select ${accountId}, ${day}, granted from taken where granted > 0
        on conflict (account_id, day) do update set count = usage_days.count + excluded.count)
      select taken.*, (select coalesce(json_agg(json_build_object('id', w.id, 'events', w.events, 'createdAt', w.created_at, 'seq', w.seq)), '[]'::json)
        from webhooks w where w.account_id = ${accountId} and w.status = 'enabled') as subscriptions
      from taken`;
    let [row] = await take();
    if (!row) {
      if (quota <= 0)
        return {
          granted: 0,
          after: { accountId, period, used: 0, reserved: 0, warned80At: null, warned90At: null, warned95At: null, limitReachedAt: null, resetEmittedAt: null },
        };
      await this.tx`insert into usage_periods (account_id, period) values (${accountId}, ${period}) on conflict do nothing`;
      [row] = await take();
    }
    const { granted, subscriptions, ...after } = row!;
    this.#subscriptions.set(accountId, Promise.resolve(subscriptions as Subscription[]));
    return { granted: Number(granted), after: after as UsageCounters };
  }
}
