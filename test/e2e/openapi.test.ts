import { afterAll, beforeAll, expect, test } from "bun:test";
import SwaggerParser from "@apidevtools/swagger-parser";
import { startTestService, TEST_STORE, type TestService } from "../support/harness.ts";

let s: TestService;
beforeAll(async () => {
  s = await startTestService();
});
afterAll(() => s.stop());

test("/openapi.json is a valid OpenAPI 3.1 document covering every route and its error responses", async () => {
  const res = await s.api("/openapi.json");
  expect(res.status).toBe(200);
  const doc = (await res.json()) as any;
  expect(doc.openapi).toMatch(/^3\.1/);
  // A real validator, not a shape check.
  await SwaggerParser.validate(structuredClone(doc));

  const generate = doc.paths["/api/generate"].post;
  for (const status of ["200", "400", "401", "403", "413", "415", "422", "429", "500", "503"]) expect(generate.responses[status]).toBeDefined();
  expect(generate.requestBody.content["application/json"].schema).toBeDefined();
  expect(doc.paths["/api/user/usage"].get.responses["200"]).toBeDefined();
  expect(doc.paths["/api/templates"].get).toBeDefined();
  expect(doc.paths["/admin/accounts"].post.responses["201"]).toBeDefined();

  // Public image URLs: the real image content types and caching headers, no API key.
  const signed = doc.paths["/i/{key_id}/{signature}/{file}"];
  for (const method of ["get", "head"]) {
    expect(Object.keys(signed[method].responses["200"].content).sort()).toEqual(["image/jpeg", "image/png", "image/webp"]);
    expect(Object.keys(signed[method].responses["200"].headers)).toEqual(expect.arrayContaining(["ETag", "Cache-Control", "Content-Length"]));
    for (const status of ["304", "400", "401", "403", "410", "414", "429"]) expect(signed[method].responses[status]).toBeDefined();
    expect(signed[method].security).toEqual([]);
  }
  expect(doc.paths["/api/signing-keys"].post.responses["201"]).toBeDefined();
  expect(doc.paths["/api/signing-keys/{id}"].delete.responses["404"]).toBeDefined();
  expect(doc.paths["/api/image-urls"].post.responses["200"]).toBeDefined();
});

test("/docs is served from the binary: its UI script is local, no CDN", async () => {
  const html = await (await s.api("/docs")).text();
  expect(html).toContain('src="/docs/scalar.js"');
  expect(html).not.toMatch(/cdn\.jsdelivr|unpkg\.com/);
  const script = await s.api("/docs/scalar.js");
  expect(script.status).toBe(200);
  expect((await script.arrayBuffer()).byteLength).toBeGreaterThan(100_000);
});

test("/healthz, /readyz and /metrics", async () => {
  expect(await (await s.api("/healthz")).json()).toEqual({ status: "ok" });
  expect(await (await s.api("/readyz")).json()).toEqual({ status: "ready" });
  await s.api("/api/user/usage");
  const metrics = await (await s.admin("/metrics")).text();
  expect(metrics).toContain('ogsmith_http_requests_total{method="GET",route="/api/user/usage",status="401"}');
  expect(metrics).toMatch(/ogsmith_render_pool\{state="workers"\} 2/);
  expect(metrics).toMatch(/ogsmith_jobs_pending\{kind="webhook_delivery"\} 0/);
  expect(metrics).toMatch(/ogsmith_jobs_pending\{kind="email"\} 0/);
  // SQLite only: the checkpoint thread's counts (the bootstrap and the test's account committed).
  if (TEST_STORE === "sqlite") expect(Number(/ogsmith_sqlite_wal\{state="commits"\} (\d+)/.exec(metrics)?.[1])).toBeGreaterThan(0);
  else expect(metrics).not.toContain("ogsmith_sqlite_wal");
});
