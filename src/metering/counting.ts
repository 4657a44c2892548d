/**
 * What follows a counted unit and the monthly reset, written once for both stores and run inside
 * the transaction that counts (see ../store/tx-steps.ts): the day's count, the once-a-month marks
 * and the events the core decides from the counters after the increment; and the reset claimed
 * once per account and month, with its `usage.reset` event.
 */
import { recordEvent } from "../events/fan-out.ts";
import type { EventDraft } from "../store/ports/jobs.ts";
import type { CountTx, ResetTx } from "../store/ports/tx.ts";
import type { UsageCounters, UsageDecision } from "../store/ports/usage.ts";
import { type Step, step, type TxRoutine } from "../store/tx-steps.ts";

export interface CountedUnit {
  accountId: string;
  period: string;
  day: string;
  now: number;
  decide: (after: UsageCounters) => UsageDecision;
}

/** After `used` went up by one (the month's row locked): the day's count, the marks and the events. */
export function* afterCount(tx: CountTx, after: UsageCounters, unit: CountedUnit): TxRoutine<UsageCounters> {
  yield* step(tx.countDay(unit.accountId, unit.day));
  const decision = unit.decide(after);
  if (decision.marks.length > 0) yield* step(tx.setMarks(unit.accountId, unit.period, decision.marks, unit.now));
  for (const event of decision.events) yield* recordEvent(tx, unit.accountId, event, unit.now);
  return after;
}

export interface MonthlyReset {
  accountId: string;
  period: string;
  previousPeriod: string;
  now: number;
  decide: (previousUsed: number) => EventDraft;
}

/** See UsagePort.emitMonthlyReset. */
export function* emitMonthlyReset(tx: ResetTx, reset: MonthlyReset): TxRoutine<boolean> {
  if (!(yield* step(tx.claimReset(reset.accountId, reset.period, reset.now)))) return false;
  const previousUsed = yield* step(tx.usedIn(reset.accountId, reset.previousPeriod));
  yield* recordEvent(tx, reset.accountId, reset.decide(previousUsed), reset.now);
  return true;
}

/** Units of work already done (cached images) counted together: one account, month, quota and day. */
export interface CountedGroup {
  accountId: string;
  period: string;
  quota: number;
  day: string;
  /** In arrival order; each takes a unit while one is left, in this order. */
  units: readonly CountedUnit[];
}

/** What counting a group reads and writes, inside the store's transaction. */
export interface CountGroupTx extends CountTx {
  /**
   * With the month's counters locked (created when missing): takes min(n, quota − taken) units
   * into `used` (taken: used + every kind of reservation) and adds them to the day's count.
   * Returns how many it took and the counters after.
   */
  takeUnits(accountId: string, period: string, quota: number, day: string, n: number): Step<{ granted: number; after: UsageCounters }>;
}

/**
 * Counts a group of done units in one transaction, as many one-unit counts would one after the
 * other: with the month's counters locked, the first `quota − taken` units are counted (the
 * rest get undefined: QUOTA_EXCEEDED), and each counted unit's decision sees the counters after
 * its own increment and the marks the units before it set. Events are recorded in that order.
 */
export function* countGroup(tx: CountGroupTx, group: CountedGroup): TxRoutine<(UsageCounters | undefined)[]> {
  const { granted, after } = yield* step(tx.takeUnits(group.accountId, group.period, group.quota, group.day, group.units.length));
  const results: (UsageCounters | undefined)[] = group.units.map(() => undefined);
  let row = { ...after, used: after.used - granted };
  for (let i = 0; i < granted; i++) {
    const unit = group.units[i]!;
    row = { ...row, used: row.used + 1 };
    // Each unit reports the counters after its own increment, as a count of its own would.
    results[i] = row;
    const decision = unit.decide(row);
    if (decision.marks.length > 0) {
      yield* step(tx.setMarks(unit.accountId, unit.period, decision.marks, unit.now));
      row = { ...row, ...Object.fromEntries(decision.marks.map((mark) => [mark, unit.now])) };
    }
    for (const event of decision.events) yield* recordEvent(tx, unit.accountId, event, unit.now);
  }
  return results;
}
