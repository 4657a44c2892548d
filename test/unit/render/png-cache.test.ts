/**
 * The render cache key hashes the request's data (template id, theme, size, format, quality,
 * fields, image bytes), never the template definition object the validated request carries.
 */
import { describe, expect, test } from "bun:test";
import { renderCacheKey } from "../../../src/render/caches/png-cache.ts";
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

  test("an account template: the account, the version and the stored definition each change the key", () => {
    const spec = { id: "event", name: "x", description: "", html: "<div>{{title}}</div>", fields: [], themes: {}, width: 1200, height: 630, sample: {} };
    const own = (accountId: string, version: number, revision: string) => ({ ...request, accountTemplate: { accountId, version, spec, revision } });
    const keys = [
      renderCacheKey(own("acc_a", 1, "r1"), {}),
      renderCacheKey(own("acc_b", 1, "r1"), {}),
      renderCacheKey(own("acc_a", 2, "r1"), {}),
      renderCacheKey(own("acc_a", 1, "r2"), {}),
    ];
    expect(new Set([renderCacheKey(request, {}), ...keys]).size).toBe(5);
    // The spec object itself is not hashed: its digest (revision) stands for it.
    expect(
      renderCacheKey({ ...own("acc_a", 1, "r1"), accountTemplate: { accountId: "acc_a", version: 1, spec: { ...spec, name: "y" }, revision: "r1" } }, {}),
    ).toBe(keys[0]!);
  });

  test("requests without an account template keep the key they always had (ETags and cached files stay valid)", () => {
    // Pinned: the key of this request before account templates existed.
    expect(renderCacheKey(request, {})).toBe(
      new Bun.CryptoHasher("sha256").update(JSON.stringify(["event", "dark", 1200, 630, "png", null, [["title", "Cache key"]], []])).digest("hex"),
    );
  });
});
