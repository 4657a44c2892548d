/**
 * The one place that opens connections. It is handed an address that has already been checked
 * and connects to exactly that address, never to the name in the URL:
 *
 * - the request URL's host is replaced by the IP literal, so Bun does no DNS lookup of its own;
 * - the `Host` header carries the original host (and port), so virtual hosting still works;
 * - for https, `tls.serverName` sends the original name as SNI *and* is the name Bun verifies
 *   the certificate against (checked against Bun 1.4.5 with loopback servers: a certificate for
 *   another name fails with ERR_TLS_CERT_ALTNAME_INVALID, also on a reused pooled connection).
 *
 * Tests wrap it (see test/support/loopback.ts) to refuse any non-loopback address, so even a
 * broken guard cannot make a test reach the network.
 */
import { isIpLiteral } from "./address-guard.ts";

export interface TlsOptions {
  /** Extra trusted CA certificates (PEM); tests trust their self-signed server this way. */
  ca?: string | string[];
}

export interface TransportRequest {
  /** The URL as the user wrote it (after redirects): Host header, SNI and path come from it. */
  url: URL;
  /** The checked IP literal to connect to (no brackets). */
  address: string;
  method: string;
  headers: Headers;
  body?: string | Uint8Array;
  signal: AbortSignal;
  tls?: TlsOptions;
}

/** Sends one request without following redirects. */
export type Transport = (request: TransportRequest) => Promise<Response>;

/**
 * A transport over Bun's fetch. `fetchImpl` is injectable so the test safety net can refuse,
 * at the last step before a socket is opened, any URL whose host is not a loopback literal.
 */
export function createFetchTransport(fetchImpl: typeof fetch = fetch): Transport {
  return ({ url, address, method, headers, body, signal, tls }) => {
    const target = new URL(url);
    target.hostname = address.includes(":") ? `[${address}]` : address;
    const sent = new Headers(headers);
    sent.set("host", url.host);
    const hostname = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
    const serverName = url.protocol === "https:" && !isIpLiteral(hostname) ? { serverName: hostname } : {};
    return fetchImpl(target, {
      method,
      headers: sent,
      body,
      signal,
      redirect: "manual",
      tls: { ...tls, ...serverName },
    } as RequestInit);
  };
}

export const fetchTransport: Transport = createFetchTransport();
