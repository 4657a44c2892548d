/**
 * Listens and logs: one JSON line per request with request id, key prefix (never the key),
 * status and duration. Logging wraps `app.handle` so every response — including errors the
 * framework produced — is logged exactly once.
 */
import type { Server } from "bun";
import type { Logger } from "../logger.ts";
import type { App } from "./app.ts";
import { peekRequestState } from "./request-context.ts";

export interface RunningServer {
  server: Server<undefined>;
  url: string;
  port: number;
  /** Stop accepting, let in-flight requests finish. */
  stop(): Promise<void>;
}

export function listen(app: App, options: { port: number; host: string; logger: Logger }): RunningServer {
  const { logger } = options;
  const server = Bun.serve({
    port: options.port,
    hostname: options.host,
    // A second server on the same port must fail loudly, not share it (Elysia's default is true).
    reusePort: false,
    // Bodies are capped at 64 KiB by the JSON parser; this only bounds what Bun buffers at all.
    maxRequestBodySize: 1024 * 1024,
    async fetch(request) {
      const started = performance.now();
      const response = await app.handle(request);
      const seconds = (performance.now() - started) / 1000;
      const pathname = new URL(request.url).pathname;
      const route = app.routeOf(pathname) ?? "unmatched";
      const state = peekRequestState(request);
      app.metrics.observe(request.method, route, response.status, seconds);
      logger.info("request", {
        request_id: state?.id ?? response.headers.get("x-request-id"),
        method: request.method,
        path: pathname,
        route,
        status: response.status,
        duration_ms: Math.round(seconds * 100000) / 100,
        key_prefix: state?.auth?.keyPrefix,
        account_id: state?.auth?.account.id ?? state?.sessionAccountId,
      });
      return response;
    },
    error(error) {
      logger.error("server error", { error: error.message, stack: error.stack });
      return new Response(JSON.stringify({ error: true, message: "Internal server error.", code: "INTERNAL_ERROR" }), {
        status: 500,
        headers: { "content-type": "application/json" },
      });
    },
  });
  const url = `http://${options.host === "0.0.0.0" ? "localhost" : options.host}:${server.port}`;
  return {
    server,
    url,
    port: server.port!,
    stop: async () => {
      await server.stop(false);
    },
  };
}
