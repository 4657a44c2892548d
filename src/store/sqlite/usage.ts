/**
 * Usage, reservations and the monthly reset in SQLite (../ports/usage.ts). What follows a
 * counted unit — the day's count, the marks, the events — is src/metering/counting.ts, run on the
 * transaction handle (./tx.ts). One process reserves on this file, so the counters alone are the
 * truth: no per-instance bookkeeping as on PostgreSQL.
 */
import { afterCount, type CountedUnit, emitMonthlyReset, type MonthlyReset } from "../../metering/counting.ts";
import { runNow } from "../tx-steps.ts";
import type { AccountRecord } from "../ports/accounts.ts";
import type { UsageCounters, UsagePort } from "../ports/usage.ts";
import { ACCOUNT, columns, USAGE } from "../records.ts";
import { LEAVES_KEYS, type SqliteConnection } from "./connection.ts";
import type { SqliteTx } from "./tx.ts";

const USAGE_COLUMNS = columns(USAGE);
const OWED_COLUMNS = columns(ACCOUNT, { table: "a" });
/** Hot and single-statement: atomic without BEGIN/COMMIT, and accounts and keys are left alone. */
const ONE_STATEMENT = { single: true, leavesKeys: true };
const RELEASE = "UPDATE usage_periods SET reserved = reserved - 1 WHERE account_id = ? AND period = ? AND reserved > 0";

export class SqliteUsage implements UsagePort {
  constructor(
    private readonly c: SqliteConnection,
    private readonly tx: SqliteTx,
  ) {}

  reserveUnit(input: { accountId: string; period: string; quota: number }): Promise<boolean> {
    // One conditional upsert: the month's row is created with the unit reserved, or the unit is
    // added while used + reserved stays under the quota. `changes` is 0 when it would not fit.
    return this.c.write(
      () =>
        this.c
          .sql(
            `INSERT INTO usage_periods (account_id, period, reserved) SELECT ?1, ?2, 1 WHERE ?3 > 0
             ON CONFLICT (account_id, period) DO UPDATE SET reserved = reserved + 1 WHERE used + reserved + batch_reserved < ?3`,
          )
          .run(input.accountId, input.period, input.quota).changes > 0,
      ONE_STATEMENT,
    );
  }

  releaseUnit(input: { accountId: string; period: string }): Promise<void> {
    return this.c.write(() => {
      this.c.sql(RELEASE).run(input.accountId, input.period);
    }, ONE_STATEMENT);
  }

  confirmUnit(input: CountedUnit): Promise<UsageCounters> {
    return this.c.write(() => this.#confirm(input), LEAVES_KEYS);
  }

  confirmImageUnit(input: CountedUnit & { contentAddress: string }): Promise<UsageCounters | undefined> {
    const { accountId, period, contentAddress, now } = input;
    return this.c.write(() => {
      const inserted = this.c
        .sql("INSERT INTO counted_images (account_id, period, content_address, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING")
        .run(accountId, period, contentAddress, now).changes;
      if (inserted === 0) {
        // Counted already: the reservation goes back in this same transaction.
        this.c.sql(RELEASE).run(accountId, period);
        return undefined;
      }
      return this.#confirm(input);
    }, LEAVES_KEYS);
  }

  isImageCounted(input: { accountId: string; period: string; contentAddress: string }): Promise<boolean> {
    return this.c.read(
      () =>
        this.c
          .sql("SELECT 1 AS x FROM counted_images WHERE account_id = ? AND period = ? AND content_address = ?")
          .get(input.accountId, input.period, input.contentAddress) !== null,
    );
  }

  countUnit(input: CountedUnit & { quota: number }): Promise<UsageCounters | undefined> {
    return this.c.write(() => {
      const after = this.c
        .sql(
          `INSERT INTO usage_periods (account_id, period, used) SELECT ?1, ?2, 1 WHERE ?3 > 0
           ON CONFLICT (account_id, period) DO UPDATE SET used = used + 1 WHERE used + reserved + batch_reserved < ?3
           RETURNING ${USAGE_COLUMNS}`,
        )
        .get(input.accountId, input.period, input.quota) as UsageCounters | null;
      return after ? runNow(afterCount(this.tx, after, input)) : undefined;
    }, LEAVES_KEYS);
  }

  /** Inside the caller's transaction: the reserved unit moves into `used`; once per counted image. */
  #confirm(input: CountedUnit): UsageCounters {
    // The reservation made the row; the upsert keeps a confirm without one (a direct confirm) working.
    const after = this.c
      .sql(
        `INSERT INTO usage_periods (account_id, period, used, reserved) VALUES (?, ?, 1, 0)
         ON CONFLICT (account_id, period) DO UPDATE SET used = used + 1, reserved = max(reserved - 1, 0)
         RETURNING ${USAGE_COLUMNS}`,
      )
      .get(input.accountId, input.period) as UsageCounters;
    return runNow(afterCount(this.tx, after, input));
  }

  usage(accountId: string, period: string): Promise<UsageCounters | undefined> {
    return this.c.read(
      () =>
        (this.c.sql(`SELECT ${USAGE_COLUMNS} FROM usage_periods WHERE account_id = ? AND period = ?`).get(accountId, period) as UsageCounters | null) ??
        undefined,
    );
  }

  dailyUsage(accountId: string, period: string): Promise<{ day: string; count: number }[]> {
    return this.c.read(
      () =>
        this.c.sql("SELECT day, count FROM usage_days WHERE account_id = ? AND day LIKE ? ORDER BY day").all(accountId, `${period}-%`) as {
          day: string;
          count: number;
        }[],
    );
  }

  clearStaleReservations(): Promise<void> {
    return this.c.write(() => {
      this.c.sql("UPDATE usage_periods SET reserved = 0 WHERE reserved > 0").run();
    }, LEAVES_KEYS);
  }

  async reclaimReservations(heldBy: (accountId: string, period: string) => number): Promise<number> {
    // One process reserves on this file, and a transaction here runs in one synchronous turn:
    // the counters and the caller's tally are read at the same instant.
    const excess = () =>
      (
        this.c.sql("SELECT account_id AS accountId, period, reserved FROM usage_periods WHERE reserved > 0").all() as {
          accountId: string;
          period: string;
          reserved: number;
        }[]
      )
        .map((row) => ({ ...row, excess: row.reserved - heldBy(row.accountId, row.period) }))
        .filter((row) => row.excess > 0);
    // A read first: the write (and its commit) only when something is to be given back.
    if ((await this.c.read(excess)).length === 0) return 0;
    return this.c.write(() => {
      let back = 0;
      for (const row of excess()) {
        this.c.sql("UPDATE usage_periods SET reserved = reserved - ? WHERE account_id = ? AND period = ?").run(row.excess, row.accountId, row.period);
        back += row.excess;
      }
      return back;
    }, LEAVES_KEYS);
  }

  accountsOwedReset(input: { period: string; createdBefore: number; limit: number }): Promise<AccountRecord[]> {
    return this.c.read(
      () =>
        this.c
          .sql(
            `SELECT ${OWED_COLUMNS} FROM accounts a LEFT JOIN usage_periods u ON u.account_id = a.id AND u.period = ?
             WHERE a.created_at < ? AND u.reset_emitted_at IS NULL ORDER BY a.rowid LIMIT ?`,
          )
          .all(input.period, input.createdBefore, input.limit) as AccountRecord[],
    );
  }

  emitMonthlyReset(input: MonthlyReset): Promise<boolean> {
    return this.c.write(() => runNow(emitMonthlyReset(this.tx, input)), LEAVES_KEYS);
  }
}
