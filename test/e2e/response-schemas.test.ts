/**
 * Every JSON answer matches the schema /openapi.json publishes for its route and status. The
 * framework does not check responses at run time (see skipResponseChecks in src/app/app.ts),
 * so this is where a handler that answers another shape than documented fails: the real
 * service, real requests, each body validated by an independent JSON Schema validator (Ajv,
 * draft 2020-12 as OpenAPI 3.1 uses) against the published document, `$ref`s and all.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { buildSignedUrl } from "../../src/signing/index.ts";
import { ADMIN_TOKEN, useServiceWithReceiver } from "../support/harness.ts";

const fx = useServiceWithReceiver();
let doc: any;
// `strict: false`: OpenAPI adds keywords (example, x-…) that are not JSON Schema vocabulary.
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);

beforeAll(async () => {
  doc = await (await fetch(fx.s.url + "/openapi.json")).json();
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
  fetch(fx.s.url + path, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(json === undefined ? {} : { "content-type": "application/json" }) },
    body: json === undefined ? undefined : JSON.stringify(json),
  });

describe("JSON answers match their documented schemas", () => {
  test("operations, usage, templates, generate errors", async () => {
    const { apiKey } = await fx.s.createAccount({ plan: "pro" });
    await expectDocumented("GET", "/healthz", await fetch(fx.s.url + "/healthz"), 200);
    await expectDocumented("GET", "/readyz", await fetch(fx.s.url + "/readyz"), 200);
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
    const refused = await fetch(forged);
    // Whatever refusal the route chose, its error body must be the documented one for that status.
    expect(refused.status).toBeGreaterThanOrEqual(400);
    await expectDocumented("GET", "/i/{key_id}/{signature}/{file}", refused, refused.status);
    await expectDocumented("DELETE", "/api/signing-keys/{id}", await call(`/api/signing-keys/${key.id}`, "DELETE"), 200);
  });
});
