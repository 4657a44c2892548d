/**
 * The app-level answers in process (test/support/in-process.ts): /healthz, /readyz, /metrics and
 * /docs, routes that do not exist (404 and 405 in the envelope), the OpenAPI document's schemas
 * and every answer against them, and the security headers. (/metrics' request counters come from
 * the listening server: test/e2e/openapi.test.ts.)
 */
import { describe, expect, test, afterAll, beforeAll } from "bun:test";
import { envelope } from "../support/envelope.ts";
import { customAccount, useInProcessApp, startInProcessApp, type InProcessApp, useAppWithReceiver } from "../support/in-process.ts";
import { ADMIN_TOKEN } from "../support/harness.ts";
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { buildSignedUrl } from "../../src/signing/index.ts";
import { waitFor } from "../support/wait.ts";

const s = useInProcessApp();

describe("routes that do not exist", () => {
  test("an unknown path is 404 NOT_FOUND in the envelope", async () => {
    await envelope(await s.api("/no/such/page"), 404, "NOT_FOUND");
    const { key } = await customAccount(s);
    await envelope(await s.api("/api/no-such-route", { key }), 404, "NOT_FOUND");
  });

  test("a known path with another method is 405 METHOD_NOT_ALLOWED with Allow", async () => {
    const { key } = await customAccount(s);
    const res = await s.api("/api/user/usage", { key, method: "DELETE" });
    await envelope(res, 405, "METHOD_NOT_ALLOWED");
    expect(res.headers.get("allow")).toContain("GET");
  });
});

describe("shapes", () => {
  test("GET /healthz answers without a key and carries a request id", async () => {
    const res = await s.api("/healthz");
    expect(res.status).toBe(200);
    expect(res.headers.get("x-request-id")).toMatch(/^req_/);
  });
});

/**
 * What a client generator relies on in /openapi.json, checked directly: media types of binary
 * answers, request bodies, integers, named schemas, the security scheme of each route family,
 * documented response headers, and no framework-only keywords.
 */
describe("the OpenAPI document's schemas", () => {
  let s: InProcessApp;
  let doc: any;
  beforeAll(async () => {
    s = await startInProcessApp();
    doc = await (await s.api("/openapi.json")).json();
  });
  afterAll(() => s.stop());

  const operations = () =>
    Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => ({ path, method, op })),
    );

  test("generate answers image/png (and the other formats' media types), never text/plain", () => {
    const ok = doc.paths["/api/generate"].post.responses["200"];
    expect(Object.keys(ok.content)).toEqual(["image/png", "image/jpeg", "image/webp"]);
    expect(ok.content["image/png"].schema).toMatchObject({ type: "string", format: "binary" });
    for (const name of ["X-Quota-Limit", "X-Quota-Remaining", "ETag", "X-Request-Id", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"])
      expect(ok.headers[name]).toBeDefined();
    expect(doc.paths["/api/generate"].post.responses["429"].headers["Retry-After"]).toBeDefined();
  });

  test("every route that takes a body declares it", () => {
    const withBody = [
      "post /admin/accounts",
      "patch /admin/accounts/{id}",
      "post /admin/clock/advance",
      "post /api/webhooks",
      "put /api/webhooks/{id}",
      "post /api/webhooks/test",
      "post /api/generate",
    ];
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
    for (const name of [
      "Error",
      "ErrorDetail",
      "Usage",
      "Account",
      "CreatedAccount",
      "Webhook",
      "WebhookList",
      "DeletedWebhook",
      "WebhookTestResults",
      "WebhookDeliveries",
      "TemplateList",
      "Template",
      "StringParameter",
      "IntegerParameter",
      "ClockTime",
    ]) {
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

  test("one type per schema property: no property is a union of different types (null aside)", () => {
    const mixed: string[] = [];
    const typeOf = (branch: any) => branch.type ?? (branch.const !== undefined ? typeof branch.const : branch.$ref ? "ref" : "unknown");
    const walk = (node: any, at: string) => {
      if (Array.isArray(node)) {
        for (const [i, item] of node.entries()) walk(item, `${at}[${i}]`);
        return;
      }
      if (node === null || typeof node !== "object") return;
      if (Array.isArray(node.type) && node.type.filter((t: string) => t !== "null").length > 1) mixed.push(`${at}: type ${node.type}`);
      for (const key of ["anyOf", "oneOf"]) {
        if (!node[key]) continue;
        const types = new Set((node[key] as any[]).map(typeOf).filter((t) => t !== "null"));
        // Objects told apart by a property (a discriminated union) are one type each, not a mixed property.
        if (types.size > 1 && !(types.size === 1 && types.has("ref"))) mixed.push(`${at}: ${key} of ${[...types].join(" | ")}`);
      }
      for (const [key, value] of Object.entries(node)) walk(value, `${at}/${key}`);
    };
    walk(doc, "#");
    expect(mixed).toEqual([]);
    // The request parameters: a string one or an integer one, each with a default of its own type.
    const items = doc.components.schemas.TemplateList.properties.parameters.items;
    expect(items.anyOf.map((b: any) => b.$ref)).toEqual(["#/components/schemas/StringParameter", "#/components/schemas/IntegerParameter"]);
    expect(doc.components.schemas.StringParameter.properties.default.type).toBe("string");
    expect(doc.components.schemas.IntegerParameter.properties.default.type).toBe("integer");
  });

  test("every 429 of every route declares the headers it sends (rate limit and quota; API and public image URLs)", async () => {
    const { buildSignedUrl } = await import("../../src/signing/index.ts");
    const { apiKey } = await s.createAccount({ plan: "custom", quota: 1, requests_per_second: 1 });
    const created = await s.api("/api/signing-keys", { key: apiKey, method: "POST" });
    const signingKey = (await created.json()) as { id: string; secret: string };
    await s.advance(2);
    const image = (title: string, method = "GET") =>
      s.fetch(buildSignedUrl({ baseUrl: s.url, keyId: signingKey.id, secret: signingKey.secret, template: "event", ext: "png", params: { title } }), {
        method,
      });

    const answers: [string, string, Response][] = [];
    const first = await image("first");
    expect(first.status).toBe(200);
    await first.arrayBuffer();
    answers.push(["/i/{key_id}/{signature}/{file}", "get", await image("rate limited")]); // same second: RATE_LIMIT_EXCEEDED
    await s.advance(2);
    answers.push(["/i/{key_id}/{signature}/{file}", "get", await image("over the quota")]); // QUOTA_EXCEEDED
    answers.push(["/i/{key_id}/{signature}/{file}", "head", await image("rate limited, head", "HEAD")]);
    await s.advance(2);
    answers.push(["/i/{key_id}/{signature}/{file}", "head", await image("over the quota, head", "HEAD")]);
    await s.advance(2);
    answers.push(["/api/generate", "post", await s.api("/api/generate", { key: apiKey, json: { title: "over the quota" } })]);
    answers.push(["/api/generate", "post", await s.api("/api/generate", { key: apiKey, json: { title: "rate limited" } })]);
    answers.push(["/api/user/usage", "get", await s.api("/api/user/usage", { key: apiKey })]);
    expect(answers.map(([, , res]) => res.status)).toEqual(Array(answers.length).fill(429));

    const watched = [
      "ratelimit-limit",
      "ratelimit-remaining",
      "ratelimit-reset",
      "retry-after",
      "x-quota-limit",
      "x-quota-remaining",
      "cache-control",
      "x-request-id",
    ];
    const seen = new Map<string, Set<string>>();
    for (const [path, method, res] of answers) {
      await res.arrayBuffer();
      const declared = Object.keys(doc.paths[path][method].responses["429"].headers).map((name) => name.toLowerCase());
      const sent = watched.filter((name) => res.headers.has(name));
      // Everything it sends is declared…
      expect({ path, method, undeclared: sent.filter((name) => !declared.includes(name)) }).toEqual({ path, method, undeclared: [] });
      const key = `${method} ${path}`;
      seen.set(key, new Set([...(seen.get(key) ?? []), ...sent]));
    }
    // …and everything declared is sent by one of its 429s.
    for (const [key, sent] of seen) {
      const [method, path] = key.split(" ") as [string, string];
      const declared = Object.keys(doc.paths[path][method].responses["429"].headers).map((name) => name.toLowerCase());
      expect({ key, unsent: declared.filter((name) => !sent.has(name)) }).toEqual({ key, unsent: [] });
    }
  });
});

/**
 * Every JSON answer matches the schema /openapi.json publishes for its route and status. The
 * framework does not check responses at run time (see skipResponseChecks in src/app/app.ts),
 * so this is where a handler that answers another shape than documented fails: the real
 * service, real requests, each body validated by an independent JSON Schema validator (Ajv,
 * draft 2020-12 as OpenAPI 3.1 uses) against the published document, `$ref`s and all.
 */
describe("every answer matches its documented schema", () => {
  const fx = useAppWithReceiver();
  let doc: any;
  // `strict: false`: OpenAPI adds keywords (example, x-…) that are not JSON Schema vocabulary.
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);

  beforeAll(async () => {
    doc = await (await fx.s.fetch(fx.s.url + "/openapi.json")).json();
    ajv.addSchema({ $id: "ogsmith", components: doc.components });
  });

  /** The published schema of a route's answer; `#/components/…` refs point into the document. */
  function documentedSchema(method: string, path: string, status: number): object | undefined {
    const schema = doc.paths[path]?.[method.toLowerCase()]?.responses?.[String(status)]?.content?.["application/json"]?.schema;
    return schema && JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"ogsmith#/components/'));
  }

  /** Asserts the status is one the document lists for the route and the JSON body matches it; returns the body. */
  async function expectDocumented(method: string, path: string, res: Response, status: number): Promise<any> {
    expect(res.status).toBe(status);
    const schema = documentedSchema(method, path, status);
    expect({ method, path, status, documented: schema !== undefined }).toEqual({ method, path, status, documented: true });
    const body = await res.json();
    const valid = ajv.validate(schema!, body);
    const errors = valid ? [] : (ajv.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message}`);
    expect({ method, path, status, errors }).toEqual({ method, path, status, errors: [] });
    return body;
  }

  const admin = (path: string, method = "GET", json?: unknown) =>
    fx.s.fetch(fx.s.url + path, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(json === undefined ? {} : { "content-type": "application/json" }) },
      body: json === undefined ? undefined : JSON.stringify(json),
    });

  describe("JSON answers match their documented schemas", () => {
    test("operations, usage, templates, generate errors", async () => {
      const { apiKey } = await fx.s.createAccount({ plan: "pro" });
      await expectDocumented("GET", "/healthz", await fx.s.fetch(fx.s.url + "/healthz"), 200);
      await expectDocumented("GET", "/readyz", await fx.s.fetch(fx.s.url + "/readyz"), 200);
      const usage = await expectDocumented("GET", "/api/user/usage", await fx.s.api("/api/user/usage", { key: apiKey }), 200);
      expect(usage.plan).toBe("pro");
      await expectDocumented("GET", "/api/user/usage", await fx.s.api("/api/user/usage"), 401);
      await expectDocumented("GET", "/api/templates", await fx.s.api("/api/templates", { key: apiKey }), 200);
      await expectDocumented("POST", "/api/generate", await fx.s.api("/api/generate", { key: apiKey, json: { title: "" } }), 400);
    });

    test("admin API", async () => {
      const created = await expectDocumented(
        "POST",
        "/admin/accounts",
        await admin("/admin/accounts", "POST", { email: "schema@example.com", plan: "free" }),
        201,
      );
      const id = created.account_id as string;
      await expectDocumented("GET", "/admin/accounts/{id}", await admin(`/admin/accounts/${id}`), 200);
      await expectDocumented("PATCH", "/admin/accounts/{id}", await admin(`/admin/accounts/${id}`, "PATCH", { plan: "starter" }), 200);
      await expectDocumented("POST", "/admin/accounts/{id}/keys", await admin(`/admin/accounts/${id}/keys`, "POST"), 201);
      await expectDocumented("GET", "/admin/accounts/{id}", await admin("/admin/accounts/acc_doesnotexist0000000"), 404);
      await expectDocumented("GET", "/admin/clock", await admin("/admin/clock"), 200);
      await expectDocumented("POST", "/admin/clock/advance", await admin("/admin/clock/advance", "POST", { seconds: 1 }), 200);
    });

    test("webhooks", async () => {
      const { apiKey } = await fx.s.createAccount({ plan: "pro" });
      const call = (path: string, method = "GET", json?: unknown) => fx.s.api(path, { key: apiKey, method, json });
      const hook = await expectDocumented(
        "POST",
        "/api/webhooks",
        await call("/api/webhooks", "POST", { url: fx.r.url("/schemas"), events: ["image.generated"], secret: "whsec-schema-test-0123456789" }),
        201,
      );
      await expectDocumented("GET", "/api/webhooks", await call("/api/webhooks"), 200);
      await expectDocumented("GET", "/api/webhooks/{id}", await call(`/api/webhooks/${hook.id}`), 200);
      await expectDocumented(
        "PUT",
        "/api/webhooks/{id}",
        await call(`/api/webhooks/${hook.id}`, "PUT", { url: fx.r.url("/schemas2"), events: ["image.generated", "usage.warning"] }),
        200,
      );
      await expectDocumented("POST", "/api/webhooks/test", await call("/api/webhooks/test", "POST", {}), 200);
      await expectDocumented("GET", "/api/webhooks/{id}/deliveries", await call(`/api/webhooks/${hook.id}/deliveries`), 200);
      await expectDocumented("DELETE", "/api/webhooks/{id}", await call(`/api/webhooks/${hook.id}`, "DELETE"), 200);
      await expectDocumented("GET", "/api/webhooks/{id}", await call(`/api/webhooks/${hook.id}`), 404);
    });

    test("signing keys, image URLs and a refused signed URL", async () => {
      const { apiKey } = await fx.s.createAccount({ plan: "pro" });
      const call = (path: string, method = "GET", json?: unknown) => fx.s.api(path, { key: apiKey, method, json });
      const key = await expectDocumented("POST", "/api/signing-keys", await call("/api/signing-keys", "POST"), 201);
      await expectDocumented("GET", "/api/signing-keys", await call("/api/signing-keys"), 200);
      await expectDocumented("POST", "/api/image-urls", await call("/api/image-urls", "POST", { signing_key_id: key.id, title: "Schemas" }), 200);
      const forged = buildSignedUrl({
        baseUrl: fx.s.url,
        keyId: key.id,
        secret: `ogsk_${"x".repeat(40)}`,
        template: "event",
        ext: "png",
        params: { title: "Forged" },
      });
      const refused = await fx.s.fetch(forged);
      // Whatever refusal the route chose, its error body must be the documented one for that status.
      expect(refused.status).toBeGreaterThanOrEqual(400);
      await expectDocumented("GET", "/i/{key_id}/{signature}/{file}", refused, refused.status);
      await expectDocumented("DELETE", "/api/signing-keys/{id}", await call(`/api/signing-keys/${key.id}`, "DELETE"), 200);
    });
  });
});

/**
 * What a security review asked of the service: /metrics behind a token unless made
 * public, /readyz answered from a check run at most once a second, only OG_BASE_URL's Host
 * answered when it is set (421 otherwise), no cache keeping an answer that carries a secret,
 * /docs never framed nor leaking its address, and sign-in attempts limited over HTTP.
 */
describe("security headers and operations endpoints", () => {
  async function expectError(res: Response, status: number, code: string): Promise<{ message: string }> {
    expect(res.status).toBe(status);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const body = (await res.json()) as { error: boolean; code: string; message: string };
    expect(body).toMatchObject({ error: true, code });
    return body;
  }

  const METRICS_TOKEN = "metrics-token-0123456789";

  describe("one service with an admin token and a metrics token", () => {
    let s: InProcessApp;
    beforeAll(async () => {
      s = await startInProcessApp({ OG_METRICS_TOKEN: METRICS_TOKEN });
    });
    afterAll(() => s.stop());

    test("/metrics needs the metrics token or the admin token", async () => {
      const refused = await expectError(await s.api("/metrics"), 401, "UNAUTHORIZED");
      expect(refused.message).toContain("OG_METRICS_TOKEN");
      await expectError(await s.api("/metrics", { headers: { authorization: "Bearer not-the-token-at-all" } }), 401, "UNAUTHORIZED");
      for (const token of [METRICS_TOKEN, ADMIN_TOKEN]) {
        const res = await s.api("/metrics", { headers: { authorization: `Bearer ${token}` } });
        expect(res.status).toBe(200);
        expect(await res.text()).toContain("ogsmith_http_requests_total");
      }
    });

    test("/readyz answers every caller from a check started at most once a second", async () => {
      const store = s.service.services.store;
      const probe = store.probe.bind(store);
      let probes = 0;
      store.probe = () => {
        probes++;
        return probe();
      };
      try {
        const started = performance.now();
        const answers = await Promise.all(Array.from({ length: 50 }, () => s.api("/readyz")));
        for (let i = 0; i < 50; i++) answers.push(await s.api("/readyz"));
        const seconds = (performance.now() - started) / 1000;
        for (const res of answers) {
          expect(res.status).toBe(200);
          expect(await res.json()).toEqual({ status: "ready" });
        }
        // One store write per second begun at most, however many anonymous callers ask.
        expect(probes).toBeGreaterThanOrEqual(1);
        expect(probes).toBeLessThanOrEqual(1 + Math.ceil(seconds));
      } finally {
        store.probe = probe;
      }
    });

    test("answers that carry a secret (and every other API answer) are no-store", async () => {
      const created = await s.admin("/admin/accounts", { json: { email: "secrets@example.com", plan: "pro" } });
      expect(created.status).toBe(201);
      expect(created.headers.get("cache-control")).toBe("no-store");
      const { account_id: accountId, api_key: apiKey } = (await created.json()) as { account_id: string; api_key: string };

      const replaced = await s.admin(`/admin/accounts/${accountId}/keys`, { method: "POST" });
      expect(replaced.status).toBe(201);
      expect(replaced.headers.get("cache-control")).toBe("no-store");
      const { api_key: key } = (await replaced.json()) as { api_key: string };
      expect(key).not.toBe(apiKey);

      const signingKey = await s.api("/api/signing-keys", { key, method: "POST" });
      expect(signingKey.status).toBe(201);
      expect(signingKey.headers.get("cache-control")).toBe("no-store");
      expect(((await signingKey.json()) as { secret: string }).secret).toStartWith("ogsk_");

      for (const path of ["/api/signing-keys", "/api/user/usage", "/api/webhooks"]) {
        const res = await s.api(path, { key });
        expect(res.status).toBe(200);
        expect(res.headers.get("cache-control")).toBe("no-store");
        await res.arrayBuffer();
      }
    });

    test("/docs is never framed and sends no referrer", async () => {
      const docs = await s.api("/docs");
      expect(docs.status).toBe(200);
      expect(docs.headers.get("x-frame-options")).toBe("DENY");
      expect(docs.headers.get("referrer-policy")).toBe("no-referrer");
      expect(docs.headers.get("content-security-policy")).toContain("default-src");
    });

    test("sign-in: 10 failed attempts from one client, then 429 with Retry-After, even with the right key", async () => {
      const { apiKey } = await s.createAccount();
      const origin = new URL(s.url).origin;
      const signIn = (key: string) => s.api("/dashboard/api/session", { json: { api_key: key }, headers: { origin } });
      for (let i = 0; i < 10; i++) await expectError(await signIn(`og_${"z".repeat(30)}${String(i).padStart(2, "0")}`), 401, "INVALID_API_KEY");
      const limited = await signIn(apiKey);
      await expectError(limited, 429, "RATE_LIMIT_EXCEEDED");
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
      await s.advance(60);
      const ok = await signIn(apiKey);
      expect(ok.status).toBe(200);
      expect(ok.headers.get("cache-control")).toBe("no-store");
    });
  });

  describe("OG_BASE_URL set", () => {
    let s: InProcessApp;
    beforeAll(async () => {
      s = await startInProcessApp({ OG_BASE_URL: "https://og.example.com" });
    });
    afterAll(() => s.stop());

    test("any other Host is refused with 421; health checks and a scrape with its token answer on any Host", async () => {
      const { apiKey } = await s.createAccount({ plan: "custom", quota: 100, requests_per_second: 100 });
      expect((await s.api("/api/user/usage", { key: apiKey })).status).toBe(200); // the harness sends og.example.com
      for (const host of ["rebind.attacker.example", "127.0.0.1", "og.example.com.attacker.example", "og.example.com:8443"]) {
        const refused = await expectError(await s.api("/api/user/usage", { key: apiKey, headers: { host } }), 421, "MISDIRECTED_REQUEST");
        expect(refused.message).toContain("og.example.com");
        await expectError(await s.api("/openapi.json", { headers: { host } }), 421, "MISDIRECTED_REQUEST");
        await expectError(await s.api("/metrics", { headers: { host } }), 401, "UNAUTHORIZED");
        expect((await s.api("/healthz", { headers: { host } })).status).toBe(200);
        expect((await s.api("/readyz", { headers: { host } })).status).toBe(200);
        expect((await s.api("/metrics", { headers: { host, authorization: `Bearer ${ADMIN_TOKEN}` } })).status).toBe(200);
      }
      // The default port of the scheme may be spelled out.
      expect((await s.api("/api/user/usage", { key: apiKey, headers: { host: "OG.example.com:443" } })).status).toBe(200);
    });
  });

  test("OG_METRICS_PUBLIC=true: /metrics answers anyone; with OG_BASE_URL only on its Host", async () => {
    const s = await startInProcessApp({ OG_METRICS_PUBLIC: "true", OG_BASE_URL: "https://og.example.com" });
    try {
      expect((await s.api("/metrics")).status).toBe(200);
      await expectError(await s.api("/metrics", { headers: { host: "rebind.attacker.example" } }), 421, "MISDIRECTED_REQUEST");
    } finally {
      await s.stop();
    }
  });

  test("logs name a webhook by its id, never by its URL (a Slack-style path is a credential): deliveries that give up, the disabled email's line", async () => {
    const { createLogger } = await import("../../src/logger.ts");
    const { startReceiver } = await import("../support/receiver.ts");
    const lines: string[] = [];
    const receiver = await startReceiver();
    // No SMTP_URL: the webhook-disabled email is logged as not sent, with its subject.
    const s = await startInProcessApp({ OG_ALLOW_PRIVATE_NETWORKS: "1" }, { logger: createLogger("info", (line) => lines.push(line)) });
    try {
      const { apiKey } = await s.createAccount({ plan: "custom", quota: 100, requests_per_second: 100, email: "owner@example.com" });
      const path = "/services/T0001/B0001/SecretPathToken123";
      receiver.respond({ status: 500 }, path);
      const created = await s.api("/api/webhooks", { key: apiKey, json: { url: receiver.url(path), events: ["image.generated"], secret: "s".repeat(20) } });
      const webhook = (await created.json()) as { id: string };
      await (await s.api("/api/generate", { key: apiKey, json: { title: "A delivery that fails" } })).arrayBuffer();
      await receiver.waitForCount(1, path);
      for (const [i, delay] of [60, 300, 1800, 7200, 86400].entries()) {
        await s.advance(delay * 1.2);
        await receiver.waitForCount(i + 2, path);
      }
      await waitFor(() => lines.some((line) => line.includes("email alert not sent")), "the disabled email's log line");
      const gaveUp = lines.find((line) => line.includes('"job gave up"'));
      expect(gaveUp).toContain(`"webhook_id":"${webhook.id}"`);
      expect(lines.find((line) => line.includes("email alert not sent"))).toContain(webhook.id);
      for (const line of lines) expect(line).not.toContain("SecretPathToken123");
    } finally {
      await s.stop();
      await receiver.stop();
    }
  }, 60_000);
});
