/**
 * The dashboard: one HTML page and its scripts and styles, embedded in
 * the binary, plus the session-authenticated JSON endpoints it calls under /dashboard/api/*.
 * Every endpoint is a thin shell over the same core the /api routes use (accounts, metering,
 * webhooks, the renderer), and every error leaves through the one envelope.
 */
import { Elysia } from "elysia";
import { ApiError } from "../../errors.ts";
import { toAccountView } from "../../accounts/accounts.ts";
import { subscriptionBlock } from "../../accounts/access.ts";
import { usageOverview } from "../../metering/overview.ts";
import { SESSION_TTL_MS, type DashboardSession } from "../../sessions/sessions.ts";
import { parseRenderRequest, type TemplateLookup } from "../../render/request.ts";
import { asPreview } from "../../render/preview.ts";
import type { Renderer } from "../../render/types.ts";
import type { Services } from "../../services.ts";
import { templateCatalog } from "../templates/index.ts";
import { signImageUrl } from "../../signing/image-urls.ts";
import { sessionOf } from "../../http/request-context.ts";
import { readCookie, SESSION_COOKIE } from "../../http/session-cookie.ts";
import { dashboardAssets } from "./assets.ts";
import { dashboardRules } from "./rules.ts";
import { dashboardFontRoutes } from "./fonts.ts";
import { dashboardTemplateRoutes } from "./templates.ts";
import { BatchService } from "../../batches/batches.ts";

export interface DashboardDeps {
  services: Pick<
    Services,
    "config" | "clock" | "sessions" | "metering" | "limiter" | "webhooks" | "signingKeys" | "accountTemplates" | "store" | "accountFonts"
  >;
  renderer: Renderer;
  templates: TemplateLookup;
}

/**
 * Only this origin's own files: no CDN, no inline script, no framing. The one exception is for
 * style elements carrying this response's nonce: the template editor's code pane (CodeMirror)
 * writes its generated styles into a <style> element, which it stamps with the nonce the page
 * hands it. Scripts get no nonce, so nothing inline ever runs.
 */
function contentSecurityPolicy(styleNonce: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    `style-src 'self' 'nonce-${styleNonce}'`,
    "img-src 'self' blob: data:",
    "connect-src 'self'",
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
}

const PAGE_HEADERS = {
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
};

/** 128 random bits, base64: a fresh style nonce for every page load (the page is never cached). */
const newNonce = () => Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64");

const hide = { detail: { hide: true } } as const;

function meView(session: DashboardSession) {
  const blocked = subscriptionBlock(session.account);
  const account = toAccountView(session.account, session.keyPrefix);
  return {
    account: { id: account.id, email: account.email, plan: account.plan, status: account.status, key_prefix: account.key_prefix },
    limits: { quota: account.quota, requests_per_second: account.requests_per_second },
    blocked: blocked ? { code: blocked.code, message: blocked.message } : null,
    session: { id: session.id, expires_at: new Date(session.expiresAt).toISOString() },
  };
}

export function dashboardModule({ services, renderer, templates }: DashboardDeps) {
  const { sessions } = services;
  const secure = new URL(services.config.baseUrl).protocol === "https:";
  const cookie = (value: string, maxAgeSeconds: number) =>
    `${SESSION_COOKIE}=${value}; Path=/dashboard; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${secure ? "; Secure" : ""}`;

  const { page, files } = dashboardAssets();
  const asset = (name: string, request: Request) => {
    const file = files.get(name);
    if (!file) throw new ApiError("NOT_FOUND", `No dashboard asset ${name}.`);
    const headers: Record<string, string> = {
      "content-type": file.type,
      "cache-control": "public, max-age=31536000, immutable",
      "x-content-type-options": "nosniff",
      vary: "accept-encoding",
    };
    const gzipped = /\bgzip\b/.test(request.headers.get("accept-encoding") ?? "") ? file.gzipped() : undefined;
    if (gzipped) {
      return new Response(gzipped as Uint8Array<ArrayBuffer>, { headers: { ...headers, "content-encoding": "gzip" } });
    }
    return new Response(file.body, { headers });
  };
  const html = () => {
    const nonce = newNonce();
    return new Response(page.replace("{{style_nonce}}", nonce), {
      headers: {
        "content-type": "text/html; charset=utf-8",
        "cache-control": "no-store",
        "content-security-policy": contentSecurityPolicy(nonce),
        ...PAGE_HEADERS,
      },
    });
  };

  const { webhooks, metering, clock } = services;
  const batches = new BatchService({ store: services.store, clock, templates, accountTemplates: services.accountTemplates });
  const accountId = (request: Request) => sessionOf(request).account.id;

  return (
    new Elysia({ name: "module.dashboard", prefix: "/dashboard" })
      .get("", html, hide)
      .get("/", html, hide)
      .get("/assets/:name", ({ params, request }) => asset(params.name, request), hide)

      // Sign-in and sign-out. The key travels once, in this request body, and is never echoed.
      .post(
        "/api/session",
        async ({ body, set, request, server }) => {
          // The peer's address names the client for the attempt limit (behind a proxy: the proxy).
          const client = server?.requestIP(request)?.address;
          const { token, session } = await sessions.signIn((body as { api_key?: unknown } | undefined)?.api_key, client);
          set.headers["set-cookie"] = cookie(token, Math.floor(SESSION_TTL_MS / 1000));
          set.headers["cache-control"] = "no-store";
          return meView(session);
        },
        hide,
      )
      .delete(
        "/api/session",
        async ({ request, set }) => {
          await sessions.signOut(readCookie(request, SESSION_COOKIE));
          set.headers["set-cookie"] = cookie("", 0);
          return { signed_out: true };
        },
        hide,
      )
      .get("/api/me", ({ request }) => meView(sessionOf(request)), hide)
      .get("/api/usage", ({ request }) => usageOverview(metering, clock, sessionOf(request).account), hide)
      // The Usage page's batches with their progress (GET /api/batches without the key).
      .get("/api/batches", async ({ request }) => ({ data: await batches.list(sessionOf(request).account.id) }), hide)
      .get("/api/templates", () => templateCatalog(templates), hide)
      .get("/api/rules", () => dashboardRules, hide)
      .use(dashboardTemplateRoutes({ services, templates, renderer }))
      .use(dashboardFontRoutes({ services, renderer }))

      // The playground's preview: validated like /api/generate, rate limited by the gate with the
      // key's window, and never reserved or counted against the quota — so capped and marked as
      // every preview is (render/preview.ts), or it would be a free rendering API.
      .post(
        "/api/preview",
        async ({ body }) => {
          const result = await renderer.render(asPreview(parseRenderRequest(body ?? {}, templates)));
          return new Response(result.bytes as Uint8Array<ArrayBuffer>, {
            headers: {
              "content-type": result.contentType,
              "cache-control": "no-store",
              "x-generation-time-ms": String(result.generationTimeMs),
              "x-render-cache": result.cached ? "hit" : "miss",
              "x-missing-glyphs": String(result.missingGlyphs?.length ?? 0),
            },
          });
        },
        hide,
      )

      // Webhooks: the same core service as /api/webhooks. Its own checks validate the body (no
      // TypeBox schema in front), so a form with several bad fields hears about all of them at
      // once instead of only the ones a schema stage reports first.
      .get("/api/webhooks", async ({ request }) => ({ data: await webhooks.list(accountId(request)) }), hide)
      .post(
        "/api/webhooks",
        async ({ request, body, set }) => {
          const created = await webhooks.create(accountId(request), body);
          set.status = 201;
          return created;
        },
        hide,
      )
      .put("/api/webhooks/:id", ({ request, params, body }) => webhooks.update(accountId(request), params.id, body), hide)
      .delete("/api/webhooks/:id", ({ request, params }) => webhooks.delete(accountId(request), params.id), hide)
      .post("/api/webhooks/:id/test", async ({ request, params }) => (await webhooks.sendTest(accountId(request), params.id))[0], hide)
      .get("/api/webhooks/:id/deliveries", async ({ request, params }) => ({ data: await webhooks.deliveries(accountId(request), params.id) }), hide)

      // Signing keys of public image URLs and the URL builder: the same core as /api/signing-keys
      // and /api/image-urls. The secret is in the create answer only, as for the API.
      .get("/api/signing-keys", async ({ request }) => ({ data: await services.signingKeys.list(accountId(request)) }), hide)
      .post(
        "/api/signing-keys",
        async ({ request, set }) => {
          const created = await services.signingKeys.create(accountId(request));
          set.status = 201;
          set.headers["cache-control"] = "no-store";
          return created;
        },
        hide,
      )
      .delete(
        "/api/signing-keys/:id",
        async ({ request, params }) => {
          await services.signingKeys.delete(accountId(request), params.id);
          return { id: params.id, deleted: true };
        },
        hide,
      )
      .post(
        "/api/image-urls",
        ({ request, body }) =>
          signImageUrl(
            { signingKeys: services.signingKeys, clock, baseUrl: services.config.baseUrl, templates, accountTemplates: services.accountTemplates },
            accountId(request),
            body,
          ),
        hide,
      )
  );
}
