import { describe, expect, test } from "bun:test";
import { Resvg } from "@resvg/resvg-js";
import { encodePng, unpremultiply } from "../../../src/render/output/png.ts";
import { decodePng } from "../../support/png.ts";

describe("encodePng", () => {
  test("round-trips arbitrary RGBA pixels exactly", () => {
    const width = 37;
    const height = 23;
    const rgba = new Uint8Array(width * height * 4);
    // A deterministic mix of noise, flat runs and gradients exercises both filters.
    let seed = 1;
    for (let i = 0; i < rgba.length; i++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      rgba[i] = i % 3 === 0 ? seed & 0xff : (i >> 4) & 0xff;
    }
    const decoded = decodePng(encodePng(rgba, width, height));
    expect([decoded.width, decoded.height]).toEqual([width, height]);
    expect(Buffer.from(decoded.pixels).equals(Buffer.from(rgba))).toBe(true);
  });

  // Real sizes (the default card, a large one), one after another: no encode may see another's
  // bytes or change an earlier result.
  test("encodes one image after another, of any size, each exactly", () => {
    const noise = (width: number, height: number, seed: number) => {
      const rgba = new Uint8Array(width * height * 4);
      for (let i = 0; i < rgba.length; i++) {
        seed = (seed * 1103515245 + 12345) & 0x7fffffff;
        rgba[i] = seed >> 16;
      }
      return { rgba, width, height };
    };
    const images = [noise(1200, 630, 1), noise(300, 200, 2), noise(1100, 1000, 3), noise(1200, 630, 4), noise(7, 5, 5)];
    const encoded = images.map(({ rgba, width, height }) => encodePng(rgba, width, height));
    const copies = encoded.map((png) => Buffer.from(png));
    encodePng(noise(1200, 630, 6).rgba, 1200, 630);
    images.forEach(({ rgba, width, height }, i) => {
      expect(Buffer.from(encoded[i]!).equals(copies[i]!)).toBe(true);
      const decoded = decodePng(encoded[i]!);
      expect([decoded.width, decoded.height]).toEqual([width, height]);
      expect(Buffer.from(decoded.pixels).equals(Buffer.from(rgba))).toBe(true);
    });
  });

  test("gives the same pixels as resvg's own encoder", () => {
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="120" height="80"><defs><linearGradient id="g"><stop offset="0" stop-color="#8B5CF6"/><stop offset="1" stop-color="#EC4899" stop-opacity="0.4"/></linearGradient></defs><rect width="120" height="80" fill="url(#g)"/><circle cx="60" cy="40" r="30" fill="#fff" fill-opacity="0.5"/></svg>`;
    const image = new Resvg(svg, { font: { loadSystemFonts: false } }).render();
    const theirs = decodePng(image.asPng());
    const ours = decodePng(encodePng(unpremultiply(image.pixels), image.width, image.height));
    let maxDiff = 0;
    for (let i = 0; i < ours.pixels.length; i++) maxDiff = Math.max(maxDiff, Math.abs(ours.pixels[i] - theirs.pixels[i]));
    // Un-premultiplying semi-transparent pixels may round differently by one step.
    expect(maxDiff).toBeLessThanOrEqual(1);
  });

  test("rejects a pixel buffer of the wrong size", () => {
    expect(() => encodePng(new Uint8Array(10), 2, 2)).toThrow();
  });
});
