/**
 * `usage.reset`: at 00:00 UTC on the 1st, per account, one event with the previous month's
 * usage. There is nothing to zero — usage is keyed by month — so the reset is only the event.
 * The month's reset is claimed per account with a conditional update in the event's transaction
 * (../metering/counting.ts `emitMonthlyReset`, run through the store's `transact`), so a month gets its event exactly once even across restarts (and instances), and
 * a process that was down at midnight catches up at start-up. Accounts created during the month
 * get nothing for it (there was nothing to reset).
 */
import type { Clock } from "../clock.ts";
import type { Outbox } from "../events/outbox.ts";
import { limitsOf } from "../accounts/plans.ts";
import { emitMonthlyReset } from "../metering/counting.ts";
import { periodOf, periodStart, previousPeriod } from "../metering/period.ts";
import type { Store } from "../store/types.ts";

const BATCH = 200;

export class MonthlyReset {
  private checkedPeriod: string | undefined;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly outbox: Outbox,
  ) {}

  /** Cheap when the month has not changed since the last call; otherwise emits what is owed. */
  async check(): Promise<number> {
    const now = this.clock.now();
    const period = periodOf(now);
    if (period === this.checkedPeriod) return 0;
    const emitted = await this.emitOwed(now);
    this.checkedPeriod = period;
    return emitted;
  }

  /** Emits `usage.reset` for the current month to every account that existed when it began and has not had it. */
  async emitOwed(now: number): Promise<number> {
    const period = periodOf(now);
    const previous = previousPeriod(period);
    const start = periodStart(now);
    let emitted = 0;
    for (;;) {
      const owed = await this.store.accountsOwedReset({ period, createdBefore: start, limit: BATCH });
      if (owed.length === 0) break;
      for (const account of owed) {
        const reset = {
          accountId: account.id,
          period,
          previousPeriod: previous,
          now,
          decide: (previousUsed: number) =>
            this.outbox.draft(account.id, "usage.reset", { previous_usage: previousUsed, new_quota: limitsOf(account).monthlyQuota, plan: account.plan }, now),
        };
        const claimed = await this.store.transact((tx) => emitMonthlyReset(tx, reset));
        if (claimed) emitted++;
      }
      if (owed.length < BATCH) break;
    }
    return emitted;
  }
}
