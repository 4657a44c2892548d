/** GET /api/user/usage: this month's usage of the calling account. */
import { Elysia, t } from "elysia";
import type { Services } from "../../services.ts";
import { API_AUTH_ERRORS, errorResponses } from "../../http/error-schema.ts";
import { authOf } from "../../http/request-context.ts";

export const UsageRecord = t.Object(
  {
    plan: t.String(),
    quota: t.Integer(),
    used: t.Integer(),
    remaining: t.Integer(),
    percent_used: t.Number({ description: "Percentage of the quota used, two decimals." }),
    reset_date: t.String({ format: "date-time", description: "Next 1st of a month, 00:00:00.000 UTC." }),
  },
  { title: "Usage" },
);

export function usageModule(services: Pick<Services, "metering">) {
  return new Elysia({ name: "module.usage" }).get("/api/user/usage", ({ request }) => services.metering.usage(authOf(request).account), {
    response: { 200: UsageRecord, ...errorResponses(...API_AUTH_ERRORS) },
    detail: { summary: "Usage this month", tags: ["Usage"] },
  });
}
