/**
 * Usage: the monthly counters, unit reservations and the monthly reset: the store port of
 * src/metering. Confirming and counting units and claiming the monthly reset are src/metering's
 * routines (counting.ts), run through `Store.transact` on the transaction handle (./tx.ts).
 * The rules of the Store (../types.ts) hold for every method: each is atomic, operational faults
 * are thrown as StoreUnavailableError, times are epoch ms, records are plain objects.
 */
import type { AccountRecord } from "./accounts.ts";
import type { EventDraft } from "./jobs.ts";

/** One account's counters for one calendar month (UTC, `YYYY-MM`). */
export interface UsageCounters {
  accountId: string;
  period: string;
  /** Successful generations answered this month. */
  used: number;
  /** Units reserved by generations in flight. */
  reserved: number;
  /** When each usage event was emitted this month (null = not yet): each fires once a month. */
  warned80At: number | null;
  warned90At: number | null;
  warned95At: number | null;
  limitReachedAt: number | null;
  /** When `usage.reset` was emitted for the start of this month (null = not yet). */
  resetEmittedAt: number | null;
}

/** The once-a-month marks a confirmation may set (see `UsageDecision`). */
export type UsageMark = "warned80At" | "warned90At" | "warned95At" | "limitReachedAt";

/** What the core decides, inside the confirmation's transaction, from the counters after it. */
export interface UsageDecision {
  /** Marks to set to `now` (each only ever set once a month). */
  marks: UsageMark[];
  /** Events to record (with their fan-out), in order. */
  events: EventDraft[];
}

/** Usage, reservations and the monthly reset. */
export interface UsagePort {
  /* metering */
  /**
   * Reserves one unit of `period` for the account if `used + reserved < quota`, creating the
   * month's counters when missing, in one conditional statement (exact under concurrency: 200
   * concurrent calls against 10 remaining units reserve exactly 10). True when reserved.
   */
  reserveUnit(input: { accountId: string; period: string; quota: number }): Promise<boolean>;
  /** Gives one reserved unit back (never below zero). */
  releaseUnit(input: { accountId: string; period: string }): Promise<void>;
  /** Whether this content address was counted for the account in `period`. */
  isImageCounted(input: { accountId: string; period: string; contentAddress: string }): Promise<boolean>;
  /** The month's counters, or undefined when nothing happened in it. */
  usage(accountId: string, period: string): Promise<UsageCounters | undefined>;
  /** Successful generations per day (`YYYY-MM-DD`) within `period`, by day ascending. */
  dailyUsage(accountId: string, period: string): Promise<{ day: string; count: number }[]>;
  /**
   * Start-up: reservations that no live generation holds go back. SQLite (one process) zeroes
   * them all; a shared database must not touch reservations of other live instances.
   */
  clearStaleReservations(): Promise<void>;
  /**
   * Gives back the units reserved through this store that no request holds any more (a release
   * that failed, a reservation whose statement committed but reported an error): for each month's
   * counters this instance reserved on, whatever exceeds `heldBy(accountId, period)` goes back.
   * `heldBy` is read after the counters are locked, so a reservation counted by the caller before
   * its statement was sent is never taken for lost. SQLite counts every reservation of the
   * database (the caller must be its only reserving process); PostgreSQL only this instance's.
   * Returns how many units came back.
   */
  reclaimReservations(heldBy: (accountId: string, period: string) => number): Promise<number>;

  /* monthly reset */
  /** Accounts created before `createdBefore` whose `period` has no `resetEmittedAt` yet, up to `limit`. */
  accountsOwedReset(input: { period: string; createdBefore: number; limit: number }): Promise<AccountRecord[]>;
}
