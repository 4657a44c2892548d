/**
 * POST /api/templates/preview: draws an unsaved account template definition, for editing it.
 * The definition is validated exactly as create validates it (the same 400 with positions);
 * the image is capped at 1500 px on its longer side and carries a PREVIEW mark over the whole image
 * (src/render/preview.ts), and it is not counted toward the quota and sends no event — so it
 * is rate limited like any API call but is no free rendering API.
 */
import { Elysia, t } from "elysia";
import { API_AUTH_ERRORS, documentedBody, errorResponses, OneOf } from "../../http/error-schema.ts";
import { imageBody } from "../../http/image-body.ts";
import { authOf } from "../../http/request-context.ts";
import { costHeader, PREVIEW_MAX_SIDE, parsePreviewRequest } from "../../render/preview.ts";
import { FORMATS, MAX_DATA_URI_LENGTH, MAX_IMAGE_BYTES, MAX_SIZE, MIN_SIZE, THEMES } from "../../render/request.ts";
import { MAX_IMAGE_BODY_BYTES } from "../../http/body.ts";
import type { Renderer } from "../../render/types.ts";
import type { Services } from "../../services.ts";
import { ImageResponse } from "../generate/model.ts";
import { TemplateDefinitionBody } from "./model.ts";

const Size = (name: string) =>
  t.Integer({
    minimum: MIN_SIZE,
    maximum: MAX_SIZE,
    description: `Requested ${name} in pixels; a preview larger than ${PREVIEW_MAX_SIDE} px on its longer side is drawn scaled down to it.`,
  });

export const TemplatePreviewBody = t.Object(
  {
    template: TemplateDefinitionBody,
    values: t.Optional(
      t.Record(t.String({ maxLength: 64 }), t.String({ maxLength: MAX_DATA_URI_LENGTH }), {
        description: `Field values; default the definition's \`sample\`. An image_url value may be a data: image decoding to at most ${MAX_IMAGE_BYTES / (1024 * 1024)} MiB (the body is at most ${MAX_IMAGE_BODY_BYTES / (1024 * 1024)} MiB).`,
      }),
    ),
    theme: t.Optional(OneOf(THEMES, { default: "dark" })),
    width: t.Optional(Size("width")),
    height: t.Optional(Size("height")),
    format: t.Optional(OneOf(FORMATS, { default: "png" })),
  },
  { title: "TemplatePreview" },
);

/** The header a preview's warnings travel in: a JSON array of messages (a `font-family` naming nothing the server has). */
export const WARNINGS_HEADER = "x-template-warnings";

export function templatePreviewModule({ renderer, services }: { renderer: Renderer; services: Pick<Services, "accountTemplates"> }) {
  return new Elysia({ name: "module.templates.preview" }).post(
    "/api/templates/preview",
    async ({ request, body }) => {
      const accountId = authOf(request).account.id;
      const preview = parsePreviewRequest(body, accountId);
      const { fonts, warnings } = await services.accountTemplates.fontsFor(accountId, preview.accountTemplate!.spec, true);
      const result = await renderer.render(fonts ? { ...preview, fonts } : preview);
      return new Response(imageBody(result.bytes), {
        headers: {
          "content-type": result.contentType,
          "cache-control": "no-store",
          "x-generation-time-ms": String(result.generationTimeMs),
          "x-missing-glyphs": String(result.missingGlyphs?.length ?? 0),
          ...costHeader(preview.accountTemplate!.spec),
          ...(warnings.length ? { [WARNINGS_HEADER]: JSON.stringify(warnings.map((w) => w.message)) } : {}),
        },
      });
    },
    {
      // The template language validates the body (every problem with its position); the schema documents it.
      response: {
        200: ImageResponse,
        ...errorResponses(
          ...API_AUTH_ERRORS,
          "INVALID_JSON",
          "VALIDATION_ERROR",
          "PAYLOAD_TOO_LARGE",
          "UNSUPPORTED_MEDIA_TYPE",
          "IMAGE_FETCH_FAILED",
          "RENDER_FAILED",
          "SERVER_BUSY",
        ),
      },
      detail: {
        summary: "Preview an unsaved account template",
        description: `Draws the definition in \`template\` (validated as create validates it: the same 400) with \`values\` (default its \`sample\`). At most ${PREVIEW_MAX_SIDE} px on the longer side (larger sizes are drawn scaled down), with PREVIEW repeated over the whole image (no crop of it is a clean card). A \`font-family\` list naming nothing the server has (neither the account's fonts nor a bundled family) is drawn in Inter and reported in the \`X-Template-Warnings\` header (a JSON array of messages); creating the template would refuse it. The \`X-Template-Cost\` header carries the definition's paint estimate and the budget it is checked against, \`units=<n>; budget=<n>\` (the costlier theme and orientation, in units of one megapixel painted once at 2400×2400; a definition over the budget is refused with a 400). Not counted toward the quota, no event; rate limited like any API call. Bodies up to ${MAX_IMAGE_BODY_BYTES / (1024 * 1024)} MiB.`,
        tags: ["Templates"],
        requestBody: documentedBody(TemplatePreviewBody),
      },
    },
  );
}
