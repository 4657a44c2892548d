/** Operator API and the test clock. Guarded by src/app/gates/admin.ts (bearer token). */
import { Elysia } from "elysia";
import { ApiError } from "../../errors.ts";
import type { Services } from "../../services.ts";
import { errorResponses } from "../../http/error-schema.ts";
import { AccountRecord, AdvanceBody, ClockTime, CreateAccountBody, CreatedAccount, ReplacedKey, UpdateAccountBody } from "./model.ts";

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
        response: { 201: CreatedAccount, ...errorResponses(...ADMIN_ERRORS) },
        detail: {
          summary: "Create an account (the key is shown once)",
          description: "`quota` and `requests_per_second` are required for the custom plan and refused for the others.",
          tags: ["Admin"],
        },
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
        detail: { summary: "Change an account's plan, status or email", description: "Fields left out keep their values.", tags: ["Admin"] },
      },
    )
    .get("/accounts/:id", ({ params }) => accounts.show(params.id), {
      response: { 200: AccountRecord, ...errorResponses(...ADMIN_ERRORS) },
      detail: { summary: "Show an account", description: "The account with its plan limits and key prefix (never the key).", tags: ["Admin"] },
    })
    .post(
      "/accounts/:id/keys",
      async ({ params, set }) => {
        const apiKey = await accounts.replaceKey(params.id);
        set.status = 201;
        return { api_key: apiKey };
      },
      {
        response: { 201: ReplacedKey, ...errorResponses(...ADMIN_ERRORS) },
        detail: {
          summary: "Replace the account's key (the old one stops at once)",
          description: "The new key is in this answer only; dashboard sessions opened with the old key end.",
          tags: ["Admin"],
        },
      },
    );

  const requireTestClock = () => {
    if (!testClock) throw new ApiError("NOT_FOUND", "The test clock is off (OG_TEST_CLOCK).");
    return testClock;
  };
  return app
    .get("/clock", () => ({ now: new Date(requireTestClock().now()).toISOString() }), {
      response: { 200: ClockTime, ...errorResponses(...ADMIN_ERRORS) },
      detail: { summary: "Read the test clock", description: "Only with OG_TEST_CLOCK; 404 otherwise.", tags: ["Test clock"] },
    })
    .post(
      "/clock/advance",
      async ({ body }) => {
        const now = await requireTestClock().advance(body.seconds);
        return { now: new Date(now).toISOString() };
      },
      {
        body: AdvanceBody,
        response: { 200: ClockTime, ...errorResponses(...ADMIN_ERRORS) },
        detail: {
          summary: "Advance the test clock",
          description: "Moves the clock forward and, before answering, runs every job that became due.",
          tags: ["Test clock"],
        },
      },
    );
}
