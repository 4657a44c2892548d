/**
 * guardedFetch: one outbound HTTP request under the address guard, shared by image fetching
 * and webhook delivery.
 *
 * - Every hop (the first URL and each redirect) is resolved once and checked; the connection
 *   goes to a checked address (see transport.ts), so DNS rebinding has nothing to slip through.
 * - Redirects are followed by hand, at most `maxRedirects`, or not at all (`followRedirects:
 *   false`, webhooks): then the 3xx is returned like any other final response.
 * - One real-time deadline covers resolution, connection, redirects and the body. It is
 *   deliberately not the app's clock (docs/operations.md, the test clock): a frozen test clock
 *   must not freeze I/O.
 * - The body is read with a byte cap and the request is aborted as soon as the cap is passed,
 *   so a huge or endless body never sits in memory.
 */
import type { AddressPolicy } from "./address-guard.ts";
import { OutboundError } from "./outbound-error.ts";
import { type CheckedUrl, checkUrl, parseOutboundUrl, type Resolver } from "./resolve.ts";
import { fetchTransport, type TlsOptions, type Transport } from "./transport.ts";

export interface GuardedFetchOptions extends AddressPolicy {
  method?: string;
  headers?: HeadersInit;
  body?: string | Uint8Array;
  /** Real-time budget for the whole exchange, redirects and body included. */
  timeoutMs: number;
  /** Largest body accepted, in bytes (after content decoding). */
  maxBytes: number;
  /** Over maxBytes: false (default) fails with too_large; true keeps the first maxBytes (webhook response logs). */
  truncate?: boolean;
  /** Default true. False returns a 3xx as the final response (webhooks treat it as a failure). */
  followRedirects?: boolean;
  /** Default 3. One more redirect than this fails with too_many_redirects. */
  maxRedirects?: number;
  resolver?: Resolver;
  transport?: Transport;
  tls?: TlsOptions;
  /** The caller's own cancellation (e.g. shutdown); its reason is rethrown as is. */
  signal?: AbortSignal;
}

export interface GuardedResponse {
  status: number;
  headers: Headers;
  bytes: Uint8Array;
  /** True when the body was cut at maxBytes (only with `truncate`). */
  truncated: boolean;
  /** The URL that produced this response (differs from the input after redirects). */
  url: string;
  redirects: number;
  /** The checked address the final response came from. */
  connectedAddress: string;
  durationMs: number;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Headers that must not follow a redirect to another origin. */
const CREDENTIAL_HEADERS = ["authorization", "cookie", "proxy-authorization"];
/** Connection errors that mean "nothing was sent": safe to try the host's next address. */
const NOT_CONNECTED = new Set(["ECONNREFUSED", "EHOSTUNREACH", "ENETUNREACH", "EADDRNOTAVAIL", "ConnectionRefused"]);

export async function guardedFetch(rawUrl: string | URL, options: GuardedFetchOptions): Promise<GuardedResponse> {
  const started = performance.now();
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const giveUp = new AbortController(); // aborts the transfer once the body passes maxBytes
  const signal = AbortSignal.any([deadline, giveUp.signal, ...(options.signal ? [options.signal] : [])]);
  const transport = options.transport ?? fetchTransport;
  const maxRedirects = options.maxRedirects ?? 3;

  let url = parseOutboundUrl(rawUrl);
  let method = (options.method ?? "GET").toUpperCase();
  let body = options.body;
  const headers = new Headers(options.headers);

  try {
    for (let redirects = 0; ; redirects++) {
      const checked = await checkUrl(url, { ...options, signal });
      const { response, address } = await connect(checked, { transport, method, headers, body, signal, tls: options.tls });

      const location = response.headers.get("location");
      if (options.followRedirects !== false && REDIRECTS.has(response.status) && location !== null) {
        await response.body?.cancel().catch(() => {});
        if (redirects >= maxRedirects) throw new OutboundError("too_many_redirects", `more than ${maxRedirects} redirects`);
        const next = redirectTarget(location, checked.url);
        // Fetch-standard method rewrite: 303 always, 301/302 only for POST, become a bodiless GET.
        if ((response.status === 303 && method !== "HEAD") || ((response.status === 301 || response.status === 302) && method === "POST")) {
          method = "GET";
          body = undefined;
          headers.delete("content-type");
          headers.delete("content-length");
        }
        if (next.origin !== checked.url.origin) for (const name of CREDENTIAL_HEADERS) headers.delete(name);
        url = next;
        continue;
      }

      const { bytes, truncated } = await readCapped(response, options.maxBytes, options.truncate === true, giveUp);
      return {
        status: response.status,
        headers: response.headers,
        bytes,
        truncated,
        url: checked.url.href,
        redirects,
        connectedAddress: address,
        durationMs: Math.round(performance.now() - started),
      };
    }
  } catch (error) {
    if (options.signal?.aborted && !deadline.aborted) throw options.signal.reason;
    if (deadline.aborted) throw new OutboundError("timeout", `no complete response within ${options.timeoutMs} ms`, undefined, { cause: error });
    if (error instanceof OutboundError) throw error;
    throw new OutboundError("network_error", describeNetworkError(error), undefined, { cause: error });
  }
}

interface SendParams {
  transport: Transport;
  method: string;
  headers: Headers;
  body?: string | Uint8Array;
  signal: AbortSignal;
  tls?: TlsOptions;
}

/** Tries the checked addresses in order, moving on only when a connection was never made. */
async function connect(checked: CheckedUrl, p: SendParams): Promise<{ response: Response; address: string }> {
  let lastError: unknown;
  for (const address of checked.addresses) {
    try {
      const response = await p.transport({ url: checked.url, address, method: p.method, headers: p.headers, body: p.body, signal: p.signal, tls: p.tls });
      return { response, address };
    } catch (error) {
      lastError = error;
      if (p.signal.aborted || !NOT_CONNECTED.has(errorCode(error) ?? "")) throw error;
    }
  }
  throw lastError;
}

function redirectTarget(location: string, base: URL): URL {
  let next: URL;
  try {
    next = new URL(location, base);
  } catch {
    throw new OutboundError("invalid_url", "redirect to an invalid URL");
  }
  try {
    return parseOutboundUrl(next);
  } catch (error) {
    throw new OutboundError("invalid_url", `redirect refused: ${(error as Error).message}`);
  }
}

async function readCapped(
  response: Response,
  maxBytes: number,
  truncate: boolean,
  giveUp: AbortController,
): Promise<{ bytes: Uint8Array; truncated: boolean }> {
  const tooLarge = () => new OutboundError("too_large", `response body is larger than ${formatBytes(maxBytes)}`);
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  if (!truncate && declared > maxBytes) {
    giveUp.abort();
    throw tooLarge();
  }
  if (!response.body) return { bytes: new Uint8Array(0), truncated: false };

  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (total + value.byteLength > maxBytes) {
      giveUp.abort();
      await reader.cancel().catch(() => {});
      if (!truncate) throw tooLarge();
      chunks.push(value.subarray(0, maxBytes - total));
      return { bytes: concat(chunks, maxBytes), truncated: true };
    }
    chunks.push(value);
    total += value.byteLength;
  }
  return { bytes: concat(chunks, total), truncated: false };
}

function concat(chunks: Uint8Array[], length: number): Uint8Array {
  if (chunks.length === 1 && chunks[0]!.byteLength === length) return chunks[0]!;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

/** "5 MiB" rather than "5242880 bytes" in messages people read. */
export const formatBytes = (n: number): string => (n % 1048576 === 0 ? `${n / 1048576} MiB` : n % 1024 === 0 ? `${n / 1024} KiB` : `${n} bytes`);

const errorCode = (error: unknown): string | undefined =>
  typeof error === "object" && error !== null && "code" in error && typeof error.code === "string" ? error.code : undefined;

function describeNetworkError(error: unknown): string {
  const code = errorCode(error);
  if (code === "ECONNREFUSED" || code === "ConnectionRefused") return "connection refused";
  if (code === "ECONNRESET" || code === "ConnectionClosed") return "connection closed before a complete response";
  if (code && /CERT|TLS|SSL/i.test(code)) return `TLS handshake failed (${code})`;
  return code ? `connection failed (${code})` : "connection failed";
}
