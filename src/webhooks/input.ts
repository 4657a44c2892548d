/** The checker for webhook input, shared by the API and the dashboard; the limits are in ./rules.ts. */
import type { FieldProblem } from "../errors.ts";
import { EVENT_TYPES, isEventType } from "../events/types.ts";
import { parseOutboundUrl } from "../net/resolve.ts";

import { MAX_URL_LENGTH, MAX_WEBHOOKS_PER_ACCOUNT, SECRET_MAX, SECRET_MIN } from "./rules.ts";

export { MAX_URL_LENGTH, MAX_WEBHOOKS_PER_ACCOUNT, SECRET_MAX, SECRET_MIN };

export interface WebhookInput {
  url?: unknown;
  events?: unknown;
  secret?: unknown;
  /** Update only: true re-enables a disabled webhook, false disables it. */
  enabled?: unknown;
}

const CREATE_FIELDS = ["url", "events", "secret"];
const UPDATE_FIELDS = ["url", "events", "secret", "enabled"];

const isObject = (body: unknown): body is WebhookInput => typeof body === "object" && body !== null && !Array.isArray(body);

/** The fields of a request body as sent; none when the body is not a JSON object (checkWebhookInput says so). */
export function webhookFields(body: unknown): WebhookInput {
  return isObject(body) ? body : {};
}

/**
 * Shape checks every face shares (the API's TypeBox schema says the same, for the docs). Takes the
 * body as sent, whatever it is, so one answer lists every bad field.
 */
export function checkWebhookInput(body: unknown, mode: "create" | "update"): FieldProblem[] {
  if (!isObject(body)) return [{ field: "body", message: "must be a JSON object" }];
  const problems: FieldProblem[] = [];
  const known = mode === "create" ? CREATE_FIELDS : UPDATE_FIELDS;
  for (const [name, value] of Object.entries(body)) {
    if (value !== undefined && !known.includes(name)) problems.push({ field: name, message: "is not a known field" });
  }
  if (typeof body.url !== "string" || body.url.length === 0) problems.push({ field: "url", message: "is required" });
  else if (body.url.length > MAX_URL_LENGTH) problems.push({ field: "url", message: `must be at most ${MAX_URL_LENGTH} characters` });
  else {
    try {
      parseOutboundUrl(body.url);
    } catch (error) {
      problems.push({ field: "url", message: `must be an absolute http or https URL (${(error as Error).message})` });
    }
  }
  if (!Array.isArray(body.events) || body.events.length === 0) {
    problems.push({ field: "events", message: `must be a non-empty array of: ${EVENT_TYPES.join(", ")}` });
  } else {
    const seen = new Set<string>();
    body.events.forEach((name, index) => {
      if (typeof name !== "string" || !isEventType(name)) problems.push({ field: `events.${index}`, message: `must be one of ${EVENT_TYPES.join(", ")}` });
      else if (seen.has(name)) problems.push({ field: `events.${index}`, message: `duplicates ${name}` });
      else seen.add(name);
    });
  }
  if (mode === "create" || body.secret !== undefined) {
    if (typeof body.secret !== "string") problems.push({ field: "secret", message: "is required" });
    else if (body.secret.length < SECRET_MIN || body.secret.length > SECRET_MAX) {
      problems.push({ field: "secret", message: `must be ${SECRET_MIN} to ${SECRET_MAX} characters` });
    }
  }
  if (mode === "update" && body.enabled !== undefined && typeof body.enabled !== "boolean") problems.push({ field: "enabled", message: "must be a boolean" });
  return problems;
}
