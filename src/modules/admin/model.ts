/** Schemas of the operator API; the limits come from the accounts' one set of rules. */
import { t } from "elysia";
import { ACCOUNT_STATUSES, MAX_EMAIL_LENGTH, MAX_QUOTA, MAX_RPS, PLAN_IDS } from "../../accounts/rules.ts";
import { Count, OneOf, ResourceId, Timestamp } from "../../http/error-schema.ts";

const Plan = OneOf(PLAN_IDS, { error: `must be one of ${PLAN_IDS.join(", ")}` });
const Status = OneOf(ACCOUNT_STATUSES, { error: `must be one of ${ACCOUNT_STATUSES.join(", ")}` });
const Quota = t.Integer({
  minimum: 1,
  maximum: MAX_QUOTA,
  description: "Images per month (custom plan only).",
  error: `must be a whole number from 1 to ${MAX_QUOTA}`,
});
const Rps = t.Integer({
  minimum: 1,
  maximum: MAX_RPS,
  description: "Requests per second (custom plan only).",
  error: `must be a whole number from 1 to ${MAX_RPS}`,
});
const Email = t.String({ format: "email", maxLength: MAX_EMAIL_LENGTH, error: "must be an email address" });
const ApiKey = t.String({ maxLength: 35, pattern: "^og_[A-Za-z0-9]{32}$", description: "The account's API key. Shown once; only its hash is stored." });

export const CreateAccountBody = t.Object(
  {
    email: Email,
    plan: Plan,
    status: t.Optional(Status),
    quota: t.Optional(Quota),
    requests_per_second: t.Optional(Rps),
  },
  { additionalProperties: false, title: "CreateAccountRequest" },
);

export const UpdateAccountBody = t.Object(
  {
    email: t.Optional(Email),
    plan: t.Optional(Plan),
    status: t.Optional(Status),
    quota: t.Optional(Quota),
    requests_per_second: t.Optional(Rps),
  },
  { additionalProperties: false, title: "UpdateAccountRequest" },
);

export const AccountRecord = t.Object(
  {
    id: ResourceId("acc", "Account id (`acc_…`)."),
    email: t.String({ format: "email", maxLength: MAX_EMAIL_LENGTH }),
    plan: Plan,
    status: Status,
    quota: Count(MAX_QUOTA, "Images per month."),
    requests_per_second: Count(MAX_RPS),
    key_prefix: t.Union([t.String({ maxLength: 7, pattern: "^og_[A-Za-z0-9]{4}$" }), t.Null()], {
      description: "`og_` and the key's first 4 characters; null without a key.",
    }),
    created_at: Timestamp(),
    updated_at: Timestamp(),
  },
  { title: "Account" },
);

export const CreatedAccount = t.Object({ account_id: ResourceId("acc"), api_key: ApiKey, account: AccountRecord }, { title: "CreatedAccount" });
export const ReplacedKey = t.Object({ api_key: ApiKey }, { title: "ReplacedKey" });
export const ClockTime = t.Object({ now: Timestamp("The service clock.") }, { title: "ClockTime" });

export const AdvanceBody = t.Object(
  {
    seconds: t.Number({
      minimum: 0,
      maximum: 10 * 366 * 86400,
      description: "Seconds to move the clock forward.",
      error: "must be a number of seconds from 0 to ten years",
    }),
  },
  { additionalProperties: false, title: "ClockAdvanceRequest" },
);
