/**
 * The input rules for accounts, defined once: the core checker (accounts.ts), the admin API's
 * schemas (and so the OpenAPI document) and the operator CLI all read these.
 */
export { ACCOUNT_STATUSES, PLAN_IDS } from "./plans.ts";

export const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const MAX_EMAIL_LENGTH = 254;
export const MAX_QUOTA = 100_000_000;
export const MAX_RPS = 10_000;
