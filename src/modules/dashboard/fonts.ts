/**
 * The Fonts page's endpoints under /dashboard/api/ (mounted inside the dashboard module, whose
 * prefix is /dashboard): the account's fonts beside the bundled families, upload, delete, and a
 * sample picture of each face. Thin shells over the same core as /api/fonts
 * (render/fonts/account-fonts.ts validates the upload, enforces the bounds and words the errors); the
 * multipart body is read by http/body.ts for both paths, and the dashboard gate in front has
 * already checked the session, the Origin of state-changing requests and the key's rate limit.
 *
 * The sample is a picture the server draws in the face, not a CSS @font-face in the page: the
 * page's Content Security Policy stays as it is (no font-src, nothing but images from this
 * origin), no font file is ever handed to the browser, and the sample is drawn by the very
 * renderer and font matching that draw the account's cards, so what the page shows is what a card
 * gets (a face the browser would read differently, or a glyph taken from a fallback font, shows as
 * a card shows it).
 */
import { Elysia } from "elysia";
import { ApiError } from "../../errors.ts";
import { imageBody } from "../../http/image-body.ts";
import { FAMILY_NAME, type FontView } from "../../render/fonts/account-fonts.ts";
import { parseRenderRequest } from "../../render/request.ts";
import type { RenderRequest, Renderer } from "../../render/types.ts";
import type { Services } from "../../services.ts";
import { accountTemplateDefinition, parseAccountTemplate } from "../../templates/account/index.ts";
import { sessionOf } from "../../http/request-context.ts";

export interface DashboardFontDeps {
  services: Pick<Services, "accountFonts" | "accountTemplates">;
  renderer: Renderer;
}

/** The line each face is drawn with: capitals, lowercase and digits, which every Latin font has. */
export const FONT_SAMPLE_TEXT = "The quick brown fox 123";
export const FONT_SAMPLE_SIZE = { width: 1000, height: 200 } as const;

const hide = { detail: { hide: true } } as const;

/**
 * A render of the fixed sample template in one face of the account's. Not a preview (no PREVIEW
 * mark across a 200 px strip) and not counted: nothing in it comes from the request but the
 * choice of font, so it is no free rendering API. Its `revision` is the digest of its definition,
 * so two faces of one family (whose cards list the same font digests) never share a cache entry,
 * and a sample can never meet a stored template's images (those have versions from 1).
 */
export function fontSampleRequest(accountId: string, font: Pick<FontView, "family" | "weight" | "style">): RenderRequest {
  // Stored families passed this at upload; checked again because it is written into the HTML.
  if (!FAMILY_NAME.test(font.family)) throw new ApiError("VALIDATION_ERROR", `The family "${font.family.slice(0, 64)}" cannot be drawn as a sample.`);
  const definition = {
    id: "font-sample",
    name: "Font sample",
    html: `<div style="display: flex; align-items: center; width: 100%; height: 100%; padding: 0 40px; background-color: #ffffff; color: #111827; font-size: 64px; white-space: nowrap; font-family: '${font.family}'; font-weight: ${font.weight}; font-style: ${font.style}">{{text}}</div>`,
    fields: [{ name: "text", type: "text", required: true }],
    width: FONT_SAMPLE_SIZE.width,
    height: FONT_SAMPLE_SIZE.height,
    sample: { text: FONT_SAMPLE_TEXT },
  };
  const spec = parseAccountTemplate(definition);
  const template = accountTemplateDefinition(spec);
  const only = { get: (id: string) => (id === template.id ? template : undefined), list: () => [template] };
  const request = parseRenderRequest({ template: spec.id, text: FONT_SAMPLE_TEXT, ...FONT_SAMPLE_SIZE }, only);
  const revision = new Bun.CryptoHasher("sha256").update(JSON.stringify(definition)).digest("hex");
  return { ...request, accountTemplate: { accountId, version: 0, spec, revision }, requester: accountId };
}

export function dashboardFontRoutes({ services, renderer }: DashboardFontDeps) {
  const { accountFonts, accountTemplates } = services;
  const account = (request: Request) => sessionOf(request).account.id;

  return new Elysia({ name: "module.dashboard.fonts", prefix: "/api/fonts" })
    .get("", ({ request }) => accountFonts.catalog(account(request)), hide)
    .post(
      "",
      async ({ request, body, set }) => {
        const created = await accountFonts.upload(account(request), body as Record<string, unknown>);
        set.status = 201;
        return created;
      },
      hide,
    )
    .delete(
      "/:id",
      async ({ request, params }) => {
        await accountFonts.delete(account(request), params.id);
        return { id: params.id, deleted: true };
      },
      hide,
    )
    .get(
      "/:id/sample",
      async ({ request, params }) => {
        const accountId = account(request);
        const font = (await accountFonts.list(accountId)).find((f) => f.id === params.id);
        if (!font) throw new ApiError("NOT_FOUND", `No font ${params.id.slice(0, 60)} in this account.`);
        const sample = fontSampleRequest(accountId, font);
        // The faces the sample's family has, exactly as a card naming it gets them.
        const { fonts } = await accountTemplates.fontsFor(accountId, sample.accountTemplate!.spec);
        const result = await renderer.render({ ...sample, fonts });
        // One account's, so no-store like every other answer under /dashboard/api/ (docs/api.md);
        // a repeat is answered from the renderer's image cache, not drawn again.
        return new Response(imageBody(result.bytes), {
          headers: {
            "content-type": result.contentType,
            "cache-control": "no-store",
            "x-content-type-options": "nosniff",
            "x-render-cache": result.cached ? "hit" : "miss",
          },
        });
      },
      hide,
    );
}
