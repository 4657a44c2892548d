/**
 * What the dashboard shows about an account, computed from the same core the API uses, so the
 * numbers on the usage page are the numbers `GET /api/user/usage` returns.
 */
import { limitsOf } from "../accounts/plans.ts";
import type { Clock } from "../clock.ts";
import type { AccountRow } from "../db/schema/index.ts";
import type { Metering, UsageView } from "../metering/quota.ts";
import { dayOf, periodOf } from "../metering/period.ts";

/**
 * The error an API request of this account gets for its subscription state, or undefined when
 * it may work. The dashboard refuses its API-like actions with the same codes and messages
 * (src/http/api-auth.ts) and shows the message as a banner.
 */

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

export function usageOverview(metering: Metering, clock: Clock, account: AccountRow): UsageOverview {
  const usage = metering.usage(account);
  const now = clock.now();
  const month = periodOf(now);
  const [year, monthIndex] = month.split("-").map(Number) as [number, number];
  const daysInMonth = new Date(Date.UTC(year, monthIndex, 0)).getUTCDate();
  const counts = new Map(metering.dailyUsage(account.id).map((d) => [d.day, d.count]));
  const daily = Array.from({ length: daysInMonth }, (_, i) => {
    const day = `${month}-${String(i + 1).padStart(2, "0")}`;
    return { day, count: counts.get(day) ?? 0 };
  });
  const quota_state: QuotaState = usage.remaining === 0 ? "exhausted" : usage.percent_used >= 80 ? "warning" : "available";
  return { usage, month, daily, today: dayOf(now), quota_state, rate_limit: { requests_per_second: limitsOf(account).requestsPerSecond } };
}
