/** POST /api/generate: validate → render as one counted unit (metering.withUnit; a cache hit: metering.countDone) → PNG. */
import { Elysia } from "elysia";
import { imageBody } from "../../http/image-body.ts";
import { parseAccountRenderRequest } from "../../render/account-request.ts";
import type { TemplateLookup } from "../../render/request.ts";
import type { Renderer, RenderResult } from "../../render/types.ts";
import type { Services } from "../../services.ts";
import { API_AUTH_ERRORS, documentedBody, errorResponses } from "../../http/error-schema.ts";
import { authOf, requestState } from "../../http/request-context.ts";
import { generateBodySchema, ImageResponse } from "./model.ts";

export interface GenerateDeps {
  services: Pick<Services, "metering" | "accountTemplates">;
  renderer: Renderer;
  templates: TemplateLookup;
}

export function generateModule({ services, renderer, templates }: GenerateDeps) {
  return new Elysia({ name: "module.generate" }).post(
    "/api/generate",
    async ({ request, body }) => {
      const { account } = authOf(request);
      const renderRequest = await parseAccountRenderRequest(body, {
        accountId: account.id,
        templates,
        accountTemplates: services.accountTemplates,
        callerIsAccount: true,
      });
      const requestId = requestState(request).id;
      const factsOf = (result: RenderResult) => ({
        requestId,
        template: renderRequest.template,
        width: result.width,
        height: result.height,
        generationTimeMs: result.generationTimeMs,
      });
      // A repeat the in-memory cache answers needs no reservation: it is counted in one
      // transaction (or refused with QUOTA_EXCEEDED) before the answer, like any other success.
      // Nothing on this path may wait for a timer or I/O: an answer finished after the handler's
      // synchronous run leaves Bun piecewise, a send() per header part (docs/architecture.md).
      const hit = renderer.cached?.(renderRequest);
      const { result, quota, remaining } = hit
        ? { result: hit, ...(await services.metering.countDone(account, factsOf(hit))) }
        : await services.metering.withUnit(account, async () => {
            const result = await renderer.render(renderRequest);
            return { result, facts: factsOf(result) };
          });
      return new Response(imageBody(result.bytes), {
        headers: {
          "content-type": result.contentType,
          "cache-control": "no-store",
          // The content address (template, theme, size, format, quality, fields, fetched image
          // bytes) when the renderer has one; otherwise a hash of the format and the bytes.
          etag: `"${result.contentAddress ?? `${renderRequest.format}${renderRequest.quality ?? ""}-${Bun.hash(result.bytes).toString(16)}`}"`,
          "x-generation-time-ms": String(result.generationTimeMs),
          "x-missing-glyphs": String(result.missingGlyphs?.length ?? 0),
          "x-quota-limit": String(quota),
          "x-quota-remaining": String(remaining),
        },
      });
    },
    {
      // No `body:` validation here on purpose: the chosen template's field schema validates
      // (parseRenderRequest) so unknown fields are named with the template that owns them.
      // The schema still documents the request in OpenAPI.
      response: {
        200: ImageResponse,
        ...errorResponses(
          ...API_AUTH_ERRORS,
          "INVALID_JSON",
          "VALIDATION_ERROR",
          "UNKNOWN_TEMPLATE",
          "PAYLOAD_TOO_LARGE",
          "UNSUPPORTED_MEDIA_TYPE",
          "QUOTA_EXCEEDED",
          "IMAGE_FETCH_FAILED",
          "RENDER_FAILED",
          "SERVER_BUSY",
          "SERVICE_UNAVAILABLE",
        ),
      },
      detail: {
        summary: "Generate an image",
        description:
          "Renders the template with the given fields and returns the image (PNG, JPEG or WebP). Each success counts one image toward the monthly quota.",
        tags: ["Images"],
        requestBody: documentedBody(generateBodySchema(templates)),
      },
    },
  );
}
