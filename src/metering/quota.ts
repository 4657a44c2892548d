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

/** Gaps between attempts to give back a unit whose release failed (the store was unavailable). */
const RELEASE_RETRY_MS = [100, 500, 1_000, 2_000, 5_000];

export class Metering {
  /** Releases that failed and are being retried in the background. */
  private readonly pendingReleases = new Set<Promise<void>>();

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly outbox: Outbox,
    private readonly logger?: Logger,
  ) {}

  /**
   * Counts one unit of work: reserves a unit (QUOTA_EXCEEDED when none is left), runs `work`,
   * confirms with the facts it returns, and releases the unit if the work or the confirmation
   * fails. The error that caused the failure is rethrown unchanged.
   */
  async withUnit<T>(account: AccountRecord, work: () => Promise<{ result: T; facts: GenerationFacts }>): Promise<Counted<T>> {
    const reservation = await this.reserve(account);
    let used: number;
    let result: T;
    try {
      const done = await work();
      result = done.result;
      used = await this.confirm(account, reservation, done.facts);
    } catch (error) {
      // A failed confirmation committed nothing (each store call is atomic), so the unit is
      // still only reserved: give it back.
      await this.release(reservation);
      throw error;
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
    const after = await this.store.countUnit({
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
  async withImageUnit<T>(account: AccountRecord, contentAddress: string, work: () => Promise<{ result: T; facts: GenerationFacts }>): Promise<Counted<T> & { counted: boolean }> {
    const reservation = await this.reserve(account);
    let result: T;
    let after: UsageCounters | undefined;
    try {
      const done = await work();
      result = done.result;
      const now = this.clock.now();
      after = await this.store.confirmImageUnit({
        accountId: reservation.accountId,
        period: reservation.period,
        day: dayOf(now),
        now,
        contentAddress,
        decide: (counters) => this.decide(account, reservation.quota, counters, done.facts, now),
      });
    } catch (error) {
      await this.release(reservation);
      throw error;
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

  /** Reserves one unit of this month's quota or throws QUOTA_EXCEEDED. */
  async reserve(account: AccountRecord): Promise<Reservation> {
    const { monthlyQuota } = limitsOf(account);
    const period = periodOf(this.clock.now());
    if (!(await this.store.reserveUnit({ accountId: account.id, period, quota: monthlyQuota }))) throw new QuotaExceededError(monthlyQuota);
    return { accountId: account.id, period, quota: monthlyQuota };
  }

  /**
   * Gives a reserved unit back. Never throws: when the store cannot take the release now, it is
   * retried in the background (a unit must not stay reserved until the next start-up).
   */
  async release(reservation: Reservation): Promise<void> {
    try {
      await this.store.releaseUnit(reservation);
    } catch (error) {
      this.logger?.warn("releasing a reserved unit failed; retrying in the background", { account_id: reservation.accountId, error: (error as Error).message });
      const retry = this.retryRelease(reservation).finally(() => this.pendingReleases.delete(retry));
      this.pendingReleases.add(retry);
    }
  }

  private async retryRelease(reservation: Reservation): Promise<void> {
    for (let i = 0; ; i++) {
      await new Promise((resolve) => setTimeout(resolve, RELEASE_RETRY_MS[Math.min(i, RELEASE_RETRY_MS.length - 1)]));
      try {
        await this.store.releaseUnit(reservation);
        return;
      } catch {
        if (this.closed) return; // start-up clears what is left
      }
    }
  }

  private closed = false;

  /** Stops background release retries (shutdown); the next start clears what they left. */
  async close(): Promise<void> {
    this.closed = true;
  }

  /** Background releases still being retried (for tests and shutdown). */
  get releasesPending(): number {
    return this.pendingReleases.size;
  }

  /**
   * Counts a successful generation and records the events it causes, atomically: a counted image
   * always has its `image.generated` event and any threshold events, and vice versa.
   * Returns the confirmed `used` after this generation.
   */
  async confirm(account: AccountRecord, reservation: Reservation, facts: GenerationFacts): Promise<number> {
    const now = this.clock.now();
    const after = await this.store.confirmUnit({
      accountId: reservation.accountId,
      period: reservation.period,
      day: dayOf(now),
      now,
      decide: (counters) => this.decide(account, reservation.quota, counters, facts, now),
    });
    return after.used;
  }

  /** The events an increment causes; each threshold fires once a month, and one request may cross several. */
  private decide(account: AccountRecord, quota: number, row: UsageCounters, facts: GenerationFacts, now: number): UsageDecision {
    const marks: UsageMark[] = [];
    const events: EventDraft[] = [
      this.outbox.draft(
        account.id,
        "image.generated",
        { request_id: facts.requestId, template: facts.template, dimensions: { width: facts.width, height: facts.height }, generation_time_ms: facts.generationTimeMs },
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
        this.outbox.draft(account.id, "usage.limit_reached", { current_usage: row.used, quota, plan: account.plan, resets_at: new Date(nextResetAt(now)).toISOString() }, now),
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
