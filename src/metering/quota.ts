/**
 * Monthly quota metering, and the one rule for counting a generation (`withUnit`):
 *
 * reserve one unit with a single conditional statement before the work (so 200 concurrent
 * requests against 10 remaining units do exactly 10 pieces of work), then either confirm it —
 * moving the unit from `reserved` to `used` and recording the events the increment causes, in
 * one transaction — or release it when anything fails, the confirmation itself included. Only
 * confirmed units are reported as `used`, and no unit stays reserved whatever fails.
 */
import type { Clock } from "../clock.ts";
import { ApiError } from "../errors.ts";
import type { Outbox } from "../events/outbox.ts";
import { limitsOf } from "../accounts/plans.ts";
import type { Logger } from "../logger.ts";
import type { AccountRecord, EventDraft, Store, UsageCounters, UsageDecision, UsageMark } from "../store/types.ts";
import { CountQueue } from "./count-queue.ts";
import { confirmImage, confirmReserved } from "./counting.ts";
import { dayOf, nextResetAt, periodOf } from "./period.ts";

const WARNING_THRESHOLDS = [80, 90, 95] as const;

export interface Reservation {
  accountId: string;
  period: string;
  quota: number;
}

export interface UsageView {
  plan: string;
  quota: number;
  used: number;
  remaining: number;
  percent_used: number;
  reset_date: string;
}

export interface GenerationFacts {
  requestId: string;
  template: string;
  width: number;
  height: number;
  generationTimeMs: number;
  /** A batch item's batch and index (added to its `image.generated` as `batch_id` and `batch_index`). */
  batch?: { id: string; index: number };
}

/** What a counted generation reports besides the work's own result. */
export interface Counted<T> {
  result: T;
  /** The account's monthly quota. */
  quota: number;
  /** Confirmed generations this month, this one included. */
  used: number;
  remaining: number;
}

/** QUOTA_EXCEEDED, with the numbers the HTTP layer reports beside it. */
export class QuotaExceededError extends ApiError {
  constructor(readonly quota: number) {
    super("QUOTA_EXCEEDED", `Monthly quota exceeded. Limit: ${quota} images.`);
  }
}

const warnedMark: Record<(typeof WARNING_THRESHOLDS)[number], UsageMark> = { 80: "warned80At", 90: "warned90At", 95: "warned95At" };

/**
 * How often the running service looks for units that no request holds any more (real time: it
 * protects customers' quota, like job leases). Such a unit only arises where a store call failed
 * in this process (a release, or a reservation whose statement may have committed), so the look
 * is taken after a failure; it is usable again at most this long after the store answers again.
 */
export const RECLAIM_EVERY_MS = 10_000;
/** A look regardless of failures, this often: a backstop for what no failure announced. */
export const RECLAIM_SWEEP_MS = 5 * 60_000;

export interface MeteringOptions {
  /**
   * Whether this process may reclaim reservations it does not hold (`reclaimUnheld`): on in the
   * serving process, the one that reserves on its SQLite file (on PostgreSQL, per instance).
   */
  reclaims?: boolean;
}

export class Metering {
  /**
   * The units this process holds reserved, by account and month: counted before the reserving
   * statement is sent and until its confirmation or release has settled. Whatever the store
   * holds beyond this is held by nobody and goes back (`reclaimUnheld`).
   */
  private readonly held = new Map<string, number>();
  private reclaimedUnits = 0;
  private reclaiming: Promise<number> | undefined;
  private reclaimTimer: ReturnType<typeof setInterval> | undefined;
  /** Store calls of reservations that failed, and how many of them a finished reclaim has covered. */
  private failures = 0;
  private failuresCovered = 0;
  /** Done units (`countDone`) on their way into the store: grouped on PostgreSQL (./count-queue.ts). */
  readonly counts: CountQueue;
  private lastSweep = performance.now();

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly outbox: Outbox,
    private readonly logger?: Logger,
    private readonly options: MeteringOptions = {},
  ) {
    this.counts = new CountQueue(store);
  }

  /**
   * Counts one unit of work: reserves a unit (QUOTA_EXCEEDED when none is left), runs `work`,
   * confirms with the facts it returns, and releases the unit if the work or the confirmation
   * fails. The error that caused the failure is rethrown unchanged.
   */
  async withUnit<T>(account: AccountRecord, work: () => Promise<{ result: T; facts: GenerationFacts }>): Promise<Counted<T>> {
    const reservation = await this.reserve(account);
    let used: number;
    let result: T;
    let lost = false;
    try {
      const done = await work();
      result = done.result;
      used = await this.confirm(account, reservation, done.facts);
    } catch (error) {
      // A failed confirmation committed nothing (each store call is atomic), so the unit is
      // still only reserved: give it back.
      lost = !(await this.release(reservation));
      throw error;
    } finally {
      this.settled(reservation, lost);
    }
    return { result, quota: reservation.quota, used, remaining: Math.max(0, reservation.quota - used) };
  }

  /**
   * Counts work that is already done (an image the cache answered without fetching or
   * rendering): one transaction takes the unit straight into `used` with its events, or throws
   * QUOTA_EXCEEDED having written nothing. The caller answers only after this resolved, so an
   * answered image is a counted one, as with `withUnit`.
   */
  async countDone(account: AccountRecord, facts: GenerationFacts): Promise<Omit<Counted<never>, "result">> {
    const { monthlyQuota: quota } = limitsOf(account);
    const now = this.clock.now();
    const after = await this.counts.count({
      accountId: account.id,
      period: periodOf(now),
      quota,
      day: dayOf(now),
      now,
      decide: (counters) => this.decide(account, quota, counters, facts, now),
    });
    if (!after) throw new QuotaExceededError(quota);
    return { quota, used: after.used, remaining: Math.max(0, quota - after.used) };
  }

  /**
   * Public image URLs: counts the image at `contentAddress` once this month. Reserves a unit
   * (QUOTA_EXCEEDED when none is left), runs `work`, then confirms the unit and records the
   * address in one transaction; when another request already counted the address meanwhile,
   * that same transaction gives the unit back instead (`counted: false`, no event).
   */
  async withImageUnit<T>(
    account: AccountRecord,
    contentAddress: string,
    work: () => Promise<{ result: T; facts: GenerationFacts }>,
  ): Promise<Counted<T> & { counted: boolean }> {
    const reservation = await this.reserve(account);
    let result: T;
    let after: UsageCounters | undefined;
    let lost = false;
    try {
      const done = await work();
      result = done.result;
      const now = this.clock.now();
      const unit = {
        accountId: reservation.accountId,
        period: reservation.period,
        day: dayOf(now),
        now,
        contentAddress,
        decide: (counters: UsageCounters) => this.decide(account, reservation.quota, counters, done.facts, now),
      };
      after = await this.store.transact((tx) => confirmImage(tx, unit));
    } catch (error) {
      lost = !(await this.release(reservation));
      throw error;
    } finally {
      this.settled(reservation, lost);
    }
    const used = after?.used ?? (await this.store.usage(account.id, reservation.period))?.used ?? 0;
    return { result, quota: reservation.quota, used, remaining: Math.max(0, reservation.quota - used), counted: after !== undefined };
  }

  /** Whether a public URL's image was counted for the account this month. */
  isImageCounted(accountId: string, contentAddress: string): Promise<boolean> {
    return this.store.isImageCounted({ accountId, period: periodOf(this.clock.now()), contentAddress });
  }

  /** This month's period (`YYYY-MM`) on the service clock. */
  currentPeriod(): string {
    return periodOf(this.clock.now());
  }

  /**
   * Reserves one unit of this month's quota or throws QUOTA_EXCEEDED. The caller settles the
   * reservation (`settled`) once it is confirmed or released.
   */
  async reserve(account: AccountRecord): Promise<Reservation> {
    const { monthlyQuota } = limitsOf(account);
    const reservation = { accountId: account.id, period: periodOf(this.clock.now()), quota: monthlyQuota };
    // Held before the statement is sent: a reclaim running meanwhile must not take it for lost.
    this.hold(reservation, 1);
    let reserved: boolean;
    try {
      reserved = await this.store.reserveUnit(reservation);
    } catch (error) {
      // The statement may have committed before the error reached us; nobody holds that unit now.
      this.hold(reservation, -1);
      this.failures++;
      throw error;
    }
    if (!reserved) {
      this.hold(reservation, -1);
      throw new QuotaExceededError(monthlyQuota);
    }
    return reservation;
  }

  /**
   * Gives a reserved unit back; false when the store could not take it. Never throws: such a
   * unit is left to the reclaimer (`settled` with `lost`), which gives back whatever no request
   * holds once the store answers again (a unit must not stay reserved until the next start-up).
   */
  async release(reservation: Reservation): Promise<boolean> {
    try {
      await this.store.releaseUnit(reservation);
      return true;
    } catch (error) {
      this.logger?.warn("releasing a reserved unit failed; it comes back with the next reclaim", {
        account_id: reservation.accountId,
        error: (error as Error).message,
      });
      return false;
    }
  }

  /**
   * The reservation's request is done with it: confirmed, released, or (`lost`) neither. A lost
   * unit is no longer held, and is announced to the reclaimer only after that, so a reclaim can
   * never see the failure while the unit still counts as held.
   */
  settled(reservation: Reservation, lost = false): void {
    this.hold(reservation, -1);
    if (lost) this.failures++;
  }

  private hold(reservation: Reservation, by: number): void {
    const key = heldKey(reservation.accountId, reservation.period);
    const count = (this.held.get(key) ?? 0) + by;
    if (count > 0) this.held.set(key, count);
    else this.held.delete(key);
  }

  /**
   * Gives back the units reserved through this process that no request holds (its release or
   * its reserving statement failed). Never counts a unit twice: a unit the reclaim gave back is
   * no longer this process's, and its late confirmation or release takes nothing off `reserved`.
   * Returns how many units came back; a store that cannot answer leaves them for the next run.
   * Looks only when a store call failed since the last look, unless `always`.
   */
  async reclaimUnheld(options: { always?: boolean } = {}): Promise<number> {
    if (!this.options.reclaims) return 0;
    if (!options.always && !this.reclaiming && this.failures === this.failuresCovered) return 0;
    const covering = this.failures;
    // One at a time: a tick that finds the previous one still running shares its result.
    this.reclaiming ??= this.store
      .reclaimReservations((accountId, period) => this.held.get(heldKey(accountId, period)) ?? 0)
      .then((back) => {
        this.failuresCovered = Math.max(this.failuresCovered, covering);
        if (back > 0) {
          this.reclaimedUnits += back;
          this.logger?.info("gave back reserved units no request holds", { units: back });
        }
        return back;
      })
      .catch((error) => {
        this.logger?.warn("reclaiming reserved units failed; trying again later", { error: (error as Error).message });
        return 0;
      })
      .finally(() => {
        this.reclaiming = undefined;
      });
    return this.reclaiming;
  }

  /** Runs `reclaimUnheld` every RECLAIM_EVERY_MS until `close`. */
  startReclaiming(): void {
    if (!this.options.reclaims || this.reclaimTimer) return;
    this.reclaimTimer = setInterval(() => {
      const always = performance.now() - this.lastSweep >= RECLAIM_SWEEP_MS;
      if (always) this.lastSweep = performance.now();
      void this.reclaimUnheld({ always });
    }, RECLAIM_EVERY_MS);
    this.reclaimTimer.unref?.();
  }

  /** Units given back by `reclaimUnheld` since start. */
  get reclaimed(): number {
    return this.reclaimedUnits;
  }

  /** Units this process holds reserved now (for tests). */
  get unitsHeld(): number {
    let sum = 0;
    for (const count of this.held.values()) sum += count;
    return sum;
  }

  /** Stops the reclaim timer (shutdown); the next start gives back what is left. */
  async close(): Promise<void> {
    if (this.reclaimTimer) clearInterval(this.reclaimTimer);
    this.reclaimTimer = undefined;
    await this.reclaiming;
  }

  /**
   * Counts a successful generation and records the events it causes, atomically: a counted image
   * always has its `image.generated` event and any threshold events, and vice versa.
   * Returns the confirmed `used` after this generation.
   */
  async confirm(account: AccountRecord, reservation: Reservation, facts: GenerationFacts): Promise<number> {
    const now = this.clock.now();
    const unit = {
      accountId: reservation.accountId,
      period: reservation.period,
      day: dayOf(now),
      now,
      decide: (counters: UsageCounters) => this.decide(account, reservation.quota, counters, facts, now),
    };
    const after = await this.store.transact((tx) => confirmReserved(tx, unit));
    return after.used;
  }

  /**
   * The events a batch item's counted unit causes, decided from the counters after it (the
   * batch reserved its units when it was created; the store moves one into `used`).
   */
  decisionFor(account: AccountRecord, facts: GenerationFacts, now: number): (after: UsageCounters) => UsageDecision {
    const { monthlyQuota } = limitsOf(account);
    return (after) => this.decide(account, monthlyQuota, after, facts, now);
  }

  /** The events an increment causes; each threshold fires once a month, and one request may cross several. */
  private decide(account: AccountRecord, quota: number, row: UsageCounters, facts: GenerationFacts, now: number): UsageDecision {
    const marks: UsageMark[] = [];
    const events: EventDraft[] = [
      this.outbox.draft(
        account.id,
        "image.generated",
        {
          request_id: facts.requestId,
          template: facts.template,
          dimensions: { width: facts.width, height: facts.height },
          generation_time_ms: facts.generationTimeMs,
          ...(facts.batch ? { batch_id: facts.batch.id, batch_index: facts.batch.index } : {}),
        },
        now,
      ),
    ];
    for (const threshold of WARNING_THRESHOLDS) {
      const mark = warnedMark[threshold];
      if (row[mark] === null && row.used * 100 >= threshold * quota) {
        marks.push(mark);
        events.push(this.outbox.draft(account.id, "usage.warning", { current_usage: row.used, quota, percentage: threshold, plan: account.plan }, now));
      }
    }
    if (row.limitReachedAt === null && row.used >= quota) {
      marks.push("limitReachedAt");
      events.push(
        this.outbox.draft(
          account.id,
          "usage.limit_reached",
          { current_usage: row.used, quota, plan: account.plan, resets_at: new Date(nextResetAt(now)).toISOString() },
          now,
        ),
      );
    }
    return { marks, events };
  }

  async usage(account: AccountRecord): Promise<UsageView> {
    const now = this.clock.now();
    const { monthlyQuota } = limitsOf(account);
    const used = (await this.store.usage(account.id, periodOf(now)))?.used ?? 0;
    return {
      plan: account.plan,
      quota: monthlyQuota,
      used,
      remaining: Math.max(0, monthlyQuota - used),
      percent_used: monthlyQuota > 0 ? Math.round((used / monthlyQuota) * 10000) / 100 : 100,
      reset_date: this.resetDate(nextResetAt(now)),
    };
  }

  /** The reset instant as ISO text, formatted once a month rather than on every usage read. */
  private resetDate(at: number): string {
    if (at !== this.lastReset.at) this.lastReset = { at, iso: new Date(at).toISOString() };
    return this.lastReset.iso;
  }

  private lastReset = { at: Number.NaN, iso: "" };

  /** Images per UTC day of the current month, for the dashboard chart. */
  dailyUsage(accountId: string): Promise<{ day: string; count: number }[]> {
    return this.store.dailyUsage(accountId, periodOf(this.clock.now()));
  }

  /** No generation survives a restart: reservations left by a crash are returned at start-up. */
  clearStaleReservations(): Promise<void> {
    return this.store.clearStaleReservations();
  }
}

const heldKey = (accountId: string, period: string) => `${accountId}\u0000${period}`;
