/**
 * One HTTP delivery attempt: POST the envelope with both signature schemes through
 * the outbound guard (the address actually connected to is checked, redirects are not
 * followed), 5 s real-time budget, success = any 2xx. Never throws: every failure becomes an
 * attempt record with a status code or an error.
 */
import { deliveryHeaders } from "../events/signing.ts";
import { guardedFetch } from "../net/guarded-request.ts";
import { OutboundError } from "../net/outbound-error.ts";
import type { Resolver } from "../net/resolve.ts";
import type { Transport } from "../net/transport.ts";
import { VERSION } from "../version.ts";

export const DELIVERY_TIMEOUT_MS = 5_000;
/** Receivers' answers are not used; read a little (to keep connections reusable) and drop it. */
const RESPONSE_BYTES = 4 * 1024;

export const USER_AGENT = `ogsmith-webhooks/${VERSION}`;

export interface SendResult {
  delivered: boolean;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  /**
   * The failed answer's `Retry-After` header as sent (seconds or an HTTP date), null when the
   * attempt succeeded, got no answer or the answer had none; the retry policy parses it.
   */
  retryAfter: string | null;
}

export interface WebhookMessage {
  eventId: string;
  eventType: string;
  /** The exact bytes to send (see src/events/envelope.ts). */
  body: string;
}

export interface SenderOptions {
  allowPrivate: boolean;
  timeoutMs?: number;
  userAgent?: string;
  resolver?: Resolver;
  transport?: Transport;
}

export class WebhookSender {
  constructor(private readonly options: SenderOptions) {}

  async send(target: { url: string; secret: string }, message: WebhookMessage, deliveryId: string, sentAt: number, signal?: AbortSignal): Promise<SendResult> {
    const started = performance.now();
    const headers = deliveryHeaders({
      secret: target.secret,
      eventId: message.eventId,
      eventType: message.eventType,
      deliveryId,
      sentAt,
      body: message.body,
      userAgent: this.options.userAgent ?? USER_AGENT,
    });
    const elapsed = () => Math.round(performance.now() - started);
    try {
      const response = await guardedFetch(target.url, {
        method: "POST",
        headers,
        body: message.body,
        timeoutMs: this.options.timeoutMs ?? DELIVERY_TIMEOUT_MS,
        maxBytes: RESPONSE_BYTES,
        truncate: true,
        followRedirects: false,
        allowPrivate: this.options.allowPrivate,
        resolver: this.options.resolver,
        transport: this.options.transport,
        signal,
      });
      const status = response.status;
      if (status >= 200 && status < 300) return { delivered: true, statusCode: status, error: null, durationMs: elapsed(), retryAfter: null };
      const error = status >= 300 && status < 400 ? `redirect (HTTP ${status}) is not followed` : `HTTP ${status}`;
      return { delivered: false, statusCode: status, error, durationMs: elapsed(), retryAfter: response.headers.get("retry-after") };
    } catch (error) {
      const text =
        error instanceof OutboundError ? `${error.reason}: ${error.message}` : `network_error: ${error instanceof Error ? error.message : String(error)}`;
      return { delivered: false, statusCode: null, error: text, durationMs: elapsed(), retryAfter: null };
    }
  }
}
