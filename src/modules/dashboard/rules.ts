/**
 * The input rules the dashboard's forms show and enforce, served to it (GET
 * /dashboard/api/rules) from the same constants the core checks, so the page never copies them.
 * The generation rules reach the playground through the template catalog instead.
 */
import { FONT_LIMITS } from "../../render/fonts/account-fonts.ts";
import { MAX_SIGNING_KEYS_PER_ACCOUNT } from "../../signing/keys.ts";
import { EVENT_TYPES, MAX_URL_LENGTH, MAX_WEBHOOKS_PER_ACCOUNT, SECRET_MAX, SECRET_MIN } from "../../webhooks/rules.ts";

export const dashboardRules = {
  webhooks: {
    events: [...EVENT_TYPES],
    max_per_account: MAX_WEBHOOKS_PER_ACCOUNT,
    url_max_length: MAX_URL_LENGTH,
    secret_min_length: SECRET_MIN,
    secret_max_length: SECRET_MAX,
  },
  signing_keys: {
    max_per_account: MAX_SIGNING_KEYS_PER_ACCOUNT,
  },
  fonts: {
    max_per_account: FONT_LIMITS.fonts,
    max_file_bytes: FONT_LIMITS.fileBytes,
    max_account_bytes: FONT_LIMITS.accountBytes,
    formats: ["ttf", "otf", "woff", "woff2"],
  },
} as const;
