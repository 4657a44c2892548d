/**
 * Monthly quota metering (spec §3.2, §8.2; DESIGN §3 "Counting").
 *
 * A generation reserves one unit with a single conditional UPDATE before rendering (so 200
 * concurrent requests against 10 remaining units render exactly 10 images), then either
 * confirms it — moving the unit from `reserved` to `used` and writing the events the increment
 * causes, in one transaction — or releases it when the render fails. Only confirmed units are
 * reported as `used`.
 */
import { and, eq, gt, sql } from "drizzle-orm";
import type { Clock } from "../clock.ts";
import type { Db } from "../db/client.ts";
import { usageDays, usagePeriods } from "../db/schema/index.ts";
import { ApiError } from "../errors.ts";
import type { Outbox } from "../events/outbox.ts";
import { limitsOf } from "../accounts/plans.ts";
import type { AccountRow } from "../db/schema/index.ts";
import { dayOf, nextResetAt, periodOf } from "./period.ts";

export const WARNING_THRESHOLDS = [80, 90, 95] as const;

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

const warnedColumn = {
  80: "warned80At",
  90: "warned90At",
  95: "warned95At",
} as const;

export class Metering {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly outbox: Outbox,
  ) {}

  /** Reserves one unit of this month's quota or throws QUOTA_EXCEEDED. */
  reserve(account: AccountRow): Reservation {
    const { monthlyQuota } = limitsOf(account);
    const period = periodOf(this.clock.now());
    this.db.insert(usagePeriods).values({ accountId: account.id, period }).onConflictDoNothing().run();
    const reserved = this.db
      .update(usagePeriods)
      .set({ reserved: sql`${usagePeriods.reserved} + 1` })
      .where(
        and(
          eq(usagePeriods.accountId, account.id),
          eq(usagePeriods.period, period),
          sql`${usagePeriods.used} + ${usagePeriods.reserved} < ${monthlyQuota}`,
        ),
      )
      .returning({ used: usagePeriods.used })
      .get();
    if (!reserved) {
      throw new ApiError("QUOTA_EXCEEDED", `Monthly quota exceeded. Limit: ${monthlyQuota} images.`, undefined, {
        "X-Quota-Limit": String(monthlyQuota),
        "X-Quota-Remaining": "0",
      });
    }
    return { accountId: account.id, period, quota: monthlyQuota };
  }

  /** Gives a reserved unit back (the render failed or the request was abandoned). */
  release(reservation: Reservation): void {
    this.db
      .update(usagePeriods)
      .set({ reserved: sql`${usagePeriods.reserved} - 1` })
      .where(and(eq(usagePeriods.accountId, reservation.accountId), eq(usagePeriods.period, reservation.period), gt(usagePeriods.reserved, 0)))
      .run();
  }

  /**
   * Counts a successful generation and records the events it causes, atomically: a counted image
   * always has its `image.generated` event and any threshold events, and vice versa.
   * Returns the confirmed `used` after this generation.
   */
  confirm(account: AccountRow, reservation: Reservation, facts: GenerationFacts): number {
    const now = this.clock.now();
    const used = this.db.transaction((tx) => {
      const row = tx
        .update(usagePeriods)
        .set({ used: sql`${usagePeriods.used} + 1`, reserved: sql`max(${usagePeriods.reserved} - 1, 0)` })
        .where(and(eq(usagePeriods.accountId, reservation.accountId), eq(usagePeriods.period, reservation.period)))
        .returning()
        .get()!;
      tx.insert(usageDays)
        .values({ accountId: account.id, day: dayOf(now), count: 1 })
        .onConflictDoUpdate({ target: [usageDays.accountId, usageDays.day], set: { count: sql`${usageDays.count} + 1` } })
        .run();

      this.outbox.recordEvent(
        tx,
        account.id,
        "image.generated",
        {
          request_id: facts.requestId,
          template: facts.template,
          dimensions: { width: facts.width, height: facts.height },
          generation_time_ms: facts.generationTimeMs,
        },
        now,
      );

      const quota = reservation.quota;
      // One request may cross several thresholds (e.g. after a quota change): each fires once a month.
      for (const threshold of WARNING_THRESHOLDS) {
        const column = warnedColumn[threshold];
        if (row[column] === null && row.used * 100 >= threshold * quota) {
          tx.update(usagePeriods).set({ [column]: now }).where(and(eq(usagePeriods.accountId, account.id), eq(usagePeriods.period, reservation.period))).run();
          this.outbox.recordEvent(tx, account.id, "usage.warning", { current_usage: row.used, quota, percentage: threshold, plan: account.plan }, now);
        }
      }
      if (row.limitReachedAt === null && row.used >= quota) {
        tx.update(usagePeriods).set({ limitReachedAt: now }).where(and(eq(usagePeriods.accountId, account.id), eq(usagePeriods.period, reservation.period))).run();
        this.outbox.recordEvent(
          tx,
          account.id,
          "usage.limit_reached",
          { current_usage: row.used, quota, plan: account.plan, resets_at: new Date(nextResetAt(now)).toISOString() },
          now,
        );
      }
      return row.used;
    });
    this.outbox.committed();
    return used;
  }

  usage(account: AccountRow): UsageView {
    const now = this.clock.now();
    const { monthlyQuota } = limitsOf(account);
    const row = this.db
      .select({ used: usagePeriods.used })
      .from(usagePeriods)
      .where(and(eq(usagePeriods.accountId, account.id), eq(usagePeriods.period, periodOf(now))))
      .get();
    const used = row?.used ?? 0;
    return {
      plan: account.plan,
      quota: monthlyQuota,
      used,
      remaining: Math.max(0, monthlyQuota - used),
      percent_used: monthlyQuota > 0 ? Math.round((used / monthlyQuota) * 10000) / 100 : 100,
      reset_date: new Date(nextResetAt(now)).toISOString(),
    };
  }

  /** Images per UTC day of the current month, for the dashboard chart. */
  dailyUsage(accountId: string): { day: string; count: number }[] {
    const prefix = periodOf(this.clock.now());
    return this.db
      .select({ day: usageDays.day, count: usageDays.count })
      .from(usageDays)
      .where(and(eq(usageDays.accountId, accountId), sql`${usageDays.day} LIKE ${prefix + "-%"}`))
      .orderBy(usageDays.day)
      .all();
  }

  /** No render survives a restart: reservations left by a crash are returned at start-up. */
  clearStaleReservations(): void {
    this.db.update(usagePeriods).set({ reserved: 0 }).where(gt(usagePeriods.reserved, 0)).run();
  }
}
