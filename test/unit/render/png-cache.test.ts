/**
 * The render cache key hashes the request's data (template id, theme, size, format, quality,
 * fields, image bytes), never the template definition object the validated request carries.
 */
import { describe, expect, test } from "bun:test";
import { renderCacheKey } from "../../../src/render/png-cache.ts";
import { createTemplateRegistry } from "../../../src/templates/registry.ts";
import { renderRequest } from "../../support/render-request.ts";

const registry = createTemplateRegistry();
const request = renderRequest(registry, { template: "event", fields: { title: "Cache key" } });

describe("renderCacheKey", () => {
  test("the same data under another definition object is the same key", () => {
    const copy = { ...request, definition: { ...request.definition, description: "changed" } };
    expect(renderCacheKey(copy, {})).toBe(renderCacheKey(request, {}));
  });

  test("a field, the size, the format and an image's bytes each change the key", () => {
    const base = renderCacheKey(request, {});
    const others = [
      renderCacheKey({ ...request, fields: { title: "Cache keys" } }, {}),
      renderCacheKey({ ...request, width: 600 }, {}),
      renderCacheKey({ ...request, format: "jpeg", quality: 85 }, {}),
      renderCacheKey(request, { logo_url: new Uint8Array([1, 2, 3]) }),
    ];
    expect(new Set([base, ...others]).size).toBe(5);
  });
});
