/**
 * Assembles the HTTP face: hooks first (request id, auth, body parsing, the error mapper), then
 * the feature modules. Every error leaves through `onError` as the one JSON envelope.
 */
import { Elysia, type ValidationError } from "elysia";
// The package does not export its browser bundle, so it is imported by path (and embedded by `bun build --compile`).
import scalarBundle from "../../node_modules/@scalar/api-reference/dist/browser/standalone.js" with { type: "file" };
import { ApiError } from "../errors.ts";
import type { TemplateLookup } from "../render/request.ts";
import type { Renderer } from "../render/types.ts";
import type { Services } from "../services.ts";
import { adminModule } from "../modules/admin/index.ts";
import { batchesModule } from "../modules/batches/index.ts";
import type { BatchRenderer } from "../batches/drawer.ts";
import { dashboardModule } from "../modules/dashboard/index.ts";
import { fontsModule } from "../modules/fonts/index.ts";
import { generateModule } from "../modules/generate/index.ts";
import { imagesModule, MAX_URL_BYTES } from "../modules/images/index.ts";
import { signingKeysModule } from "../modules/signing-keys/index.ts";
import { opsModule } from "../modules/ops/index.ts";
import { templatesModule } from "../modules/templates/index.ts";
import { templatePreviewModule } from "../modules/templates/preview.ts";
import { usageModule } from "../modules/usage/index.ts";
import { webhooksModule } from "../modules/webhooks/index.ts";
import { metricsGate, requestGates } from "./gates/index.ts";
import { parseRequestBody } from "../http/body.ts";
import { isStoreUnavailable } from "../store/errors.ts";
import { jsonError, unavailableError, unexpectedError, validationProblems, type HeaderBag } from "../http/error-mapper.ts";
import { Metrics } from "../http/metrics.ts";
import { pathnameOf, peekRequestState, requestState } from "../http/request-context.ts";
import { hostCheck, isPrivatePath } from "./answer-scope.ts";
import { buildRouteTable, type RouteTable } from "./routes.ts";
import { validationError } from "../errors.ts";
import { VERSION } from "../version.ts";
import { buildOpenApiDocument, type RouteInfo } from "../http/openapi.ts";
import { DOCS_CSP, DOCS_HEADERS, docsPage } from "./docs-page.ts";

export { VERSION };

const API_INFO = {
  title: "ogsmith API",
  version: VERSION,
  description: "Open Graph image generation with metered API keys, usage webhooks and email alerts.",
};

export interface AppDeps {
  services: Services;
  renderer: Renderer;
  templates: TemplateLookup;
  metrics?: Metrics;
}

export function createApp(deps: AppDeps) {
  const { services } = deps;
  const metrics = deps.metrics ?? new Metrics();
  let routeTable: RouteTable | undefined;
  let document: Record<string, unknown> | undefined;
  // The document describes the assembled app, so it is built on first request from its routes.
  let routes = (): RouteInfo[] => [];

  const checkHost = hostCheck(services.config);
  const app = new Elysia({
    name: "ogsmith",
    normalize: false,
    // The router otherwise assumes a host of at least four characters and looks for the path
    // after `http://` + 4: `Host: web` (a container name) would route `/healthz` as no path.
    handler: { standardHostname: false },
  })
    .onRequest(({ request, set }) => {
      set.headers["x-request-id"] = requestState(request).id;
      // Responses are JSON, PNG or our own pages: never let a browser guess another type.
      set.headers["x-content-type-options"] = "nosniff";
      const pathname = pathnameOf(request);
      checkHost?.(request, pathname);
      // Answers of the API, the admin API and the dashboard's API are one account's (keys,
      // secrets, usage): no cache on the way keeps them. (Images set their own.)
      if (isPrivatePath(pathname)) set.headers["cache-control"] = "no-store";
      // The request target (path and query) after the origin; signed image URLs carry their fields in it.
      const url = request.url;
      if (url.length - url.indexOf("/", url.indexOf("//") + 2) > MAX_URL_BYTES) {
        throw new ApiError("URI_TOO_LONG", `The URL is longer than ${MAX_URL_BYTES} bytes.`);
      }
    })
    .use(requestGates(services))
    .onParse(async ({ request }) => (await parseRequestBody(request)) ?? {})
    .onError(({ code, error, set, request }) => {
      const headers = set.headers as HeaderBag;
      if (error instanceof ApiError) return jsonError(error, headers);
      if (isStoreUnavailable(error)) {
        metrics.countStoreUnavailable(error.reason);
        return jsonError(unavailableError(error, services.logger, peekRequestState(request)?.id), headers);
      }
      // Elysia wraps errors thrown while parsing (ours: 413, 415, INVALID_JSON) in a ParseError.
      if (code === "PARSE" && (error as Error).cause instanceof ApiError) return jsonError((error as Error).cause as ApiError, headers);
      switch (code) {
        case "VALIDATION": {
          const invalid = error as ValidationError;
          return jsonError(validationError(validationProblems(invalid.all ?? [], invalid.value)), headers);
        }
        case "PARSE":
          return jsonError(new ApiError("INVALID_JSON", "Request body is not valid JSON."), headers);
        case "NOT_FOUND": {
          const pathname = new URL(request.url).pathname;
          routeTable ??= buildRouteTable(app.routes);
          const allowed = routeTable.methodsAt(pathname);
          if (allowed.length > 0 && !allowed.includes(request.method)) {
            return jsonError(new ApiError("METHOD_NOT_ALLOWED", `${request.method} is not allowed here. Allowed: ${allowed.join(", ")}.`), {
              ...headers,
              Allow: allowed.join(", "),
            });
          }
          return jsonError(new ApiError("NOT_FOUND", `No route for ${request.method} ${pathname}.`), headers);
        }
        default:
          return jsonError(unexpectedError(error, services.logger, peekRequestState(request)?.id), headers);
      }
    })
    .get("/openapi.json", () => (document ??= buildOpenApiDocument(routes(), API_INFO)), { detail: { hide: true } })
    .get(
      "/docs",
      () => new Response(docsPage(), { headers: { "content-type": "text/html; charset=utf-8", "content-security-policy": DOCS_CSP, ...DOCS_HEADERS } }),
      {
        detail: { hide: true },
      },
    )
    .get(
      "/docs/scalar.js",
      () => new Response(Bun.file(scalarBundle), { headers: { "content-type": "text/javascript; charset=utf-8", "cache-control": "public, max-age=86400" } }),
      {
        detail: { hide: true },
      },
    )
    .use(opsModule(services, metrics, metricsGate(services.config)))
    .use(generateModule({ services, renderer: deps.renderer, templates: deps.templates }))
    .use(usageModule(services))
    .use(templatesModule({ services, templates: deps.templates }))
    .use(templatePreviewModule({ renderer: deps.renderer, services }))
    .use(fontsModule(services))
    .use(adminModule(services))
    .use(webhooksModule(services))
    .use(signingKeysModule(services))
    .use(imagesModule({ services, renderer: deps.renderer, templates: deps.templates }))
    .use(batchesModule({ services, renderer: batchRendererOf(deps.renderer), templates: deps.templates }))
    .use(dashboardModule({ services, renderer: deps.renderer, templates: deps.templates }));
  routes = () => app.routes as unknown as RouteInfo[];
  skipResponseChecks(app.routes as unknown as RouteInfo[]);

  return Object.assign(app, {
    metrics,
    routeOf(pathname: string) {
      routeTable ??= buildRouteTable(app.routes);
      return routeTable.patternOf(pathname);
    },
  });
}

export type App = ReturnType<typeof createApp>;

/** The service renderer prepares renders in the background lane; a renderer without `prepare` (tests' fakes) renders at once. */
function batchRendererOf(renderer: Renderer & Partial<BatchRenderer>): BatchRenderer {
  if (renderer.prepare) return renderer as BatchRenderer;
  return {
    prepare: async (request) => {
      const result = await renderer.render(request);
      return { contentAddress: result.contentAddress ?? Bun.hash(result.bytes).toString(16), render: async () => result };
    },
  };
}

/**
 * The response schemas describe the API (/openapi.json) and are what the test suite checks every
 * answer's body against (test/http/ops.test.ts); the framework does not check them
 * again on every request. That check (TypeBox's compiled Check, a date-time regex) was ≈ 11 µs
 * of a 75 µs authenticated request over HTTP, for answers built by code the tests cover.
 * Set before the first request: the framework compiles each route's handler on first use.
 */
function skipResponseChecks(routes: RouteInfo[]): void {
  for (const route of routes) {
    for (const schema of Object.values((route.hooks.response ?? {}) as Record<string, { noValidate?: boolean }>)) schema.noValidate = true;
  }
}
