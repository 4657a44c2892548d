/** Operator API and the test clock. Guarded by src/http/admin-auth.ts. */
import { Elysia, t } from "elysia";
import { ApiError } from "../../errors.ts";
import type { Services } from "../../services.ts";
import { errorResponses } from "../../http/error-schema.ts";
import { AccountRecord, AdvanceBody, CreateAccountBody, UpdateAccountBody } from "./model.ts";

const ADMIN_ERRORS = ["UNAUTHORIZED", "NOT_FOUND", "INVALID_JSON", "VALIDATION_ERROR", "PAYLOAD_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE"] as const;

export function adminModule(services: Pick<Services, "accounts" | "testClock" | "clock">) {
  const { accounts, testClock } = services;
  const app = new Elysia({ name: "module.admin", prefix: "/admin" })
    .post(
      "/accounts",
      async ({ body, set }) => {
        const { account, apiKey } = await accounts.create({
          email: body.email,
          plan: body.plan,
          status: body.status,
          quota: body.quota,
          requestsPerSecond: body.requests_per_second,
        });
        set.status = 201;
        return { account_id: account.id, api_key: apiKey, account };
      },
      {
        body: CreateAccountBody,
        response: { 201: t.Object({ account_id: t.String(), api_key: t.String(), account: AccountRecord }), ...errorResponses(...ADMIN_ERRORS) },
        detail: { summary: "Create an account (the key is shown once)", tags: ["Admin"] },
      },
    )
    .patch(
      "/accounts/:id",
      ({ params, body }) =>
        accounts.update(params.id, {
          email: body.email,
          plan: body.plan,
          status: body.status,
          quota: body.quota,
          requestsPerSecond: body.requests_per_second,
        }),
      {
        body: UpdateAccountBody,
        response: { 200: AccountRecord, ...errorResponses(...ADMIN_ERRORS) },
        detail: { summary: "Change an account's plan, status or email", tags: ["Admin"] },
      },
    )
    .get("/accounts/:id", ({ params }) => accounts.show(params.id), {
      response: { 200: AccountRecord, ...errorResponses(...ADMIN_ERRORS) },
      detail: { summary: "Show an account", tags: ["Admin"] },
    })
    .post(
      "/accounts/:id/keys",
      async ({ params, set }) => {
        const apiKey = await accounts.replaceKey(params.id);
        set.status = 201;
        return { api_key: apiKey };
      },
      {
        response: { 201: t.Object({ api_key: t.String() }), ...errorResponses(...ADMIN_ERRORS) },
        detail: { summary: "Replace the account's key (the old one stops at once)", tags: ["Admin"] },
      },
    );

  const requireTestClock = () => {
    if (!testClock) throw new ApiError("NOT_FOUND", "The test clock is off (OG_TEST_CLOCK).");
    return testClock;
  };
  return app
    .get("/clock", () => ({ now: new Date(requireTestClock().now()).toISOString() }), {
      response: { 200: t.Object({ now: t.String({ format: "date-time" }) }), ...errorResponses(...ADMIN_ERRORS) },
      detail: { summary: "Read the test clock", tags: ["Test clock"] },
    })
    .post(
      "/clock/advance",
      async ({ body }) => {
        const now = await requireTestClock().advance(body.seconds);
        return { now: new Date(now).toISOString() };
      },
      {
        body: AdvanceBody,
        response: { 200: t.Object({ now: t.String({ format: "date-time" }) }), ...errorResponses(...ADMIN_ERRORS) },
        detail: {
          summary: "Advance the test clock",
          description: "Moves the clock forward and, before answering, runs every job that became due.",
          tags: ["Test clock"],
        },
      },
    );
}
