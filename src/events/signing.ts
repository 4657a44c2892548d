/**
 * Delivery signatures, both over the exact bytes sent:
 *
 * - `X-OG-Signature: sha256=<lowercase hex HMAC-SHA256(secret, body)>`, keyed with the whole
 *   secret string as the user typed it;
 * - Standard Webhooks: `webhook-signature: v1,<base64 HMAC-SHA256(key, "{id}.{ts}.{body}")>`.
 *   A `whsec_<base64>` secret (the convention of the standardwebhooks and svix libraries, and
 *   what the dashboard's generator makes) is keyed with the decoded bytes after the prefix, so
 *   `new Webhook(secret)` verifies with the secret exactly as the user holds it. Any other
 *   secret is keyed with its raw UTF-8 bytes (pass it base64-encoded to those libraries).
 */
import { createHmac } from "node:crypto";

export function ogSignature(secret: string, body: string): string {
  return "sha256=" + createHmac("sha256", secret).update(body).digest("hex");
}

const WHSEC = /^whsec_([A-Za-z0-9+/]+={0,2})$/;

/** The Standard Webhooks signing key of a secret: see the module comment. */
export function standardSigningKey(secret: string): Buffer {
  const match = WHSEC.exec(secret);
  if (match) {
    const decoded = Buffer.from(match[1]!, "base64");
    // Only a well-formed base64 payload counts as one; anything else is an ordinary secret.
    if (decoded.length > 0 && decoded.toString("base64").replace(/=+$/, "") === match[1]!.replace(/=+$/, "")) return decoded;
  }
  return Buffer.from(secret, "utf8");
}

export function standardSignature(secret: string, messageId: string, timestampSeconds: number, body: string): string {
  return "v1," + createHmac("sha256", standardSigningKey(secret)).update(`${messageId}.${timestampSeconds}.${body}`).digest("base64");
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
