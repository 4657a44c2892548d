/**
 * The Templates page's endpoints under /dashboard/api/ (mounted inside the dashboard module,
 * whose prefix is /dashboard): the account's own templates (list, create, read, new version,
 * versions, delete), the starters and their pictures, and previews of an unsaved definition.
 * Thin shells over the same core as /api/templates; the dashboard gate in front has already
 * checked the session, the Origin of state-changing requests and the key's rate limit.
 */
import { Elysia } from "elysia";
import { ApiError } from "../../errors.ts";
import { imageBody } from "../../http/image-body.ts";
import type { Services } from "../../services.ts";
import type { TemplateLookup } from "../../render/request.ts";
import { costHeader, parsePreviewRequest } from "../../render/preview.ts";
import type { Renderer } from "../../render/types.ts";
import { sessionOf } from "../../http/request-context.ts";
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
        return new Response(Bun.file(path), {
          headers: { "content-type": "image/png", "cache-control": "private, max-age=86400", "x-content-type-options": "nosniff" },
        });
      },
      hide,
    )
    .post(
      "/account-templates/preview",
      // The same validation, cap and mark as POST /api/templates/preview; never counted.
      async ({ request, body }) => {
        const preview = parsePreviewRequest(body, account(request));
        const { fonts, warnings } = await accountTemplates.fontsFor(account(request), preview.accountTemplate!.spec, true);
        const result = await renderer.render(fonts ? { ...preview, fonts } : preview);
        return new Response(imageBody(result.bytes), {
          headers: {
            "content-type": result.contentType,
            "cache-control": "no-store",
            "x-generation-time-ms": String(result.generationTimeMs),
            ...costHeader(preview.accountTemplate!.spec),
            ...(warnings.length ? { "x-template-warnings": JSON.stringify(warnings.map((w) => w.message)) } : {}),
          },
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
