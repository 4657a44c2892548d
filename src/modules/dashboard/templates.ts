/**
 * The Templates page's endpoints under /dashboard/api/ (this plugin is mounted inside the dashboard module, whose prefix is /dashboard): the account's own templates (list,
 * create, read, new version, versions, delete), the starters, and previews of an unsaved
 * definition. Thin shells over the same core as /api/templates; the dashboard gate in front has
 * already checked the session, the Origin of state-changing requests and the key's rate limit.
 */
import { Elysia } from "elysia";
import { ApiError } from "../../errors.ts";
import type { Services } from "../../services.ts";
import { parseRenderRequest, type TemplateLookup } from "../../render/request.ts";
import { asPreview } from "../../render/preview.ts";
import type { Renderer } from "../../render/types.ts";
import { accountTemplateDefinition, parseAccountTemplate } from "../../templates/account/index.ts";
import { sessionOf } from "./guard.ts";
import { STARTER_PICTURES, STARTERS } from "./starters.ts";

export interface DashboardTemplateDeps {
  services: Pick<Services, "accountTemplates">;
  templates: TemplateLookup;
  renderer: Renderer;
}


const hide = { detail: { hide: true } } as const;

export function dashboardTemplateRoutes({ services, templates, renderer }: DashboardTemplateDeps) {
  const { accountTemplates } = services;
  const account = (request: Request) => sessionOf(request).account.id;

  return new Elysia({ name: "module.dashboard.templates", prefix: "/api" })
    .get("/starters", () => ({ data: STARTERS }), hide)
    .get(
      "/starters/:id/picture",
      ({ params }) => {
        const path = STARTER_PICTURES.get(params.id);
        if (!path) throw new ApiError("NOT_FOUND", `No starter ${params.id.slice(0, 60)}.`);
        return new Response(Bun.file(path), { headers: { "content-type": "image/png", "cache-control": "private, max-age=86400", "x-content-type-options": "nosniff" } });
      },
      hide,
    )
    .post(
      "/account-templates/preview",
      async ({ request, body }) => {
        const { template, values, theme, width, height } = (body ?? {}) as Record<string, unknown>;
        if (template === undefined) throw new ApiError("VALIDATION_ERROR", "template is required", [{ field: "template", message: "is required (a template definition)" }]);
        const spec = parseAccountTemplate(template);
        const definition = accountTemplateDefinition(spec);
        const size = { width: typeof width === "number" ? width : spec.width, height: typeof height === "number" ? height : spec.height };
        const fields = values && typeof values === "object" ? values : spec.sample;
        const lookup: TemplateLookup = { get: (id) => (id === spec.id ? definition : undefined), list: () => [definition] };
        const parsed = parseRenderRequest({ ...fields, template: spec.id, theme, ...size }, lookup);
        const result = await renderer.render(asPreview({ ...parsed, accountTemplate: { accountId: account(request), version: 0, spec } }));
        return new Response(result.bytes as Uint8Array<ArrayBuffer>, {
          headers: { "content-type": result.contentType, "cache-control": "no-store", "x-generation-time-ms": String(result.generationTimeMs) },
        });
      },
      hide,
    )
    .get("/account-templates", async ({ request }) => ({ data: await accountTemplates.list(account(request)) }), hide)
    .post(
      "/account-templates",
      async ({ request, body, set }) => {
        const created = await accountTemplates.create(account(request), body, templates);
        set.status = 201;
        return created;
      },
      hide,
    )
    .get("/account-templates/:id", ({ request, params }) => accountTemplates.get(account(request), params.id), hide)
    .put("/account-templates/:id", ({ request, params, body }) => accountTemplates.update(account(request), params.id, body, templates), hide)
    .delete(
      "/account-templates/:id",
      async ({ request, params }) => {
        await accountTemplates.delete(account(request), params.id);
        return { id: params.id, deleted: true };
      },
      hide,
    )
    .get("/account-templates/:id/versions", async ({ request, params }) => ({ data: await accountTemplates.versions(account(request), params.id) }), hide)
    .get(
      "/account-templates/:id/versions/:version",
      ({ request, params }) => {
        const version = Number(params.version);
        return accountTemplates.get(account(request), params.id, Number.isSafeInteger(version) && version > 0 ? version : 0);
      },
      hide,
    );
}

