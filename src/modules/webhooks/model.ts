import { t } from "elysia";
import { EVENT_TYPES } from "../../events/types.ts";
import { MAX_URL_LENGTH, SECRET_MAX, SECRET_MIN } from "../../webhooks/input.ts";

const EVENTS_HINT = `must be one of ${EVENT_TYPES.join(", ")}`;
const Url = t.String({ minLength: 1, maxLength: MAX_URL_LENGTH, description: "http(s) endpoint; https recommended.", error: `must be an http or https URL of at most ${MAX_URL_LENGTH} characters` });
const EventName = t.Union(EVENT_TYPES.map((name) => t.Literal(name)), { error: EVENTS_HINT });
const Events = t.Array(EventName, { minItems: 1, uniqueItems: true, error: `must be a non-empty array without duplicates; each ${EVENTS_HINT}` });
const Secret = t.String({ minLength: SECRET_MIN, maxLength: SECRET_MAX, description: "Signing secret; never returned.", error: `must be ${SECRET_MIN} to ${SECRET_MAX} characters` });

export const CreateWebhookBody = t.Object({ url: Url, events: Events, secret: Secret }, { additionalProperties: false });

export const UpdateWebhookBody = t.Object(
  {
    url: Url,
    events: Events,
    secret: t.Optional(Secret),
    enabled: t.Optional(t.Boolean({ description: "true re-enables a disabled webhook (the only way back); false disables it.", error: "must be a boolean" })),
  },
  { additionalProperties: false },
);

export const TestWebhookBody = t.Object(
  { webhook_id: t.Optional(t.String({ description: "Send to this webhook only (also when disabled)." })) },
  { additionalProperties: false },
);

export const WebhookRecord = t.Object(
  {
    id: t.String({ description: "`wh_…`" }),
    url: t.String(),
    events: t.Array(t.String()),
    status: t.Union([t.Literal("enabled"), t.Literal("disabled")]),
    disabled_reason: t.Union([t.String(), t.Null()]),
    created_at: t.String({ format: "date-time" }),
    updated_at: t.String({ format: "date-time" }),
  },
  { title: "Webhook" },
);

export const WebhookList = t.Object({ data: t.Array(WebhookRecord) }, { title: "WebhookList" });

export const DeletedWebhook = t.Object({ id: t.String(), deleted: t.Literal(true) }, { title: "DeletedWebhook" });

export const TestResults = t.Object(
  {
    results: t.Array(
      t.Object({
        webhook_id: t.String(),
        delivered: t.Boolean(),
        status_code: t.Union([t.Integer(), t.Null()]),
        error: t.Union([t.String(), t.Null()]),
        duration_ms: t.Integer(),
      }),
    ),
  },
  { title: "WebhookTestResults" },
);

export const DeliveryList = t.Object(
  {
    data: t.Array(
      t.Object({
        id: t.String({ description: "`dlv_…`, the X-OG-Delivery header of the attempt." }),
        event_id: t.String(),
        event_type: t.String(),
        attempt: t.Integer({ description: "1 for the first attempt, 6 for the 5th retry." }),
        delivered: t.Boolean(),
        status_code: t.Union([t.Integer(), t.Null()]),
        error: t.Union([t.String(), t.Null()]),
        duration_ms: t.Integer(),
        next_attempt_at: t.Union([t.String({ format: "date-time" }), t.Null()]),
        created_at: t.String({ format: "date-time" }),
      }),
    ),
  },
  { title: "WebhookDeliveries" },
);
