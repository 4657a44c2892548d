/**
 * Loopback-only network fixtures for tests of outbound requests (image fetching, webhooks).
 *
 * The rule these helpers enforce: a test never opens a connection to anything but 127.0.0.1
 * or ::1, even when the guard under test is broken. `loopbackOnly()` wraps the transport and
 * refuses (and records) any other address on its own, without trusting src/net's classifier;
 * resolvers in tests are injected maps, so no name is ever sent to a real DNS server.
 */
import net from "node:net";
import tls from "node:tls";

import type { Resolver } from "../../src/net/resolve.ts";
import { createFetchTransport, type Transport } from "../../src/net/transport.ts";
import type { SelfSignedCert } from "./certificates.ts";

export interface SeenRequest {
  method: string;
  path: string;
  host: string | null;
  headers: Headers;
}

export interface HttpFixture {
  port: number;
  /** `http://127.0.0.1:<port><path>` */
  url(path?: string): string;
  requests: SeenRequest[];
  stop(): Promise<void>;
}

/** A Bun.serve server on 127.0.0.1, port 0, that records every request it answers. */
export function serveHttp(handler: (request: Request) => Response | Promise<Response>): HttpFixture {
  const requests: SeenRequest[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const url = new URL(request.url);
      requests.push({ method: request.method, path: url.pathname + url.search, host: request.headers.get("host"), headers: request.headers });
      return handler(request);
    },
  });
  const port = server.port!;
  return { port, url: (path = "/") => `http://127.0.0.1:${port}${path}`, requests, stop: () => server.stop(true) };
}

export interface TcpFixture {
  port: number;
  /** TCP connections accepted so far, on either loopback address. */
  readonly connections: number;
  stop(): Promise<void>;
}

/**
 * Raw TCP listeners on 127.0.0.1 and ::1 (same port) that count connections and answer
 * nothing: proof that a refused URL was refused before connecting, and a server that never
 * answers for timeout tests.
 */
export async function listenTcp(): Promise<TcpFixture> {
  const sockets = new Set<net.Socket>();
  let connections = 0;
  const onConnection = (socket: net.Socket) => {
    connections++;
    sockets.add(socket);
    socket.on("error", () => {});
    socket.on("close", () => sockets.delete(socket));
  };
  const v4 = net.createServer(onConnection);
  await new Promise<void>((resolve) => v4.listen(0, "127.0.0.1", resolve));
  const port = (v4.address() as net.AddressInfo).port;
  const v6 = net.createServer(onConnection);
  const v6Up = await new Promise<boolean>((resolve) => {
    v6.once("error", () => resolve(false));
    v6.listen(port, "::1", () => resolve(true));
  });
  if (!v6Up) throw new Error(`could not listen on [::1]:${port} too`);
  return {
    port,
    get connections() {
      return connections;
    },
    async stop() {
      for (const socket of sockets) socket.destroy();
      await Promise.all([v4, v6].map((s) => new Promise((resolve) => s.close(resolve))));
    },
  };
}

/** A loopback port nothing listens on (connection refused). */
export async function unusedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface LoopbackOnly {
  transport: Transport;
  /** Every address the code under test asked to connect to, allowed or not. */
  attempts: string[];
  /** Addresses or URLs refused because they are not loopback: must stay empty. */
  violations: string[];
}

const isLoopbackLiteral = (host: string) => host === "::1" || host === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);

/**
 * The real fetch transport, fenced twice so it can only ever reach 127.0.0.0/8 or ::1: once on
 * the address it is handed, once on the URL actually given to fetch (in case the transport
 * itself were broken). Deliberately written without src/net's classifier.
 */
export function loopbackOnly(): LoopbackOnly {
  const attempts: string[] = [];
  const violations: string[] = [];
  const refuse = (what: string) => {
    violations.push(what);
    return Promise.reject(new Error(`test safety net: refused to connect to non-loopback ${what}`));
  };
  const fencedFetch = ((input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : input);
    return isLoopbackLiteral(url.hostname) ? fetch(input, init) : refuse(url.href);
  }) as typeof fetch;
  const inner = createFetchTransport(fencedFetch);
  const transport: Transport = (request) => {
    attempts.push(request.address);
    return isLoopbackLiteral(request.address) ? inner(request) : refuse(request.address);
  };
  return { transport, attempts, violations };
}

/** A resolver from a fixed table; unknown names fail like NXDOMAIN and never reach real DNS. */
export function fakeResolver(table: Record<string, string[]>): Resolver & { asked: string[] } {
  const asked: string[] = [];
  const resolver = async (hostname: string) => {
    asked.push(hostname);
    const answer = table[hostname.toLowerCase()];
    if (!answer) throw Object.assign(new Error(`queryA ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
    return answer;
  };
  return Object.assign(resolver, { asked });
}

export interface TlsFixture {
  port: number;
  /** Per connection: the SNI name the client sent and the request's Host header. */
  seen: { servername: string | null; host: string | undefined }[];
  stop(): Promise<void>;
}

/**
 * An HTTPS server on 127.0.0.1 built on node:tls rather than Bun.serve, because only a raw TLS
 * socket exposes the SNI name the client sent. Answers every request with `body`.
 */
export async function serveTls(cert: Pick<SelfSignedCert, "cert" | "key">, body: Uint8Array): Promise<TlsFixture> {
  const seen: TlsFixture["seen"] = [];
  const sockets = new Set<tls.TLSSocket>();
  const server = tls.createServer({ cert: cert.cert, key: cert.key }, (socket) => {
    sockets.add(socket);
    socket.on("error", () => {});
    socket.on("close", () => sockets.delete(socket));
    let head = "";
    socket.on("data", (chunk) => {
      head += chunk.toString("latin1");
      if (!head.includes("\r\n\r\n")) return;
      const host = /^host:\s*(.*)$/im.exec(head)?.[1]?.trim();
      seen.push({ servername: socket.servername || null, host });
      socket.write(`HTTP/1.1 200 OK\r\ncontent-type: application/octet-stream\r\ncontent-length: ${body.byteLength}\r\nconnection: close\r\n\r\n`);
      socket.end(Buffer.from(body));
      head = "";
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    seen,
    async stop() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
