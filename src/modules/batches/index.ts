/**
 * Batches: `POST /api/batches` (many images in one call; every item validated first, the units
 * reserved at once), `GET /api/batches` and `GET /api/batches/{id}` (progress, items a page at a
 * time), `DELETE /api/batches/{id}` (cancel) and `GET /api/batches/{id}/archive` (a ZIP of the
 * drawn images, streamed). Logic in src/batches; items are drawn by src/batches/drawer.ts.
 */
import { Elysia, t } from "elysia";
import { Zip, ZipPassThrough } from "fflate";
import { type ArchivedImage, drawnImages } from "../../batches/archive.ts";
import { BatchService } from "../../batches/batches.ts";
import type { BatchRenderer } from "../../batches/drawer.ts";
import { API_AUTH_ERRORS, documentedBody, errorResponses, mediaBody } from "../../http/error-schema.ts";
import { authOf, requestState } from "../../http/request-context.ts";
import type { TemplateLookup } from "../../render/request.ts";
import type { Services } from "../../services.ts";
import { generateBodySchema } from "../generate/model.ts";
import { Batch, BatchList, BatchWithItems, batchBodySchema } from "./model.ts";

export interface BatchesDeps {
  services: Pick<Services, "store" | "clock" | "accountTemplates" | "logger">;
  renderer: BatchRenderer;
  templates: TemplateLookup;
}

export function batchesModule({ services, renderer, templates }: BatchesDeps) {
  const batches = new BatchService({ store: services.store, clock: services.clock, templates, accountTemplates: services.accountTemplates });
  const tags = ["Batches"];
  const idParam = t.Object({ id: t.String({ maxLength: 64 }) });
  return new Elysia({ name: "module.batches", prefix: "/api/batches" })
    .post(
      "",
      async ({ request, body, set }) => {
        const { id, status, total, created_at } = await batches.create(authOf(request).account, requestState(request).id, body);
        set.status = 202;
        return { id, status, total, created_at };
      },
      {
        response: {
          202: t.Object(
            { id: Batch.properties.id, status: t.Literal("queued"), total: Batch.properties.total, created_at: Batch.properties.created_at },
            { title: "CreatedBatch" },
          ),
          ...errorResponses(
            ...API_AUTH_ERRORS,
            "INVALID_JSON",
            "VALIDATION_ERROR",
            "PAYLOAD_TOO_LARGE",
            "UNSUPPORTED_MEDIA_TYPE",
            "QUOTA_EXCEEDED",
            "SERVER_BUSY",
            "SERVICE_UNAVAILABLE",
          ),
        },
        detail: {
          summary: "Create a batch",
          description:
            "1–1,000 generate bodies (body ≤ 5 MiB), drawn in the background below interactive requests. Every item is validated first: any invalid item is a 400 naming it (`items[3].title`) and nothing is queued. The batch reserves `total` units of the monthly quota at once (429 QUOTA_EXCEEDED, nothing queued, when fewer are left); each item counts once when drawn and gets a signed URL, signed with `signing_key_id` or the account's newest signing key (none: 400 naming `signing_key_id`). `batch.completed` fires when the last item settles. One request against the rate limit.",
          tags,
          requestBody: documentedBody(batchBodySchema(generateBodySchema(templates))),
        },
      },
    )
    .get("", async ({ request }) => ({ data: await batches.list(authOf(request).account.id) }), {
      response: { 200: BatchList, ...errorResponses(...API_AUTH_ERRORS, "SERVER_BUSY", "SERVICE_UNAVAILABLE") },
      detail: { summary: "List batches", description: "The account's batches of the last 30 days, newest first (without their items).", tags },
    })
    .get("/:id", async ({ request, params, query }) => batches.get(authOf(request).account.id, params.id, query.cursor), {
      params: idParam,
      query: t.Object({ cursor: t.Optional(t.String({ maxLength: 16, description: "`next_cursor` of the page before." })) }),
      response: { 200: BatchWithItems, ...errorResponses(...API_AUTH_ERRORS, "VALIDATION_ERROR", "NOT_FOUND", "SERVER_BUSY", "SERVICE_UNAVAILABLE") },
      detail: {
        summary: "Get a batch",
        description: "Progress and the items, 100 a page in index order (`?cursor=<next_cursor>`). Another account's batch is 404.",
        tags,
      },
    })
    .delete("/:id", async ({ request, params }) => batches.cancel(authOf(request).account.id, params.id), {
      params: idParam,
      response: { 200: Batch, ...errorResponses(...API_AUTH_ERRORS, "NOT_FOUND", "SERVER_BUSY", "SERVICE_UNAVAILABLE") },
      detail: {
        summary: "Cancel a batch",
        description:
          "Items not yet drawn fail as canceled and their units go back to the month's quota; items already drawn stay (with their URLs). A finished batch is answered as it is.",
        tags,
      },
    })
    .get(
      "/:id/archive",
      async ({ request, params }) => {
        const { account } = authOf(request);
        const batch = await batches.find(account.id, params.id);
        const images = drawnImages(
          { renderer, templates, accountTemplates: services.accountTemplates, logger: services.logger },
          account.id,
          batches.allItems(batch.id),
        );
        return new Response(zipStream(images), {
          headers: { "content-type": "application/zip", "content-disposition": `attachment; filename="${batch.id}.zip"` },
        });
      },
      {
        params: idParam,
        response: {
          200: mediaBody(
            Object.assign(t.File({ description: "A ZIP of the drawn images (stored, not compressed again), named by index: `0000.png`, `0001.jpg`, …" }), {
              maxLength: 4 * 1024 * 1024 * 1024,
            }),
            ["application/zip"],
          ),
          ...errorResponses(...API_AUTH_ERRORS, "NOT_FOUND", "SERVER_BUSY", "SERVICE_UNAVAILABLE"),
        },
        detail: { summary: "Download a batch's images", description: "Streams a ZIP of the images drawn so far, in index order. Nothing is counted.", tags },
      },
    );
}

/** A ZIP of `images` as they come, each stored as is (PNG, JPEG and WebP are compressed already). */
function zipStream(images: AsyncGenerator<ArchivedImage>): ReadableStream<Uint8Array> {
  let target: ReadableStreamDefaultController<Uint8Array> | undefined;
  const zip = new Zip((error, chunk, final) => {
    if (error) return target?.error(error);
    target?.enqueue(chunk);
    if (final) target?.close();
  });
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      target = controller;
      const next = await images.next();
      if (next.done) {
        zip.end();
        return;
      }
      const file = new ZipPassThrough(next.value.name);
      zip.add(file);
      file.push(next.value.bytes, true);
    },
    async cancel() {
      await images.return(undefined);
    },
  });
}
