/** Schemas of the webhook routes; every limit comes from the webhooks' one set of rules. */
import { t } from "elysia";
import { Count, OneOf, ResourceId, Text, Timestamp } from "../../http/error-schema.ts";
import { EVENT_TYPES, MAX_URL_LENGTH, MAX_WEBHOOKS_PER_ACCOUNT, SECRET_MAX, SECRET_MIN } from "../../webhooks/rules.ts";

const EVENTS_HINT = `must be one of ${EVENT_TYPES.join(", ")}`;
const Url = t.String({
  minLength: 1,
  maxLength: MAX_URL_LENGTH,
  format: "uri",
  description: "http(s) endpoint; https recommended.",
  error: `must be an http or https URL of at most ${MAX_URL_LENGTH} characters`,
});
const EventName = OneOf(EVENT_TYPES, { error: EVENTS_HINT });
const Events = t.Array(EventName, {
  minItems: 1,
  maxItems: EVENT_TYPES.length,
  uniqueItems: true,
  error: `must be a non-empty array without duplicates; each ${EVENTS_HINT}`,
});
const Secret = t.String({
  minLength: SECRET_MIN,
  maxLength: SECRET_MAX,
  description:
    "Signing secret; never returned. A `whsec_<base64>` secret keys the Standard Webhooks signature with its decoded bytes (what the standardwebhooks and svix libraries expect); any other secret with its raw bytes.",
  error: `must be ${SECRET_MIN} to ${SECRET_MAX} characters`,
});
const WebhookId = ResourceId("wh", "Webhook id (`wh_…`).");

export const CreateWebhookBody = t.Object({ url: Url, events: Events, secret: Secret }, { additionalProperties: false, title: "CreateWebhookRequest" });

export const UpdateWebhookBody = t.Object(
  {
    url: Url,
    events: Events,
    secret: t.Optional(Secret),
    enabled: t.Optional(t.Boolean({ description: "true re-enables a disabled webhook (the only way back); false disables it.", error: "must be a boolean" })),
  },
  { additionalProperties: false, title: "UpdateWebhookRequest" },
);

export const TestWebhookBody = t.Object(
  { webhook_id: t.Optional(t.String({ maxLength: 64, description: "Send to this webhook only (also when disabled)." })) },
  { additionalProperties: false, title: "WebhookTestRequest" },
);

export const WebhookRecord = t.Object(
  {
    id: WebhookId,
    url: t.String({ maxLength: MAX_URL_LENGTH, pattern: "^https?://" }),
    events: t.Array(OneOf(EVENT_TYPES), { maxItems: EVENT_TYPES.length }),
    status: t.Union([t.Literal("enabled"), t.Literal("disabled")]),
    disabled_reason: t.Union([Text(1024), t.Null()], { description: "Why the webhook was disabled; null while enabled." }),
    created_at: Timestamp(),
    updated_at: Timestamp(),
  },
  { title: "Webhook" },
);

export const WebhookList = t.Object({ data: t.Array(WebhookRecord, { maxItems: MAX_WEBHOOKS_PER_ACCOUNT }) }, { title: "WebhookList" });

export const DeletedWebhook = t.Object({ id: WebhookId, deleted: t.Literal(true) }, { title: "DeletedWebhook" });

const TestResult = t.Object(
  {
    webhook_id: WebhookId,
    delivered: t.Boolean(),
    status_code: t.Union([t.Integer({ minimum: 100, maximum: 599 }), t.Null()], { description: "The receiver's HTTP status; null when none came back." }),
    error: t.Union([Text(1024), t.Null()]),
    duration_ms: Count(600_000),
  },
  { title: "WebhookTestResult" },
);

export const TestResults = t.Object({ results: t.Array(TestResult, { maxItems: MAX_WEBHOOKS_PER_ACCOUNT }) }, { title: "WebhookTestResults" });

const Delivery = t.Object(
  {
    id: ResourceId("dlv", "`dlv_…`, the X-OG-Delivery header of the attempt."),
    event_id: ResourceId("evt"),
    event_type: t.String({ maxLength: 64, pattern: "^[a-z_.]+$" }),
    attempt: t.Integer({ minimum: 1, maximum: 6, description: "1 for the first attempt, 6 for the 5th retry." }),
    delivered: t.Boolean(),
    status_code: t.Union([t.Integer({ minimum: 100, maximum: 599 }), t.Null()]),
    error: t.Union([Text(1024), t.Null()]),
    duration_ms: Count(600_000),
    next_attempt_at: t.Union([Timestamp(), t.Null()], { description: "When the next retry is due; null when none is." }),
    created_at: Timestamp(),
  },
  { title: "WebhookDelivery" },
);

export const DeliveryList = t.Object({ data: t.Array(Delivery, { maxItems: 100 }) }, { title: "WebhookDeliveries" });
