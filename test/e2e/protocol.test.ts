/**
 * What clients send below the level of an HTTP library, over raw sockets: requests without a
 * Host or with a malformed one, odd request targets, bodies far over the limit declared or
 * streamed. Each is answered normally where it names a route and with the JSON envelope (and a
 * request id, and a log line) otherwise — never a 500, never a bare runtime answer where the
 * app can be reached. The last block pins down the few answers the runtime gives itself.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config.ts";
import { createLogger } from "../../src/logger.ts";
import { startService, type RunningService } from "../../src/serve.ts";
import { ADMIN_TOKEN } from "../support/harness.ts";
import { chunkedBody, plainBody, rawRequest, type RawResponse } from "../support/raw-http.ts";
import { waitFor } from "../support/wait.ts";

let service: RunningService;
let dir: string;
let key: string;
const logLines: Record<string, unknown>[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ogsmith-protocol-"));
  const config = loadConfig({
    OG_DB_PATH: join(dir, "ogsmith.db"),
    PORT: "0",
    HOST: "127.0.0.1",
    OG_TEST_CLOCK: "1",
    OG_ADMIN_TOKEN: ADMIN_TOKEN,
    OG_BOOTSTRAP: "false",
    OG_RENDER_WORKERS: "1",
  });
  // A real logger writing into an array: the access log is part of what is asserted.
  const logger = createLogger("info", (line) => logLines.push(JSON.parse(line)));
  service = await startService(config, { logger, print: () => {} });
  const res = await fetch(`${service.url}/admin/accounts`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ email: "raw@example.com", plan: "custom", quota: 100, requests_per_second: 1000 }),
  });
  key = ((await res.json()) as { api_key: string }).api_key;
});
afterAll(async () => {
  await service.stop();
  rmSync(dir, { recursive: true, force: true });
});

const send = (data: string, options?: Parameters<typeof rawRequest>[2]) => rawRequest(service.port, data, options);

/** The envelope with the given code, a request id, and the access-log line for that id. */
function expectEnvelope(res: RawResponse, status: number, code: string) {
  expect(res.status, res.raw).toBe(status);
  expect(res.headers["content-type"]).toContain("application/json");
  const id = res.headers["x-request-id"];
  expect(id).toMatch(/^req_[A-Za-z0-9]{20}$/);
  expect(JSON.parse(res.body)).toMatchObject({ error: true, code });
  expect(logLines.find((line) => line.msg === "request" && line.request_id === id)).toMatchObject({ status });
}

async function usedImages(): Promise<number> {
  const res = await fetch(`${service.url}/api/user/usage`, { headers: { "x-api-key": key } });
  return ((await res.json()) as { used: number }).used;
}

describe("a missing or malformed Host is answered, never a 500", () => {
  const healthz = (head: string) => send(`GET /healthz ${head}\r\n\r\n`);

  test("HTTP/1.0 without Host: GET /healthz → 200", async () => {
    const res = await send("GET /healthz HTTP/1.0\r\n\r\n");
    expect(res.status, res.raw).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ status: "ok" });
    expect(res.headers["x-request-id"]).toMatch(/^req_/);
  });

  for (const host of ["a b", "[", "", "%zz", "a:99999", "u@h", "a/b?c#d", "web", "[::1", "ä"]) {
    test(`Host: ${JSON.stringify(host)} → GET /healthz 200 over HTTP/1.1 and 1.0`, async () => {
      for (const version of ["HTTP/1.1", "HTTP/1.0"]) {
        const res = await healthz(`${version}\r\nHost: ${host}\r\nConnection: close`);
        expect(res.status, res.raw).toBe(200);
        expect(JSON.parse(res.body)).toEqual({ status: "ok" });
      }
    });
  }

  test("authenticated routes with parameters route correctly under a bad or short Host", async () => {
    for (const host of ["[", "a b", "web"]) {
      const usage = await send(`GET /api/user/usage HTTP/1.1\r\nHost: ${host}\r\nX-API-Key: ${key}\r\nConnection: close\r\n\r\n`);
      expect(usage.status, usage.raw).toBe(200);
      expect(JSON.parse(usage.body)).toMatchObject({ used: 0, quota: 100 });
      // A parameterised route: the webhook id is read from the path, so the account's 404 comes back.
      const deliveries = await send(`GET /api/webhooks/wh_missing/deliveries HTTP/1.1\r\nHost: ${host}\r\nX-API-Key: ${key}\r\nConnection: close\r\n\r\n`);
      expectEnvelope(deliveries, 404, "WEBHOOK_NOT_FOUND");
    }
  });

  test("a POST body travels with the request when the Host is replaced", async () => {
    const body = '{"title": ';
    const res = await send(
      `POST /api/generate HTTP/1.0\r\nHost: a b\r\nX-API-Key: ${key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
    expectEnvelope(res, 400, "INVALID_JSON");
    const missing = await send(`POST /api/generate HTTP/1.0\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`);
    expectEnvelope(missing, 401, "MISSING_API_KEY");
  });

  test("no route, no key, no Host: the envelope", async () => {
    expectEnvelope(await send("GET /nowhere HTTP/1.0\r\n\r\n"), 404, "NOT_FOUND");
    expectEnvelope(await send("GET /api/user/usage HTTP/1.0\r\nHost: [\r\n\r\n"), 401, "MISSING_API_KEY");
    expectEnvelope(await send("DELETE /healthz HTTP/1.0\r\nHost: \r\n\r\n"), 405, "METHOD_NOT_ALLOWED");
  });

  test("CONNECT * and authority-form targets name no resource: 404 envelope", async () => {
    for (const line of ["CONNECT * HTTP/1.1", "CONNECT example.com:443 HTTP/1.1", "CONNECT * HTTP/1.0"]) {
      const res = await send(`${line}\r\nHost: x\r\nConnection: close\r\n\r\n`);
      expectEnvelope(res, 404, "NOT_FOUND");
    }
  });

  test("absolute-form targets, odd ones included, are routed by their path", async () => {
    for (const target of ["http://other.example/healthz", "https://other.example:1/healthz?x=1", "http://[/healthz", "http://a/healthz", "HTTP://A/healthz"]) {
      const res = await send(`GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
      expect(res.status, `${target}: ${res.raw}`).toBe(200);
    }
    expectEnvelope(await send("GET http://x/nowhere HTTP/1.0\r\n\r\n"), 404, "NOT_FOUND");
  });
});

describe("bodies over the route's limit (64 KiB; 8 MiB on generate) at any size: 413 PAYLOAD_TOO_LARGE envelope, logged, nothing counted", () => {
  const head = (path: string, extra: string) =>
    `POST ${path} HTTP/1.1\r\nHost: localhost\r\nX-API-Key: ${key}\r\nContent-Type: application/json\r\n${extra}\r\n`;

  test("declared sizes past the runtime's old 1 MiB limit, up to 1 TB, answered before the body is read", async () => {
    for (const [path, size] of [
      ["/api/webhooks", 64 * 1024 + 1],
      ["/api/webhooks", 1024 * 1024 + 1],
      ["/api/generate", 8 * 1024 * 1024 + 1],
      ["/api/generate", 10 * 1024 * 1024],
      ["/api/generate", 1e12],
    ] as const) {
      // Only the head is sent: the answer must not wait for a body that never comes.
      const res = await send(head(path, `Content-Length: ${size}\r\n`), { timeoutMs: 10_000 });
      expectEnvelope(res, 413, "PAYLOAD_TOO_LARGE");
      // The rest of the body is not wanted: the connection ends rather than idling until a timeout.
      expect(res.headers.connection).toBe("close");
    }
    // Any answer that leaves a declared body unread closes the connection too.
    const unauthenticated = await send(`POST /api/generate HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100000\r\n\r\n`);
    expectEnvelope(unauthenticated, 401, "MISSING_API_KEY");
    expect(unauthenticated.headers.connection).toBe("close");
  });

  test("a 2 MiB body actually sent is refused with the envelope", async () => {
    const res = await send(head("/api/webhooks", `Content-Length: ${2 * 1024 * 1024}\r\n`), { after: plainBody(2 * 1024 * 1024) });
    expectEnvelope(res, 413, "PAYLOAD_TOO_LARGE");
  });

  test("chunked bodies of 100 KiB, 2 MiB and 16 MiB on generate, webhooks and the dashboard", async () => {
    for (const [path, chunks] of [
      ["/api/webhooks", 100],
      ["/api/image-urls", 2048],
      ["/api/webhooks", 2048],
      ["/api/generate", 16 * 1024],
    ] as const) {
      const res = await send(head(path, "Transfer-Encoding: chunked\r\n"), { after: chunkedBody(chunks, 1024) });
      expectEnvelope(res, 413, "PAYLOAD_TOO_LARGE");
    }
    const dashboard = await send(
      `POST /dashboard/api/session HTTP/1.1\r\nHost: ${new URL(service.url).host}\r\nOrigin: ${service.url}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
      { after: chunkedBody(2048, 1024) },
    );
    expectEnvelope(dashboard, 413, "PAYLOAD_TOO_LARGE");
    expect(await usedImages()).toBe(0);
  });

  test("the same fetch client sees the envelope for a 9 MiB body", async () => {
    const res = await fetch(`${service.url}/api/generate`, {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json" },
      body: JSON.stringify({ title: "x", subtitle: "y".repeat(9 * 1024 * 1024) }),
    });
    expect(res.status).toBe(413);
    expect(res.headers.get("x-request-id")).toMatch(/^req_/);
    expect(await res.json()).toMatchObject({ error: true, code: "PAYLOAD_TOO_LARGE" });
  });
});

describe("what the runtime answers itself, before any application code runs", () => {
  // These are refused by Bun's HTTP parser; the app never sees them. Pinned here so that a
  // runtime upgrade that changes them is noticed (docs/api.md lists the same cases).
  const cases: [string, string, number][] = [
    ["HTTP/1.1 without Host", "GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n", 400],
    ["malformed request line", "GARBAGE\r\n\r\n", 400],
    ["header line without a colon", "GET /healthz HTTP/1.1\r\nHost: x\r\nNoColon\r\n\r\n", 400],
    ["control character in a header value", "GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: a\x01b\r\n\r\n", 400],
    ["unparseable Content-Length", "POST /api/generate HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n", 400],
    [
      "Content-Length with Transfer-Encoding",
      "POST /api/generate HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
      400,
    ],
    ["Transfer-Encoding other than chunked", "POST /api/generate HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n", 400],
    ["asterisk target for OPTIONS", "OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n", 400],
    ["HTTP/2 preface on a plain HTTP/1 port", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 400],
    ["HTTP version other than 1.0/1.1", "GET /healthz HTTP/2.0\r\nHost: x\r\n\r\n", 505],
    ["space inside the target", "GET /a b HTTP/1.1\r\nHost: x\r\n\r\n", 505],
    ["header section over 16 KiB", `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(17 * 1024)}\r\n\r\n`, 431],
    ["unknown method token", "BREW /healthz HTTP/1.1\r\nHost: x\r\n\r\n", 0],
    ["lower-case method", "get /healthz HTTP/1.1\r\nHost: x\r\n\r\n", 0],
  ];
  test("a malformed chunk mid-body: the runtime's 400 is what is sent; the app, which had started, answered no 5xx", async () => {
    const before = logLines.length;
    const res = await send(
      `POST /api/webhooks HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n`,
    );
    expect(res.status, res.raw).toBe(400);
    expect(res.headers["x-request-id"]).toBeUndefined();
    expect(res.headers.connection).toBe("close");
    await waitFor(() => logLines.slice(before).some((line) => line.msg === "request"), "the request's log line");
    expect(logLines.slice(before).find((line) => line.msg === "request")).toMatchObject({ route: "/api/webhooks", status: 400 });
    expect(logLines.slice(before).filter((line) => line.level === "error")).toEqual([]);
  });

  for (const [name, data, status] of cases) {
    test(`${name} → ${status || "connection closed without an answer"}; the service keeps answering`, async () => {
      const before = logLines.length;
      const res = await send(data);
      expect(res.status, res.raw).toBe(status);
      if (status !== 0) expect(res.headers.connection).toBe("close");
      else expect(res.closed).toBe(true);
      // Nothing reached the app, so nothing was logged for it.
      expect(logLines.slice(before).filter((line) => line.msg === "request")).toEqual([]);
      const health = await send("GET /healthz HTTP/1.0\r\n\r\n");
      expect(health.status).toBe(200);
    });
  }
});
