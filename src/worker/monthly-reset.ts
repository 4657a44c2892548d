/**
 * `usage.reset` (spec §3.2, DESIGN §5): at 00:00 UTC on the 1st, per account, one event with the
 * previous month's usage. There is nothing to zero — usage is keyed by month — so the reset is
 * only the event. `usage_periods.reset_emitted_at` is claimed with a conditional UPDATE in the
 * event's transaction, so a month gets its event exactly once even across restarts, and a
 * process that was down at midnight catches up at start-up. Accounts created during the month
 * get nothing for it (there was nothing to reset).
 */
import { and, eq, isNull, lt } from "drizzle-orm";
import type { Clock } from "../clock.ts";
import type { Db } from "../db/client.ts";
import { accounts, usagePeriods, type AccountRow } from "../db/schema/index.ts";
import type { Outbox } from "../events/outbox.ts";
import { limitsOf } from "../accounts/plans.ts";
import { periodOf, periodStart, previousPeriod } from "../metering/period.ts";

const BATCH = 200;

export class MonthlyReset {
  private checkedPeriod: string | undefined;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly outbox: Outbox,
  ) {}

  /** Cheap when the month has not changed since the last call; otherwise emits what is owed. */
  check(): number {
    const now = this.clock.now();
    const period = periodOf(now);
    if (period === this.checkedPeriod) return 0;
    const emitted = this.emitOwed(now);
    this.checkedPeriod = period;
    return emitted;
  }

  /** Emits `usage.reset` for the current month to every account that existed when it began and has not had it. */
  emitOwed(now: number): number {
    const period = periodOf(now);
    const previous = previousPeriod(period);
    const start = periodStart(now);
    let emitted = 0;
    for (;;) {
      const owed = this.db
        .select()
        .from(accounts)
        .leftJoin(usagePeriods, and(eq(usagePeriods.accountId, accounts.id), eq(usagePeriods.period, period)))
        .where(and(lt(accounts.createdAt, start), isNull(usagePeriods.resetEmittedAt)))
        .limit(BATCH)
        .all()
        .map((row) => row.accounts);
      if (owed.length === 0) break;
      emitted += this.db.transaction((tx) => {
        let n = 0;
        for (const account of owed as AccountRow[]) {
          tx.insert(usagePeriods).values({ accountId: account.id, period }).onConflictDoNothing().run();
          const claimed = tx
            .update(usagePeriods)
            .set({ resetEmittedAt: now })
            .where(and(eq(usagePeriods.accountId, account.id), eq(usagePeriods.period, period), isNull(usagePeriods.resetEmittedAt)))
            .returning({ period: usagePeriods.period })
            .get();
          if (!claimed) continue;
          const before = tx
            .select({ used: usagePeriods.used })
            .from(usagePeriods)
            .where(and(eq(usagePeriods.accountId, account.id), eq(usagePeriods.period, previous)))
            .get();
          this.outbox.recordEvent(tx, account.id, "usage.reset", { previous_usage: before?.used ?? 0, new_quota: limitsOf(account).monthlyQuota, plan: account.plan }, now);
          n++;
        }
        return n;
      });
      this.outbox.committed();
      if (owed.length < BATCH) break;
    }
    return emitted;
  }
}
