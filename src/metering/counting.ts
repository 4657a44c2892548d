/**
 * Counting units and the monthly reset, written once for both stores and run through
 * `Store.transact` on its transaction handle (see ../store/tx-steps.ts): a reserved unit
 * confirmed, a public image's unit confirmed once per month, done units (cached images) counted
 * one by one or in groups; after each counted unit the day's count, the once-a-month marks and
 * the events the core decides from the counters after its own increment; and the reset claimed
 * once per account and month, with its `usage.reset` event. The store keeps the statements (the
 * handle's `confirmReserved`, `takeUnit`, `takeUnits`…); what they add up to is here.
 */
import { recordEvent } from "../events/fan-out.ts";
import type { EventDraft } from "../store/ports/jobs.ts";
import type { ConfirmTx, CountTx, ResetTx } from "../store/ports/tx.ts";
import type { UsageCounters, UsageDecision } from "../store/ports/usage.ts";
import { step, type TxRoutine } from "../store/tx-steps.ts";

export interface CountedUnit {
  accountId: string;
  period: string;
  day: string;
  now: number;
  decide: (after: UsageCounters) => UsageDecision;
}

/** A unit of work already done (a cached image), taken only while the month's quota has one left. */
export interface DoneUnit extends CountedUnit {
  quota: number;
}

/*
 * Every counted image runs `afterCount`, and every cached one `countOne`: SQLite's hottest
 * transactions. They yield the handle's answers directly rather than through `yield* step(…)`,
 * which makes a generator per call (bench/commits.ts: ≈ 0.5 µs of a ≈ 21 µs count).
 */

/** After `used` went up by one (the month's row locked): the day's count, the marks and the events. */
export function* afterCount(tx: CountTx, after: UsageCounters, unit: CountedUnit): TxRoutine<UsageCounters> {
  yield tx.countDay(unit.accountId, unit.day);
  const decision = unit.decide(after);
  if (decision.marks.length > 0) yield tx.setMarks(unit.accountId, unit.period, decision.marks, unit.now);
  for (const event of decision.events) yield* recordEvent(tx, unit.accountId, event, unit.now);
  return after;
}

/**
 * A reserved unit moves into `used`, with the day's count, its marks and its events: the
 * decision sees the counters after this increment (the row is locked, so concurrent
 * confirmations see distinct values). Returns the counters after it.
 */
export function* confirmReserved(tx: ConfirmTx, unit: CountedUnit): TxRoutine<UsageCounters> {
  const after = yield* step(tx.confirmReserved(unit.accountId, unit.period));
  return yield* afterCount(tx, after, unit);
}

/**
 * Public image URLs: as `confirmReserved`, but only for the first count of `contentAddress` this
 * month. When it was counted already (another request or instance counted it), the reservation
 * goes back in the same transaction and nothing is counted: undefined.
 */
export function* confirmImage(tx: ConfirmTx, unit: CountedUnit & { contentAddress: string }): TxRoutine<UsageCounters | undefined> {
  if (!(yield* step(tx.markImageCounted(unit.accountId, unit.period, unit.contentAddress, unit.now)))) {
    yield* step(tx.releaseReserved(unit.accountId, unit.period));
    return undefined;
  }
  return yield* confirmReserved(tx, unit);
}

/**
 * One done unit: taken straight into `used` while the quota has one left, then as
 * `confirmReserved`. Undefined, with nothing written, when no unit is left.
 */
export function* countOne(tx: ConfirmTx, unit: DoneUnit): TxRoutine<UsageCounters | undefined> {
  const after = (yield tx.takeUnit(unit.accountId, unit.period, unit.quota)) as UsageCounters | null;
  return after ? yield* afterCount(tx, after, unit) : undefined;
}

export interface MonthlyReset {
  accountId: string;
  period: string;
  previousPeriod: string;
  now: number;
  decide: (previousUsed: number) => EventDraft;
}

/**
 * Claims the month's reset for the account (a conditional update of `resetEmittedAt`, the
 * month's counters created when missing) and, only if this call claimed it, records
 * `decide(previous month's used)`. Exactly once per account and month, across restarts and
 * instances. True when this call emitted it.
 */
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

/**
 * Counts a group of done units in one transaction, as many one-unit counts would one after the
 * other: with the month's counters locked, the first `quota − taken` units are counted (the
 * rest get undefined: QUOTA_EXCEEDED), and each counted unit's decision sees the counters after
 * its own increment and the marks the units before it set. Events are recorded in that order.
 */
export function* countGroup(tx: ConfirmTx, group: CountedGroup): TxRoutine<(UsageCounters | undefined)[]> {
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

/**
 * Several groups in one transaction, locked in account (then month) order, so two instances'
 * transactions never wait on each other in a cycle; each unit's result in the order given.
 */
export function* countGroups(tx: ConfirmTx, units: readonly DoneUnit[]): TxRoutine<(UsageCounters | undefined)[]> {
  const groups = new Map<string, CountedGroup & { units: CountedUnit[]; at: number[] }>();
  units.forEach((unit, at) => {
    const key = `${unit.accountId}\u0000${unit.period}\u0000${unit.quota}\u0000${unit.day}`;
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { accountId: unit.accountId, period: unit.period, quota: unit.quota, day: unit.day, units: [], at: [] }));
    group.units.push(unit);
    group.at.push(at);
  });
  const ordered = [...groups.values()].sort((a, b) => (a.accountId < b.accountId ? -1 : a.accountId > b.accountId ? 1 : a.period < b.period ? -1 : 1));
  const results: (UsageCounters | undefined)[] = units.map(() => undefined);
  for (const group of ordered) {
    const counted = yield* countGroup(tx, group);
    counted.forEach((after, i) => {
      results[group.at[i]!] = after;
    });
  }
  return results;
}
