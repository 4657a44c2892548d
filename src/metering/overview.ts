/**
 * What the dashboard shows about an account's usage, computed from the same metering the API
 * uses, so the numbers on the usage page are the numbers `GET /api/user/usage` returns.
 */
import { limitsOf } from "../accounts/plans.ts";
import type { Clock } from "../clock.ts";
import type { AccountRecord } from "../store/types.ts";
import type { Metering, UsageView } from "./quota.ts";
import { dayOf, periodOf } from "./period.ts";

export type QuotaState = "available" | "warning" | "exhausted";

export interface UsageOverview {
  usage: UsageView;
  /** `YYYY-MM` of the current UTC month. */
  month: string;
  /** One entry per day of the month, zeros included, so the chart needs no calendar logic. */
  daily: { day: string; count: number }[];
  /** `YYYY-MM-DD` of today (service clock); later days are in the future. */
  today: string;
  quota_state: QuotaState;
  rate_limit: { requests_per_second: number };
}

export async function usageOverview(metering: Metering, clock: Clock, account: AccountRecord): Promise<UsageOverview> {
  const now = clock.now();
  const [usage, days] = await Promise.all([metering.usage(account), metering.dailyUsage(account.id)]);
  const month = periodOf(now);
  const [year, monthIndex] = month.split("-").map(Number) as [number, number];
  const daysInMonth = new Date(Date.UTC(year, monthIndex, 0)).getUTCDate();
  const counts = new Map(days.map((d) => [d.day, d.count]));
  const daily = Array.from({ length: daysInMonth }, (_, i) => {
    const day = `${month}-${String(i + 1).padStart(2, "0")}`;
    return { day, count: counts.get(day) ?? 0 };
  });
  const quota_state: QuotaState = usage.remaining === 0 ? "exhausted" : usage.percent_used >= 80 ? "warning" : "available";
  return { usage, month, daily, today: dayOf(now), quota_state, rate_limit: { requests_per_second: limitsOf(account).requestsPerSecond } };
}
