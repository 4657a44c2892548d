/**
 * The images of a batch's drawn items, for its archive (GET /api/batches/{id}/archive): each is
 * drawn from its signed URL exactly as a crawler's fetch would be — from the render cache, where
 * the drawing left it, or drawn again in the background lane when the cache has let it go. Nothing
 * is counted: every one of them was counted when its item was drawn.
 */
import { ApiError } from "../errors.ts";
import type { Logger } from "../logger.ts";
import { parseAccountRenderRequest } from "../render/account-request.ts";
import type { TemplateLookup } from "../render/request.ts";
import { bodyFromSignedUrl, paramsFromSearch, parseSignedPath } from "../signing/index.ts";
import type { AccountTemplateService } from "../templates/account-templates.ts";
import type { BatchItemRecord } from "../store/types.ts";
import type { BatchRenderer } from "./drawer.ts";

export interface ArchiveDeps {
  renderer: BatchRenderer;
  templates: TemplateLookup;
  accountTemplates: Pick<AccountTemplateService, "resolve" | "ids" | "fontsFor">;
  logger: Logger;
}

export interface ArchivedImage {
  /** `0007.png`: the item's index (four digits, more past 9,999) and the URL's extension. */
  name: string;
  bytes: Uint8Array;
}

/** The drawn items' images, in index order; an item whose image can no longer be drawn (its template deleted) is left out and logged. */
export async function* drawnImages(deps: ArchiveDeps, accountId: string, items: AsyncIterable<BatchItemRecord>): AsyncGenerator<ArchivedImage> {
  for await (const item of items) {
    if (item.status !== "done" || !item.url) continue;
    const url = new URL(item.url);
    const path = parseSignedPath(url.pathname.slice(url.pathname.indexOf("/i/")));
    const params = paramsFromSearch(url.search);
    if (!path || !params) continue;
    try {
      const request = await parseAccountRenderRequest(bodyFromSignedUrl(path.template, path.ext, params), {
        accountId,
        templates: deps.templates,
        accountTemplates: deps.accountTemplates,
        callerIsAccount: false,
      });
      const prepared = await deps.renderer.prepare(request, { background: true });
      const { bytes } = await prepared.render();
      yield { name: `${String(item.index).padStart(4, "0")}.${path.ext}`, bytes };
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      deps.logger.warn("a batch item's image is left out of its archive", { batch_id: item.batchId, index: item.index, code: error.code });
    }
  }
}
