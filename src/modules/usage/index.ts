/** GET /api/user/usage: this month's counts for the key's account. */
import { Elysia, t, type Static } from "elysia";
import { MAX_QUOTA, PLAN_IDS } from "../../accounts/rules.ts";
import type { Services } from "../../services.ts";
import { API_AUTH_ERRORS, Count, errorResponses, OneOf, Timestamp } from "../../http/error-schema.ts";
import { authOf } from "../../http/request-context.ts";

export const UsageRecord = t.Object(
  {
    plan: OneOf(PLAN_IDS),
    quota: Count(MAX_QUOTA, "Images per month."),
    used: Count(MAX_QUOTA, "Images generated this month."),
    remaining: Count(MAX_QUOTA),
    percent_used: t.Number({ minimum: 0, maximum: 100, description: "Percentage of the quota used, two decimals." }),
    reset_date: Timestamp("Next 1st of a month, 00:00:00.000 UTC."),
  },
  { title: "Usage" },
);

export function usageModule(services: Pick<Services, "metering">) {
  return new Elysia({ name: "module.usage" }).get(
    "/api/user/usage",
    async ({ request }) => (await services.metering.usage(authOf(request).account)) as Static<typeof UsageRecord>,
    {
      response: { 200: UsageRecord, ...errorResponses(...API_AUTH_ERRORS) },
      detail: {
        summary: "Usage this month",
        description: "Images generated this calendar month (UTC), the plan's quota, what remains and when it resets.",
        tags: ["Usage"],
      },
    },
  );
}
