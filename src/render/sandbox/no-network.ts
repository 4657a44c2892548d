/**
 * Takes the network away from the thread that imports it: render workers import this first.
 *
 * Nothing a render needs comes from the network: the main thread fetches image fields through
 * the guarded fetcher (fetch-image.ts) and hands them over as data: URIs, and fonts and emoji
 * are embedded. But satori fetches any `http…` image source itself with the global `fetch`,
 * outside that guard, so a URL that slipped past template validation would be fetched from
 * inside the network: a server-side request forgery. Validation refuses such sources; this is
 * the second wall behind it. Every way this runtime offers to open a connection throws here.
 */
import dgram from "node:dgram";
import net from "node:net";
import tls from "node:tls";

export class NetworkDisabledError extends Error {
  constructor(api: string) {
    super(`${api} is disabled in render workers: they have no network (images arrive as data: URIs)`);
    this.name = "NetworkDisabledError";
  }
}

const refuse = (api: string) =>
  function disabled(): never {
    throw new NetworkDisabledError(api);
  };

/** A constructor that cannot be constructed (WebSocket, EventSource, net.Socket). */
const refuseClass = (api: string) =>
  class Disabled {
    constructor() {
      throw new NetworkDisabledError(api);
    }
  };

/** Names that could not be replaced (a runtime that froze them): start-up refuses to go on then. */
const stuck: string[] = [];

function replace(target: object, name: string, value: unknown, label = name): void {
  if (!(name in target)) return;
  try {
    (target as Record<string, unknown>)[name] = value;
  } catch {
    // Read-only: define it again where the property allows that.
    try {
      Object.defineProperty(target, name, { value, writable: false, configurable: true });
    } catch {}
  }
  if ((target as Record<string, unknown>)[name] !== value) stuck.push(label);
}

/** Disables every network API this thread can reach. Idempotent. */
export function disableNetwork(): void {
  const global = globalThis as Record<string, unknown>;
  stuck.length = 0;
  replace(global, "fetch", refuse("fetch"));
  replace(global, "WebSocket", refuseClass("WebSocket"));
  replace(global, "EventSource", refuseClass("EventSource"));
  replace(global, "XMLHttpRequest", refuseClass("XMLHttpRequest"));
  // Bun.fetch (and Bun's database clients) are fixed properties of a frozen global: only code
  // that names them reaches them, and only operator code and ours runs here; a library (satori)
  // goes through the global fetch above.
  for (const name of ["connect", "listen", "serve", "udpSocket"]) replace(Bun, name, refuse(`Bun.${name}`), `Bun.${name}`);
  for (const name of ["connect", "createConnection", "createServer"]) replace(net, name, refuse(`net.${name}`), `net.${name}`);
  replace(net.Socket.prototype, "connect", refuse("net.Socket.connect"), "net.Socket.connect");
  for (const name of ["connect", "createServer"]) replace(tls, name, refuse(`tls.${name}`), `tls.${name}`);
  replace(dgram, "createSocket", refuse("dgram.createSocket"), "dgram.createSocket");
  if (stuck.length) throw new Error(`cannot disable the network in this thread: ${stuck.join(", ")} could not be replaced`);
}

disableNetwork();
