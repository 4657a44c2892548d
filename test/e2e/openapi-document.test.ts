/**
 * What a client generator relies on in /openapi.json, checked directly: media types of binary
 * answers, request bodies, integers, named schemas, the security scheme of each route family,
 * documented response headers, and no framework-only keywords.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestService, type TestService } from "../support/harness.ts";

let s: TestService;
let doc: any;
beforeAll(async () => {
  s = await startTestService();
  doc = await (await s.api("/openapi.json")).json();
});
afterAll(() => s.stop());

const operations = () =>
  Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ path, method, op })));

test("generate answers image/png (and the other formats' media types), never text/plain", () => {
  const ok = doc.paths["/api/generate"].post.responses["200"];
  expect(Object.keys(ok.content)).toEqual(["image/png", "image/jpeg", "image/webp"]);
  expect(ok.content["image/png"].schema).toMatchObject({ type: "string", format: "binary" });
  for (const name of ["X-Quota-Limit", "X-Quota-Remaining", "ETag", "X-Request-Id", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"]) expect(ok.headers[name]).toBeDefined();
  expect(doc.paths["/api/generate"].post.responses["429"].headers["Retry-After"]).toBeDefined();
});

test("every route that takes a body declares it", () => {
  const withBody = ["post /admin/accounts", "patch /admin/accounts/{id}", "post /admin/clock/advance", "post /api/webhooks", "put /api/webhooks/{id}", "post /api/webhooks/test", "post /api/generate"];
  for (const key of withBody) {
    const [method, path] = key.split(" ");
    const body = doc.paths[path!][method!].requestBody;
    expect({ key, has: !!body }).toEqual({ key, has: true });
    expect(Object.keys(body.content["application/json"].schema.properties ?? {}).length).toBeGreaterThan(0);
  }
  expect(doc.paths["/api/webhooks/test"].post.requestBody.required).toBe(false);
  expect(doc.paths["/api/generate"].post.requestBody.content["application/json"].example.title).toBeDefined();
});

/** Every schema object in the document (not the property-name maps that hold them). */
function* schemas(node: any, inProperties = false): Generator<any> {
  if (Array.isArray(node)) {
    for (const item of node) yield* schemas(item);
    return;
  }
  if (!node || typeof node !== "object") return;
  if (!inProperties) yield node;
  for (const [key, value] of Object.entries(node)) yield* schemas(value, key === "properties" && !inProperties);
}

test("integers are integers, nothing is string | number, no non-standard keywords leak", () => {
  const text = JSON.stringify(doc);
  expect(text).not.toContain('"format":"integer"');
  expect(text).not.toContain('"format":"numeric"');
  expect(text).not.toContain("x-media-types");
  // `error` (the framework's custom-message keyword) never appears as a keyword; as a property name it may.
  const leaking = [...schemas(doc)].filter((s) => typeof s.error === "string");
  expect(leaking).toEqual([]);
  // The walker does see schemas: the error envelope's own `error` property is found as a property.
  expect(doc.components.schemas.Error.properties.error).toEqual({ const: true, type: "boolean" });
  expect(doc.components.schemas.Usage.properties.used).toMatchObject({ type: "integer" });
  expect(doc.components.schemas.Account.properties.quota).toMatchObject({ type: "integer" });
});

test("named component schemas for every resource and the error envelope", () => {
  for (const name of ["Error", "ErrorDetail", "Usage", "Account", "CreatedAccount", "Webhook", "WebhookList", "DeletedWebhook", "WebhookTestResults", "WebhookDeliveries", "TemplateList", "Template", "RequestParameter", "ClockTime"]) {
    expect({ name, defined: !!doc.components.schemas[name] }).toEqual({ name, defined: true });
  }
  expect(doc.paths["/api/user/usage"].get.responses["200"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/Usage" });
  expect(doc.paths["/api/user/usage"].get.responses["401"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/Error" });
});

test("bearer for /admin, X-API-Key for /api, nothing for the health checks", () => {
  expect(doc.components.securitySchemes.adminToken).toMatchObject({ type: "http", scheme: "bearer" });
  expect(doc.components.securitySchemes.apiKey).toMatchObject({ type: "apiKey", in: "header", name: "X-API-Key" });
  for (const { path, method, op } of operations()) {
    const expected = path.startsWith("/admin") ? [{ adminToken: [] }] : path.startsWith("/api") ? [{ apiKey: [] }] : [];
    expect({ route: `${method} ${path}`, security: op.security }).toEqual({ route: `${method} ${path}`, security: expected });
  }
});

test("GET /api/templates describes the parameters every template takes", async () => {
  const { apiKey } = await s.createAccount();
  const body = (await (await s.api("/api/templates", { key: apiKey })).json()) as { data: any[]; parameters: any[] };
  const byName = Object.fromEntries(body.parameters.map((p) => [p.name, p]));
  expect(byName.theme).toMatchObject({ type: "string", default: "dark", enum: ["dark", "light"] });
  expect(byName.width).toMatchObject({ type: "integer", default: 1200, minimum: 200, maximum: 2400 });
  expect(byName.height).toMatchObject({ type: "integer", default: 630, minimum: 200, maximum: 2400 });
  expect(byName.format).toMatchObject({ type: "string", default: "png" });
  expect(byName.format.enum).toContain("png");
  // quality is offered exactly when a lossy format is.
  expect(!!byName.quality).toBe(byName.format.enum.some((f: string) => f !== "png"));
  expect(body.data.map((t) => t.id).sort()).toEqual(["blog", "event"]);
});

test("the headers the document promises are on the real answers", async () => {
  const { apiKey } = await s.createAccount({ plan: "pro" });
  const checks: [string, string, string, Response][] = [
    ["/api/generate", "post", "200", await s.api("/api/generate", { key: apiKey, json: { title: "Headers" } })],
    ["/api/user/usage", "get", "200", await s.api("/api/user/usage", { key: apiKey })],
    ["/api/generate", "post", "400", await s.api("/api/generate", { key: apiKey, json: { title: "" } })],
    ["/api/user/usage", "get", "401", await s.api("/api/user/usage")],
  ];
  for (const [path, method, status, res] of checks) {
    expect(String(res.status)).toBe(status);
    for (const name of Object.keys(doc.paths[path][method].responses[status].headers)) {
      expect({ path, status, name, present: res.headers.has(name) }).toEqual({ path, status, name, present: true });
    }
  }
});
