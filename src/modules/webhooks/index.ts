/** Webhook endpoints: CRUD, the test send and the delivery log. Logic lives in src/webhooks. */
import { Elysia, type Static } from "elysia";
import type { Services } from "../../services.ts";
import { API_AUTH_ERRORS, documentedBody, errorResponses } from "../../http/error-schema.ts";
import { authOf } from "../../http/request-context.ts";
import { CreateWebhookBody, DeletedWebhook, DeliveryList, TestResults, TestWebhookBody, UpdateWebhookBody, WebhookList, WebhookRecord } from "./model.ts";

/** The service speaks plain strings for event names; the schema (and so clients) know the closed set. */
type Record_ = Static<typeof WebhookRecord>;
const asRecord = <T>(view: T) => view as unknown as Record_;

const BODY_ERRORS = ["INVALID_JSON", "VALIDATION_ERROR", "PAYLOAD_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE"] as const;

export function webhooksModule(services: Pick<Services, "webhooks">) {
  const { webhooks } = services;
  const tags = ["Webhooks"];
  return new Elysia({ name: "module.webhooks", prefix: "/api/webhooks" })
    .post(
      "",
      async ({ request, body, set }) => {
        const created = await webhooks.create(authOf(request).account.id, body);
        set.status = 201;
        return asRecord(created);
      },
      {
        // Validated by the webhooks service, not here, so one answer lists every bad field —
        // including a URL that resolves to a blocked address, which needs a DNS lookup.
        response: { 201: WebhookRecord, ...errorResponses(...API_AUTH_ERRORS, ...BODY_ERRORS, "CONFLICT") },
        detail: {
          summary: "Register a webhook",
          description: "At most 20 per account. A URL whose host resolves to a loopback, private, link-local or metadata address is refused.",
          tags,
          requestBody: documentedBody(CreateWebhookBody),
        },
      },
    )
    .get("", async ({ request }) => ({ data: (await webhooks.list(authOf(request).account.id)).map(asRecord) }), {
      response: { 200: WebhookList, ...errorResponses(...API_AUTH_ERRORS) },
      detail: { summary: "List webhooks", description: "Every webhook of the account (at most 20); secrets are never returned.", tags },
    })
    .post("/test", async ({ request, body }) => ({ results: await webhooks.sendTest(authOf(request).account.id, body?.webhook_id) }), {
      body: TestWebhookBody,
      response: { 200: TestResults, ...errorResponses(...API_AUTH_ERRORS, ...BODY_ERRORS, "WEBHOOK_NOT_FOUND") },
      detail: {
        summary: "Send a test event",
        description: "One synchronous `webhook.test` attempt to every enabled webhook (or the one named). Not retried, not counted toward disabling.",
        tags,
        // The body is optional: without it every enabled webhook gets the test event.
        requestBody: { required: false, content: {} },
      },
    })
    .get("/:id", ({ request, params }) => asRecord(webhooks.get(authOf(request).account.id, params.id)), {
      response: { 200: WebhookRecord, ...errorResponses(...API_AUTH_ERRORS, "WEBHOOK_NOT_FOUND") },
      detail: { summary: "Show a webhook", description: "Another account's webhook is 404 WEBHOOK_NOT_FOUND.", tags },
    })
    .put("/:id", async ({ request, params, body }) => asRecord(await webhooks.update(authOf(request).account.id, params.id, body)), {
      response: { 200: WebhookRecord, ...errorResponses(...API_AUTH_ERRORS, ...BODY_ERRORS, "WEBHOOK_NOT_FOUND") },
      detail: {
        summary: "Update a webhook",
        description: "`url` and `events` are required; `secret` rotates the secret; `enabled: true` re-enables.",
        tags,
        requestBody: documentedBody(UpdateWebhookBody),
      },
    })
    .delete("/:id", ({ request, params }) => webhooks.delete(authOf(request).account.id, params.id), {
      response: { 200: DeletedWebhook, ...errorResponses(...API_AUTH_ERRORS, "WEBHOOK_NOT_FOUND") },
      detail: { summary: "Delete a webhook", description: "Pending deliveries are dropped.", tags },
    })
    .get("/:id/deliveries", async ({ request, params }) => ({ data: await webhooks.deliveries(authOf(request).account.id, params.id) }), {
      response: { 200: DeliveryList, ...errorResponses(...API_AUTH_ERRORS, "WEBHOOK_NOT_FOUND") },
      detail: { summary: "Recent delivery attempts", description: "The last 100 attempts, newest first.", tags },
    });
}
