/**
 * Usage, reservations and the monthly reset in SQLite (../ports/usage.ts). Confirming and
 * counting units, with what follows them, and the monthly reset are src/metering/counting.ts's
 * routines, run through `transact` on the transaction handle (./tx.ts). One process reserves on
 * this file, so the counters alone are the truth: no per-instance bookkeeping as on PostgreSQL.
 */
import type { AccountRecord } from "../ports/accounts.ts";
import type { UsageCounters, UsagePort } from "../ports/usage.ts";
import { ACCOUNT, columns, USAGE } from "../records.ts";
import { LEAVES_KEYS, type SqliteConnection } from "./connection.ts";
import { RELEASE_RESERVED } from "./tx.ts";

const USAGE_COLUMNS = columns(USAGE);
const OWED_COLUMNS = columns(ACCOUNT, { table: "a" });
/** Hot and single-statement: atomic without BEGIN/COMMIT, and accounts and keys are left alone. */
const ONE_STATEMENT = { single: true, leavesKeys: true };

export class SqliteUsage implements UsagePort {
  constructor(private readonly c: SqliteConnection) {}

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
      this.c.sql(RELEASE_RESERVED).run(input.accountId, input.period);
    }, ONE_STATEMENT);
  }

  isImageCounted(input: { accountId: string; period: string; contentAddress: string }): Promise<boolean> {
    return this.c.read(
      () =>
        this.c
          .sql("SELECT 1 AS x FROM counted_images WHERE account_id = ? AND period = ? AND content_address = ?")
          .get(input.accountId, input.period, input.contentAddress) !== null,
    );
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
}
