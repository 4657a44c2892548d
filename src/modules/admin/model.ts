import { t } from "elysia";
import { ACCOUNT_STATUSES, PLAN_IDS } from "../../accounts/plans.ts";

const Plan = t.Union(PLAN_IDS.map((id) => t.Literal(id)), { error: `must be one of ${PLAN_IDS.join(", ")}` });
const Status = t.Union(ACCOUNT_STATUSES.map((s) => t.Literal(s)), { error: `must be one of ${ACCOUNT_STATUSES.join(", ")}` });
const Quota = t.Integer({ minimum: 1, maximum: 100_000_000, error: "must be a whole number from 1 to 100000000" });
const Rps = t.Integer({ minimum: 1, maximum: 10_000, error: "must be a whole number from 1 to 10000" });
const Email = t.String({ format: "email", maxLength: 254, error: "must be an email address" });

export const CreateAccountBody = t.Object(
  {
    email: Email,
    plan: Plan,
    status: t.Optional(Status),
    quota: t.Optional(Quota),
    requests_per_second: t.Optional(Rps),
  },
  { additionalProperties: false },
);

export const UpdateAccountBody = t.Object(
  {
    email: t.Optional(Email),
    plan: t.Optional(Plan),
    status: t.Optional(Status),
    quota: t.Optional(Quota),
    requests_per_second: t.Optional(Rps),
  },
  { additionalProperties: false },
);

export const AccountRecord = t.Object(
  {
    id: t.String(),
    email: t.String(),
    plan: t.String(),
    status: t.String(),
    quota: t.Integer(),
    requests_per_second: t.Integer(),
    key_prefix: t.Union([t.String(), t.Null()]),
    created_at: t.String(),
    updated_at: t.String(),
  },
  { title: "Account" },
);

export const AdvanceBody = t.Object(
  { seconds: t.Number({ minimum: 0, maximum: 10 * 366 * 86400, error: "must be a number of seconds from 0 to ten years" }) },
  { additionalProperties: false },
);
