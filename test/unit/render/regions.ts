/** Region comparisons shared by the template and script pixel tests (not a test file itself). */
import { pixelAt, type DecodedPng } from "../../support/png.ts";

/** Largest per-channel difference between two same-sized renders inside a rectangle. */
export function maxDiff(a: DecodedPng, b: DecodedPng, x: number, y: number, w: number, h: number): number {
  let max = 0;
  for (let yy = y; yy < y + h; yy++) {
    for (let xx = x; xx < x + w; xx++) {
      const i = (yy * a.width + xx) * 4;
      for (let k = 0; k < 3; k++) max = Math.max(max, Math.abs(a.pixels[i + k] - b.pixels[i + k]));
    }
  }
  return max;
}

/** Pixels in a rectangle whose channels spread by more than `spread` (colour, not grey or navy-on-white). */
export function countSaturated(png: DecodedPng, x: number, y: number, w: number, h: number, spread = 80): number {
  let n = 0;
  for (let yy = y; yy < y + h; yy++) {
    for (let xx = x; xx < x + w; xx++) {
      const [r, g, b] = pixelAt(png, xx, yy);
      if (Math.max(r, g, b) - Math.min(r, g, b) > spread) n++;
    }
  }
  return n;
}

/** Pixels in a rectangle that differ from `background` by more than `tolerance` in some channel: the "ink". */
export function countInk(png: DecodedPng, x: number, y: number, w: number, h: number, background: [number, number, number], tolerance = 40): number {
  let n = 0;
  for (let yy = y; yy < y + h; yy++) {
    for (let xx = x; xx < x + w; xx++) {
      const [r, g, b] = pixelAt(png, xx, yy);
      if (Math.abs(r - background[0]) > tolerance || Math.abs(g - background[1]) > tolerance || Math.abs(b - background[2]) > tolerance) n++;
    }
  }
  return n;
}

export const luminance = ([r, g, b]: number[]) => 0.2126 * r + 0.7152 * g + 0.0722 * b;
