/**
 * URL syntax and the one DNS resolution per hop. The addresses returned here are the only ones
 * the transport may connect to, so a DNS answer that changes between the check and the
 * connection (rebinding) has nothing to slip through.
 */
import { promises as dns } from "node:dns";

import { type AddressPolicy, classifyAddress, connectableAddress, isAddressAllowed, isIpLiteral } from "./address-guard.ts";
import { OutboundError } from "./outbound-error.ts";

/** Resolves a hostname to IP literals. Injected in tests so nothing but loopback is ever asked. */
export type Resolver = (hostname: string) => Promise<string[]>;

/**
 * The OS resolver (hosts file, then DNS). IPv4 answers go first: many hosts publish AAAA
 * records this machine has no route for, and an unanswered SYN would burn the whole deadline,
 * while a refused IPv4 connection falls through to the next address at once.
 */
export const systemResolver: Resolver = async (hostname) =>
  (await dns.lookup(hostname, { all: true, verbatim: true })).sort((a, b) => a.family - b.family).map((a) => a.address);

export interface CheckOptions extends AddressPolicy {
  resolver?: Resolver;
  /** Aborts a slow resolution (the caller's overall deadline). */
  signal?: AbortSignal;
}

export interface CheckedUrl {
  url: URL;
  /** The host name as the user wrote it (no brackets); the Host header and TLS server name. */
  hostname: string;
  /** Every address the host resolved to, all allowed, in connectable form, resolver order. */
  addresses: string[];
}

/** Syntax only: an absolute http(s) URL. Throws OutboundError("invalid_url"). */
export function parseOutboundUrl(raw: string | URL): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundError("invalid_url", "not a valid absolute URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new OutboundError("invalid_url", `only http and https URLs are allowed, not ${url.protocol.slice(0, -1)}`);
  }
  return url;
}

/**
 * Parses the URL, resolves its host once and refuses it if ANY address is blocked (a host with
 * one public and one private address is refused: we could not promise which one a retry uses).
 * URL parsing has already rewritten odd IPv4 spellings ("2130706433", "0x7f.1") to dotted quads.
 */
export async function checkUrl(raw: string | URL, options: CheckOptions): Promise<CheckedUrl> {
  const url = parseOutboundUrl(raw);
  const hostname = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  const resolved = await resolveHost(hostname, options);
  for (const address of resolved) {
    if (!isAddressAllowed(address, options)) {
      const { range, privateNetwork } = classifyAddress(address);
      const what = isIpLiteral(hostname) ? "the address" : `${hostname} resolves to an address that`;
      // Say how to allow it where the operator can (a self-hosted receiver on the LAN or localhost).
      const hint = privateNetwork ? "; private and loopback addresses are allowed only when the server sets OG_ALLOW_PRIVATE_NETWORKS=true" : "";
      throw new OutboundError("blocked_address", `${what} is in a blocked range (${range})${hint}`, address);
    }
  }
  return { url, hostname, addresses: [...new Set(resolved.map(connectableAddress))] };
}

async function resolveHost(hostname: string, options: CheckOptions): Promise<string[]> {
  if (isIpLiteral(hostname)) return [hostname];
  // RFC 6761: "localhost" and "*.localhost" are loopback whatever a resolver says.
  const name = hostname.replace(/\.$/, "").toLowerCase();
  if (name === "localhost" || name.endsWith(".localhost")) return ["127.0.0.1", "::1"];

  const resolver = options.resolver ?? systemResolver;
  let addresses: string[];
  try {
    addresses = await abortable(resolver(hostname), options.signal);
  } catch (error) {
    if (options.signal?.aborted) throw error;
    throw new OutboundError("network_error", `could not resolve ${hostname}`, undefined, { cause: error });
  }
  if (addresses.length === 0) throw new OutboundError("network_error", `${hostname} has no addresses`);
  // A resolver answer that is not an IP literal would be resolved again by the transport: refuse it.
  const bad = addresses.find((a) => !isIpLiteral(a));
  if (bad !== undefined) throw new OutboundError("network_error", `resolver returned a non-address for ${hostname}`);
  return addresses;
}

/** Rejects with the signal's reason as soon as it aborts (DNS lookups cannot be cancelled). */
function abortable<T>(promise: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return promise;
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
