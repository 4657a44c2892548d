/**
 * PNG, JPEG and WebP through the real pipeline (satori + resvg + the encoders), decoded by
 * decoders independent of the encoders (test/support/decode.ts), with pixel checks: the card's
 * background where it should be, the title's ink, and JPEG's flattening of transparent parts
 * onto the card's own background colour (or white), never black.
 */
import { describe, expect, test } from "bun:test";
import { createInProcessRenderer } from "../../../src/render/engines/in-process.ts";
import { encodeImage, flattenPremultiplied } from "../../../src/render/output/encode.ts";
import { createTemplateRegistry } from "../../../src/templates/registry.ts";
import type { TemplateDefinition } from "../../../src/templates/types.ts";
import { renderRequest, type RenderRequestInput } from "../../support/render-request.ts";
import { testEngine } from "../../support/engines.ts";
import { decodeAny, decodeJpeg, decodeWebp } from "../../support/decode.ts";
import { averageColour, decodePng, fractionNear, pixelAt } from "../../support/png.ts";
import { countInk } from "./regions.ts";

/** A card whose root is a rounded rectangle: its corners are transparent in a PNG. */
const rounded: TemplateDefinition = {
  id: "rounded",
  description: "rounded card",
  fields: [{ name: "title", type: "text", required: true }],
  render: (fields, ctx) => ({
    type: "div",
    props: {
      style: {
        display: "flex",
        width: ctx.width,
        height: ctx.height,
        backgroundColor: "#3366CC",
        borderRadius: 120,
        alignItems: "center",
        justifyContent: "center",
        color: "#FFFFFF",
        fontSize: 96,
      },
      children: fields.title,
    },
  }),
};

/** A card with no background colour at all: text on transparency. */
const bare: TemplateDefinition = {
  id: "bare",
  description: "no background",
  fields: [{ name: "title", type: "text", required: true }],
  render: (fields, ctx) => ({
    type: "div",
    props: {
      style: { display: "flex", width: ctx.width, height: ctx.height, alignItems: "center", justifyContent: "center", color: "#D02020", fontSize: 96 },
      children: fields.title,
    },
  }),
};

const registry = createTemplateRegistry();
registry.add(rounded);
registry.add(bare);
const renderer = createInProcessRenderer({ engine: testEngine() });

const render = (over: Partial<RenderRequestInput>) =>
  renderer.render(
    renderRequest(registry, {
      template: "event",
      theme: "dark",
      fields: { title: "Formats: PNG, JPEG and WebP" },
      width: 1200,
      height: 630,
      format: "png",
      ...over,
    }),
  );

const DARK_BG: [number, number, number] = [0x0b, 0x0b, 0x14];
const LIGHT_BG: [number, number, number] = [0xfc, 0xfc, 0xfa];

describe("output formats of the event card", () => {
  for (const [format, decode, type] of [
    ["jpeg", async (b: Uint8Array) => decodeJpeg(b), "image/jpeg"],
    ["webp", decodeWebp, "image/webp"],
  ] as const) {
    test(`${format}: decodes to 1200×630 with the theme's background and the title's ink`, async () => {
      for (const [theme, bg] of [
        ["dark", DARK_BG],
        ["light", LIGHT_BG],
      ] as const) {
        const result = await render({ format, quality: 85, theme });
        expect(result.contentType).toBe(type);
        const image = await decode(result.bytes);
        expect([image.width, image.height]).toEqual([1200, 630]);
        // The bottom-right corner and the bottom band are plain background in both themes (lossy: a few levels off).
        expect(fractionNear(image, 1150, 590, 40, 30, bg, 8)).toBeGreaterThan(0.95);
        expect(fractionNear(image, 600, 560, 40, 30, bg, 8)).toBeGreaterThan(0.95);
        // The title is drawn: plenty of pixels far from the background where it sits.
        expect(countInk(image, 72, 200, 900, 250, bg, 60)).toBeGreaterThan(5_000);
        expect(pixelAt(image, 5, 5)[3]).toBe(255);
      }
    });
  }

  test("the lossy formats look like the PNG (mean error of a few levels) and are smaller", async () => {
    const png = await render({ format: "png" });
    const reference = decodePng(png.bytes);
    for (const format of ["jpeg", "webp"] as const) {
      const lossy = await render({ format, quality: 85 });
      expect(lossy.bytes.byteLength).toBeLessThan(png.bytes.byteLength);
      const image = await decodeAny(lossy.bytes);
      let total = 0;
      for (let i = 0; i < reference.pixels.length; i += 4) {
        for (let c = 0; c < 3; c++) total += Math.abs(reference.pixels[i + c]! - image.pixels[i + c]!);
      }
      expect(total / ((reference.pixels.length / 4) * 3)).toBeLessThan(4);
    }
  });

  test("quality trades size: 30 is smaller than 95, for JPEG and for WebP", async () => {
    for (const format of ["jpeg", "webp"] as const) {
      const low = await render({ format, quality: 30 });
      const high = await render({ format, quality: 95 });
      expect(low.bytes.byteLength).toBeLessThan(high.bytes.byteLength * 0.8);
    }
  });
});

describe("JPEG flattening", () => {
  test("a rounded card's transparent corners become its background colour in JPEG (they are transparent in PNG)", async () => {
    const fields = { title: "Rounded" };
    const png = decodePng(
      (await renderer.render(renderRequest(registry, { template: "rounded", theme: "dark", fields, width: 1200, height: 630, format: "png" }))).bytes,
    );
    expect(pixelAt(png, 2, 2)[3]).toBe(0);
    const jpeg = decodeJpeg(
      (await renderer.render(renderRequest(registry, { template: "rounded", theme: "dark", fields, width: 1200, height: 630, format: "jpeg", quality: 90 })))
        .bytes,
    );
    const corner = averageColour(jpeg, 0, 0, 12, 12);
    for (const [got, want] of corner.slice(0, 3).map((v, i) => [v, [0x33, 0x66, 0xcc][i]!])) expect(Math.abs(got! - want)).toBeLessThanOrEqual(6);
    // And the middle of the card is that colour too (flattening changed nothing that was opaque).
    expect(fractionNear(jpeg, 100, 280, 40, 40, [0x33, 0x66, 0xcc], 6)).toBeGreaterThan(0.95);
  });

  test("a card without a background colour is flattened on white, with its ink intact", async () => {
    const jpeg = decodeJpeg(
      (
        await renderer.render(
          renderRequest(registry, { template: "bare", theme: "dark", fields: { title: "Bare" }, width: 800, height: 400, format: "jpeg", quality: 90 }),
        )
      ).bytes,
    );
    expect(fractionNear(jpeg, 0, 0, 60, 60, [255, 255, 255], 4)).toBeGreaterThan(0.98);
    expect(fractionNear(jpeg, 250, 130, 300, 140, [0xd0, 0x20, 0x20], 40)).toBeGreaterThan(0.02);
  });

  test("flattenPremultiplied composites translucent pixels and leaves opaque ones", () => {
    // Premultiplied: half-transparent pure red is (128, 0, 0, 128).
    const px = new Uint8Array([128, 0, 0, 128, 0, 0, 0, 0, 10, 20, 30, 255]);
    flattenPremultiplied(px, [0, 0, 255]);
    expect([...px]).toEqual([128, 0, 127, 255, 0, 0, 255, 255, 10, 20, 30, 255]);
  });
});

describe("encodeImage", () => {
  test("refuses a quality outside 1–100 and a wrong pixel count", async () => {
    const px = new Uint8Array(16 * 16 * 4).fill(255);
    await expect(encodeImage(px, 16, 16, "jpeg", 0)).rejects.toThrow(/quality/);
    await expect(encodeImage(px, 16, 16, "webp", 101)).rejects.toThrow(/quality/);
    await expect(encodeImage(px, 16, 15, "png")).rejects.toThrow(/RGBA/);
  });

  test("a tiny solid image round-trips through every format", async () => {
    const px = new Uint8Array(32 * 32 * 4);
    for (let i = 0; i < px.length; i += 4) px.set([40, 160, 220, 255], i);
    for (const format of ["png", "jpeg", "webp"] as const) {
      const image = await decodeAny(await encodeImage(px.slice(), 32, 32, format, 90));
      expect(fractionNear(image, 0, 0, 32, 32, [40, 160, 220], 4)).toBe(1);
    }
  });
});
