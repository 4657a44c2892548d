/**
 * Delivery signatures, both over the exact bytes sent:
 *
 * - `X-OG-Signature: sha256=<lowercase hex HMAC-SHA256(secret, body)>` (the original scheme);
 * - Standard Webhooks: `webhook-signature: v1,<base64 HMAC-SHA256(secret, "{id}.{ts}.{body}")>`,
 *   keyed with the secret's raw UTF-8 bytes. Libraries that expect a base64 (`whsec_…`) secret
 *   verify with base64(secret).
 */
import { createHmac } from "node:crypto";

export function ogSignature(secret: string, body: string): string {
  return "sha256=" + createHmac("sha256", secret).update(body).digest("hex");
}

export function standardSignature(secret: string, messageId: string, timestampSeconds: number, body: string): string {
  return "v1," + createHmac("sha256", Buffer.from(secret, "utf8")).update(`${messageId}.${timestampSeconds}.${body}`).digest("base64");
}

export interface SignedHeadersInput {
  secret: string;
  eventId: string;
  eventType: string;
  deliveryId: string;
  /** Clock time of the attempt, ms. */
  sentAt: number;
  body: string;
  userAgent: string;
}

export function deliveryHeaders(input: SignedHeadersInput): Record<string, string> {
  const timestamp = Math.floor(input.sentAt / 1000);
  return {
    "content-type": "application/json",
    "user-agent": input.userAgent,
    "x-og-signature": ogSignature(input.secret, input.body),
    "x-og-event": input.eventType,
    "x-og-event-id": input.eventId,
    "x-og-delivery": input.deliveryId,
    "webhook-id": input.eventId,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": standardSignature(input.secret, input.eventId, timestamp, input.body),
  };
}
