/**
 * The OpenAPI 3.1 document, built from the routes' own schemas (`body`, `response`, `detail`) so
 * it cannot drift from what the server validates. Built here rather than by the framework's
 * plugin because a generated client needs what the plugin gets wrong: binary responses with their
 * media types, integers as integers (the framework's numeric coercion shows up as
 * `string | number`), named component schemas, one security scheme per route family, response
 * headers, and no framework-only keywords such as `error` in the schemas.
 */

/** Schema option naming the media types of a binary (or text) response; read here, never emitted. */
export const MEDIA_TYPES = "x-media-types";

type Json = Record<string, any>;

export interface RouteInfo {
  method: string;
  path: string;
  hooks: { body?: unknown; response?: unknown; detail?: Json };
}

export interface OpenApiInfo {
  title: string;
  version: string;
  description: string;
}

const SECURITY_SCHEMES = {
  apiKey: { type: "apiKey", in: "header", name: "X-API-Key", description: "The account's API key, `og_` followed by 32 letters and digits." },
  adminToken: { type: "http", scheme: "bearer", description: "The operator token set in `OG_ADMIN_TOKEN` (the admin API answers 404 when it is unset)." },
} as const;

const integer = (description: string) => ({ description, schema: { type: "integer", format: "int32", minimum: 0, maximum: 2_147_483_647 } });
const HEADERS: Record<string, Json> = {
  "X-Request-Id": { description: "Identifies the request in the server log.", schema: { type: "string", maxLength: 64, pattern: "^[A-Za-z0-9_-]+$" } },
  "RateLimit-Limit": integer("Requests per second the key's plan allows."),
  "RateLimit-Remaining": integer("Requests left in the current one-second window."),
  "RateLimit-Reset": integer("Seconds until a slot in the window frees."),
  "Retry-After": integer(
    "Whole seconds to wait before retrying (RATE_LIMIT_EXCEEDED, SERVER_BUSY, SERVICE_UNAVAILABLE; not QUOTA_EXCEEDED, which lasts until the month's reset).",
  ),
  "X-Quota-Limit": integer("Images the account may generate this month."),
  "X-Quota-Remaining": integer("Images left this month after this one (0 on QUOTA_EXCEEDED)."),
  "X-Generation-Time-Ms": integer("Time this request spent, in milliseconds (about 0 for a cache hit)."),
  ETag: { description: "The image's content address (strong).", schema: { type: "string", maxLength: 80, pattern: '^"[0-9a-f]+"$' } },
  "X-Missing-Glyphs": integer("Characters no font has, drawn as boxes (0 normally); the log names them."),
  "Cache-Control": {
    description:
      "`no-store` on every answer of the API and the admin API and on every error; `public, max-age=31536000, immutable` on a public image (max-age = seconds left with `exp`), `public, max-age=3600` when its URL names an account template without `v`.",
    schema: { type: "string", maxLength: 64 },
  },
  "Content-Length": integer("Bytes of the image."),
  "X-Content-Type-Options": { description: "Always `nosniff`.", schema: { type: "string", enum: ["nosniff"] } },
};
const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });

const RATE_LIMIT_HEADERS = ["RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"];

/** Routes whose 429 can be QUOTA_EXCEEDED, which carries the quota headers. */
const COUNTED_ROUTES = new Set(["post /api/generate", "get /i/:key_id/:signature/:file", "head /i/:key_id/:signature/:file"]);

/** Headers each response of a route family carries: every one the server sends, so a client can read them typed. */
function responseHeaders(path: string, method: string, status: string): string[] {
  const names = ["X-Request-Id"];
  const error = Number(status) >= 400;
  const authenticatedApi = path.startsWith("/api/") && status !== "401" && status !== "403";
  // A public image's 429 is refused by the signing key's account window, with the same headers.
  if (authenticatedApi || (path.startsWith("/i/") && status === "429")) names.push(...RATE_LIMIT_HEADERS);
  // SERVER_BUSY and the rate limit say when to retry; a failed readiness check does not.
  if (status === "429" || (status === "503" && path.startsWith("/api/"))) names.push("Retry-After");
  if (status === "429" && COUNTED_ROUTES.has(`${method} ${path}`)) names.push("X-Quota-Limit", "X-Quota-Remaining");
  if (path === "/api/generate" && method === "post" && status === "200")
    names.push("X-Quota-Limit", "X-Quota-Remaining", "X-Generation-Time-Ms", "X-Missing-Glyphs", "ETag", "Cache-Control");
  else if (path.startsWith("/i/")) {
    if (status === "200") names.push("ETag", "Cache-Control", "Content-Length", "X-Content-Type-Options");
    else if (status === "304") names.push("ETag", "Cache-Control");
    else names.push("Cache-Control");
  } else if (error || path.startsWith("/api/") || path.startsWith("/admin/")) names.push("Cache-Control");
  return names;
}

function securityOf(path: string): Json[] {
  if (path.startsWith("/admin")) return [{ adminToken: [] }];
  if (path.startsWith("/api")) return [{ apiKey: [] }];
  return [];
}

const operationId = (method: string, path: string) =>
  method.toLowerCase() +
  path
    .split("/")
    .filter(Boolean)
    .map((part) => (part.startsWith(":") ? "By" + cap(part.slice(1)) : part.split(/[-_]/).map(cap).join("")))
    .join("");
const cap = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

/** The framework's coercing types (string → integer/number/boolean) as the plain JSON type. */
function collapseCoercion(schema: Json): Json {
  const branches = schema.anyOf;
  if (!Array.isArray(branches) || branches.length !== 2) return schema;
  const stringBranch = branches.find((b: Json) => b.type === "string" && ["integer", "numeric", "boolean"].includes(b.format));
  const real = branches.find((b: Json) => b !== stringBranch);
  if (!stringBranch || !real) return schema;
  const { anyOf: _drop, ...rest } = schema;
  return { ...rest, ...real };
}

/** A union of literals of one type as an `enum`, the form every client generator reads well. */
function literalsToEnum(schema: Json): Json {
  const branches = schema.anyOf;
  if (!Array.isArray(branches) || branches.length === 0 || !branches.every((b: Json) => "const" in b && b.type === branches[0].type)) return schema;
  const { anyOf: _drop, ...rest } = schema;
  return { ...rest, type: branches[0].type, enum: branches.map((b: Json) => b.const) };
}

// `noValidate` is a runtime flag of the framework (see skipResponseChecks in app.ts), not JSON Schema.
const DROPPED_KEYS = new Set(["error", MEDIA_TYPES, "$id", "noValidate"]);

class SchemaRegistry {
  readonly components: Record<string, Json> = {};

  /** A clean JSON Schema for OpenAPI; objects with a `title` become components referenced by `$ref`. */
  convert(input: unknown, inlineTop = false): Json {
    // JSON round trip: drops TypeBox's symbol keys and functions.
    return this.clean(JSON.parse(JSON.stringify(input ?? {})), inlineTop);
  }

  private clean(node: any, inline = false): any {
    if (Array.isArray(node)) return node.map((item) => this.clean(item));
    if (node === null || typeof node !== "object") return node;
    let out: Json = {};
    for (const [key, value] of Object.entries(node)) {
      if (DROPPED_KEYS.has(key)) continue;
      if (key === "properties") out[key] = Object.fromEntries(Object.entries(value as Json).map(([k, v]) => [k, this.clean(v)]));
      else out[key] = this.clean(value);
    }
    out = literalsToEnum(collapseCoercion(out));
    // The framework's File type carries `default: "File"`, which is not a valid binary default.
    if (out.format === "binary" && out.default === "File") delete out.default;
    if (out.type === "integer" && out.format === undefined) out.format = out.maximum !== undefined && out.maximum > 2_147_483_647 ? "int64" : "int32";
    if (!inline && typeof out.title === "string" && (out.type === "object" || out.properties)) {
      const name = out.title.replace(/[^A-Za-z0-9_.-]/g, "");
      const { description, ...component } = out;
      this.components[name] ??= component;
      return description ? { $ref: `#/components/schemas/${name}`, description } : { $ref: `#/components/schemas/${name}` };
    }
    return out;
  }
}

function bodyContent(registry: SchemaRegistry, raw: any, options: { inlineTop?: boolean } = {}): Json {
  const media: string[] = raw?.[MEDIA_TYPES] ?? ["application/json"];
  const example = raw?.examples?.[0];
  const schema = registry.convert(raw, options.inlineTop);
  return Object.fromEntries(media.map((type) => [type, example === undefined ? { schema } : { schema, example }]));
}

export function buildOpenApiDocument(routes: RouteInfo[], info: OpenApiInfo): Json {
  const registry = new SchemaRegistry();
  const paths: Record<string, Json> = {};
  const tags = new Set<string>();

  for (const route of routes) {
    const detail = route.hooks.detail ?? {};
    if (detail.hide) continue;
    const method = route.method.toLowerCase();
    if (!["get", "head", "post", "put", "patch", "delete"].includes(method)) continue;
    const { requestBody: rawBody, hide: _hide, ...operationDetail } = detail;
    const openPath = route.path.replace(/:(\w+)/g, "{$1}");
    const params = [...route.path.matchAll(/:(\w+)/g)].map((m) => ({
      name: m[1],
      in: "path",
      required: true,
      schema: PATH_PARAMETERS[m[1]!]?.schema ?? { type: "string", minLength: 1, maxLength: 64, pattern: "^[A-Za-z0-9_]+$" },
      description: PATH_PARAMETERS[m[1]!]?.description ?? (m[1] === "id" ? idDescription(route.path) : undefined),
    }));

    const responses: Json = {};
    const responseSchemas = (route.hooks.response ?? {}) as Record<string, any>;
    for (const [status, raw] of Object.entries(responseSchemas)) {
      const description: string = raw?.description ?? (status.startsWith("2") ? "Success." : "Error.");
      const content = bodyContent(registry, raw);
      for (const entry of Object.values(content) as Json[]) if (entry.schema.description === description) delete entry.schema.description;
      const headers = Object.fromEntries(responseHeaders(route.path, method, status).map((name) => [name, headerRef(name)]));
      responses[status] = { description, headers, content };
    }
    if (Object.keys(responses).length === 0) responses["200"] = { description: "Success." };

    const operation: Json = {
      operationId: detail.operationId ?? operationId(method, route.path),
      ...operationDetail,
      security: securityOf(route.path),
      ...(params.length ? { parameters: params.map(stripUndefined) } : {}),
      responses,
    };
    // A route validates its body (`body` hook) or documents one it validates itself (`detail.requestBody`).
    const bodySchema: any = route.hooks.body ?? rawBody?.content?.["application/json"]?.schema;
    // Inline (not a component): generators then read a field with a `default` as optional to
    // send, as it is, rather than as always present (which they assume for component schemas).
    if (bodySchema) operation.requestBody = { required: rawBody?.required ?? true, content: bodyContent(registry, bodySchema, { inlineTop: true }) };
    for (const tag of operation.tags ?? []) tags.add(tag);
    (paths[openPath] ??= {})[method] = operation;
  }

  return {
    openapi: "3.1.0",
    info: { ...info, license: { name: "MIT", identifier: "MIT" } },
    servers: [{ url: "/", description: "This server", "x-internal": false }],
    tags: [...tags].map((name) => ({ name, description: TAG_DESCRIPTIONS[name] ?? name })),
    paths,
    components: { schemas: registry.components, securitySchemes: SECURITY_SCHEMES, headers: HEADERS },
  };
}

const idDescription = (path: string) =>
  path.startsWith("/admin")
    ? "Account id (`acct_…`)."
    : path.includes("signing-keys")
      ? "Signing key id (`sk_…`)."
      : path.includes("/fonts")
        ? "Font id (`font_…`)."
        : "Webhook id (`wh_…`).";

/** Path parameters of the public image URL, which are not plain ids. */
const PATH_PARAMETERS: Record<string, { description: string; schema: Json }> = {
  key_id: { description: "Signing key id (`sk_…`).", schema: { type: "string", minLength: 1, maxLength: 64, pattern: "^[A-Za-z0-9_]+$" } },
  signature: {
    description: "base64url HMAC-SHA256 of the canonical string, no padding.",
    schema: { type: "string", minLength: 1, maxLength: 128, pattern: "^[A-Za-z0-9_-]+$" },
  },
  file: {
    description: "`{template}.{ext}`, ext one of png, jpg, webp.",
    schema: { type: "string", minLength: 5, maxLength: 80, pattern: "^[A-Za-z0-9_-]+\\.(png|jpg|webp)$" },
  },
};

const stripUndefined = (value: Json) => Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined));

const TAG_DESCRIPTIONS: Record<string, string> = {
  Images: "Generate images and list the templates.",
  Usage: "The account's usage this month.",
  Fonts: "Font files an account uploads for its templates, and the bundled families.",
  Webhooks: "Endpoints that receive usage and generation events.",
  Admin: "Operator API (bearer token from OG_ADMIN_TOKEN).",
  "Test clock": "The service clock in test mode (OG_TEST_CLOCK).",
  Operations: "Health, readiness and metrics.",
  "Public image URLs": 'Signed GET URLs for <meta property="og:image">, the signing keys that sign them, and server-side signing.',
};
