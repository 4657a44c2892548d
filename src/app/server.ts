/**
 * Listens and logs: one JSON line per request with request id, key prefix (never the key),
 * status and duration. Logging wraps `app.handle` so every response — including errors the
 * framework produced and the answers given here before the app runs — is logged exactly once.
 *
 * What reaches the app is made safe first: a request whose Host is missing or malformed still
 * gets a parseable URL (the app, the framework's router and the access log all parse it), and
 * bodies are bounded by the app's own per-route limits (src/http/body.ts) rather than the runtime's, so an oversized
 * body gets the JSON envelope like every other refusal.
 */
import type { Server } from "bun";
import { ApiError } from "../errors.ts";
import { newId } from "../ids.ts";
import type { Logger } from "../logger.ts";
import type { App } from "./app.ts";
import { jsonError, unexpectedError } from "../http/error-mapper.ts";
import { peekRequestState, requestState } from "../http/request-context.ts";

export interface RunningServer {
  server: Server<undefined>;
  url: string;
  port: number;
  /** Stop accepting, let in-flight requests finish. */
  stop(): Promise<void>;
}

/**
 * The URL the app should see for a request target, or undefined when the target names no
 * resource at all (`CONNECT host:443`, `OPTIONS *`, `CONNECT *`).
 *
 * Bun builds `request.url` from the Host header: without one (HTTP/1.0) or with an empty one it
 * is just the path; with a malformed one (`a b`, `[`, `%zz`, `a:99999`) it is a string `new URL`
 * refuses. Either way the path is still what the client asked for, so it is answered on this
 * server's own origin. (Short but valid hosts such as `Host: web` are kept: the app's router is
 * configured not to assume a long host name.)
 */
export function routableUrl(url: string, ownOrigin: string): string | undefined {
  if (url.startsWith("/")) return ownOrigin + url;
  const scheme = /^https?:\/\//i.exec(url);
  if (!scheme) return undefined;
  if (URL.canParse(url)) return url;
  const slash = url.indexOf("/", scheme[0].length);
  return ownOrigin + (slash === -1 ? "/" : url.slice(slash));
}

/** The same request at another URL; the body stream moves over unread. */
function withUrl(request: Request, url: string): Request {
  const hasBody = request.method !== "GET" && request.method !== "HEAD";
  return new Request(url, {
    method: request.method,
    headers: request.headers,
    body: hasBody ? request.body : undefined,
    // Required by the fetch standard for a streamed body.
    duplex: "half",
  } as RequestInit);
}

function closing(response: Response): Response {
  const headers = new Headers(response.headers);
  headers.set("connection", "close");
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

/** The path for the log: the URL's when it parses, else the raw target (which is then no URL). */
function pathOf(url: string): string {
  return URL.canParse(url) ? new URL(url).pathname : url.slice(0, 200);
}

export function listen(app: App, options: { port: number; host: string; logger: Logger }): RunningServer {
  const { logger } = options;
  let ownOrigin = "http://localhost";

  async function answer(request: Request): Promise<Response> {
    try {
      return await app.handle(request);
    } catch (error) {
      // The app maps its own errors; this is a throw that escaped the framework itself.
      const id = requestState(request).id;
      return jsonError(unexpectedError(error, logger, id), { "x-request-id": id });
    }
  }

  const server = Bun.serve({
    port: options.port,
    hostname: options.host,
    // A second server on the same port must fail loudly, not share it (Elysia's default is true).
    reusePort: false,
    // The body limits (per route, declared or streamed) are enforced by the app while it reads, so that
    // the refusal is the JSON envelope with a request id and a log line. Bun's own limit would
    // answer a bare 413 before the app runs; it is set out of reach. A body the app does not read
    // is discarded by Bun as it arrives, never buffered.
    maxRequestBodySize: Number.MAX_SAFE_INTEGER,
    async fetch(incoming) {
      const started = performance.now();
      // Parsed once here; the gates and the log read the path from the request state.
      const parsed = URL.parse(incoming.url);
      const target = parsed ? incoming.url : routableUrl(incoming.url, ownOrigin);
      const request = target === undefined || target === incoming.url ? incoming : withUrl(incoming, target);
      if (parsed) requestState(request).pathname = parsed.pathname;
      let response: Response;
      if (target === undefined) {
        const id = requestState(request).id;
        response = jsonError(new ApiError("NOT_FOUND", `No route for ${request.method} ${incoming.url.slice(0, 200)}.`), { "x-request-id": id });
      } else {
        response = await answer(request);
      }
      // A body left unread (refused before reading, or cut off at the limit) would keep the
      // connection busy until the idle timeout, and a graceful stop waiting for it: close instead.
      const declaresBody = incoming.headers.has("transfer-encoding") || Number(incoming.headers.get("content-length") ?? 0) > 0;
      if (response.status === 413 || (declaresBody && !incoming.bodyUsed && !request.bodyUsed)) response = closing(response);
      const seconds = (performance.now() - started) / 1000;
      const state = peekRequestState(request);
      // The API gate parsed the path already (same URL, same parse) when it ran.
      const pathname = target === undefined ? incoming.url.slice(0, 200) : (state?.pathname ?? pathOf(target));
      const route = (target !== undefined && app.routeOf(pathname)) || "unmatched";
      app.metrics.observe(request.method, route, response.status, seconds);
      // Every request, so its fields are built only when the line is written (not below info).
      if (logger.enabled?.("info") !== false)
        logger.info("request", {
          request_id: state?.id ?? response.headers.get("x-request-id"),
          method: request.method,
          path: pathname,
          route,
          status: response.status,
          duration_ms: Math.round(seconds * 100000) / 100,
          key_prefix: state?.auth?.keyPrefix,
          account_id: state?.auth?.account.id ?? state?.session?.account.id,
        });
      return response;
    },
    error(error) {
      // Only reached if the code above throws (logging, metrics); the request is not at hand here.
      const id = newId("req");
      logger.error("server error", { request_id: id, error: error.message, stack: error.stack });
      return jsonError(new ApiError("INTERNAL_ERROR", "Internal server error. The request id identifies it in the server log."), { "x-request-id": id });
    },
  });
  const url = `http://${options.host === "0.0.0.0" ? "localhost" : options.host}:${server.port}`;
  // Requests without a usable Host are answered as if addressed to this server directly.
  const host = options.host === "0.0.0.0" || options.host === "::" ? "localhost" : options.host.includes(":") ? `[${options.host}]` : options.host;
  ownOrigin = `http://${host}:${server.port}`;
  return {
    server,
    url,
    port: server.port!,
    stop: async () => {
      await server.stop(false);
    },
  };
}
