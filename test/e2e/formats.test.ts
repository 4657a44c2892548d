/**
 * format and quality through POST /api/generate on the real service (render workers encode):
 * Content-Type follows the format, the bytes decode with independent decoders and show the
 * card, the ETag and the render cache tell formats and qualities apart, and bad values are a
 * VALIDATION_ERROR naming the field.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { decodeJpeg, decodeWebp } from "../support/decode.ts";
import { decodePng, fractionNear } from "../support/png.ts";
import { startRenderService, type RenderTestService } from "../support/render-service.ts";

const DARK_BG: [number, number, number] = [0x0b, 0x0b, 0x14];
const body = { title: "Formats over HTTP", subtitle: "JPEG and WebP from the workers" };

let svc: RenderTestService;
beforeAll(async () => {
  svc = await startRenderService();
});
afterAll(() => svc.stop());

const bytesOf = async (res: Response) => new Uint8Array(await res.arrayBuffer());

describe("POST /api/generate with format and quality", () => {
  test("jpeg: image/jpeg that jpeg-js decodes to the dark card with white title ink", async () => {
    const res = await svc.generate({ ...body, format: "jpeg" });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/jpeg");
    const image = decodeJpeg(await bytesOf(res));
    expect([image.width, image.height]).toEqual([1200, 630]);
    expect(fractionNear(image, 1150, 590, 40, 30, DARK_BG, 8)).toBeGreaterThan(0.95);
    expect(fractionNear(image, 72, 200, 900, 250, [255, 255, 255], 40)).toBeGreaterThan(0.03);
  });

  test("webp at another size: image/webp that libwebp's decoder reads, light card", async () => {
    const res = await svc.generate({ ...body, format: "webp", quality: 70, theme: "light", width: 600, height: 315 });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/webp");
    const image = await decodeWebp(await bytesOf(res));
    expect([image.width, image.height]).toEqual([600, 315]);
    expect(fractionNear(image, 560, 290, 30, 20, [0xfc, 0xfc, 0xfa], 8)).toBeGreaterThan(0.95);
  });

  test("png stays the default; a quality sent with png is ignored (same ETag, one render)", async () => {
    const plain = await svc.generate({ ...body, title: "PNG default" });
    expect(plain.headers.get("content-type")).toBe("image/png");
    expect(decodePng(await bytesOf(plain)).width).toBe(1200);
    const rendered = svc.renderer.pool.stats.rendered;
    const withQuality = await svc.generate({ ...body, title: "PNG default", format: "png", quality: 10 });
    expect(withQuality.status).toBe(200);
    expect(withQuality.headers.get("etag")).toBe(plain.headers.get("etag"));
    expect(svc.renderer.pool.stats.rendered).toBe(rendered);
  });

  test("the ETag and the render cache key include format and quality", async () => {
    const variants = [{}, { format: "jpeg" }, { format: "jpeg", quality: 60 }, { format: "webp" }, { format: "webp", quality: 60 }];
    const etags: string[] = [];
    for (const v of variants) {
      const res = await svc.generate({ ...body, title: "Cache key", ...v });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      etags.push(res.headers.get("etag")!);
    }
    expect(new Set(etags).size).toBe(variants.length);
    // Repeats hit the cache: same ETag, same bytes, no new render. jpeg without quality is jpeg at 85.
    const rendered = svc.renderer.pool.stats.rendered;
    const again = await svc.generate({ ...body, title: "Cache key", format: "jpeg", quality: 85 });
    expect(again.headers.get("etag")).toBe(etags[1]!);
    expect(again.headers.get("content-type")).toBe("image/jpeg");
    expect(decodeJpeg(await bytesOf(again)).width).toBe(1200);
    expect(svc.renderer.pool.stats.rendered).toBe(rendered);
  });

  test("bad format and quality: 400 VALIDATION_ERROR naming each field, nothing counted", async () => {
    const before = await svc.used();
    for (const [over, fields] of [
      [{ format: "jpg" }, ["format"]],
      [{ format: "jpeg", quality: 0 }, ["quality"]],
      [{ format: "webp", quality: 101 }, ["quality"]],
      [{ format: "jpeg", quality: 85.5 }, ["quality"]],
      [{ format: "gif", quality: "high" }, ["format", "quality"]],
    ] as const) {
      const res = await svc.generate({ ...body, ...over });
      expect(res.status).toBe(400);
      const err = (await res.json()) as { code: string; details: { field: string }[] };
      expect(err.code).toBe("VALIDATION_ERROR");
      expect(err.details.map((d) => d.field).sort()).toEqual([...fields]);
    }
    expect(await svc.used()).toBe(before);
  });
});
