/**
 * The Templates page's endpoints under /dashboard/api/: the account's own templates (list,
 * create, read, new version, versions, delete), the starters, and previews of an unsaved
 * definition. Thin shells over the same core as /api/templates; the dashboard gate in front has
 * already checked the session, the Origin of state-changing requests and the key's rate limit.
 */
import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import type { TemplateLookup } from "../../render/request.ts";
import { sessionOf } from "./guard.ts";
import { STARTERS } from "./starters.ts";

export interface DashboardTemplateDeps {
  services: Pick<Services, "accountTemplates">;
  templates: TemplateLookup;
}

const hide = { detail: { hide: true } } as const;

export function dashboardTemplateRoutes({ services, templates }: DashboardTemplateDeps) {
  const { accountTemplates } = services;
  const account = (request: Request) => sessionOf(request).account.id;

  return new Elysia({ name: "module.dashboard.templates", prefix: "/dashboard/api" })
    .get("/starters", () => ({ data: STARTERS }), hide)
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
