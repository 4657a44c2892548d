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
import { step, type TxRoutine } from "../store/tx-steps.ts";

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
