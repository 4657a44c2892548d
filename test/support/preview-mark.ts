/**
 * What a preview's mark must do, measured against the same card drawn for real: which pixels
 * differ (the mark), what share of the image they are, and the regions of a given size that
 * hold none of them (a crop there would be a clean card).
 */
import type { DecodedPng } from "./png.ts";

/** 1 where `preview` differs from `real` by more than `threshold` in some channel (the same size). */
export function markMask(preview: DecodedPng, real: DecodedPng, threshold = 8): Uint8Array {
  if (preview.width !== real.width || preview.height !== real.height)
    throw new Error(`sizes differ: ${preview.width}×${preview.height} vs ${real.width}×${real.height}`);
  const mask = new Uint8Array(preview.width * preview.height);
  for (let p = 0; p < mask.length; p++) {
    const i = p * 4;
    const d = Math.max(
      Math.abs(preview.pixels[i]! - real.pixels[i]!),
      Math.abs(preview.pixels[i + 1]! - real.pixels[i + 1]!),
      Math.abs(preview.pixels[i + 2]! - real.pixels[i + 2]!),
    );
    if (d > threshold) mask[p] = 1;
  }
  return mask;
}

export interface MarkCoverage {
  /** The share of the image's pixels the mark changed. */
  share: number;
  /** The top-left corners of every `w×h` region (on a `step` grid, plus the ones flush with the right and bottom edges) with fewer than `atLeast` changed pixels. */
  clean: { x: number; y: number }[];
  /** How many regions were checked. */
  regions: number;
}

export function markCoverage(mask: Uint8Array, width: number, height: number, region: { w: number; h: number; step?: number; atLeast?: number }): MarkCoverage {
  // A summed-area table: any region's count in four reads.
  const sums = new Float64Array((width + 1) * (height + 1));
  let total = 0;
  for (let y = 0; y < height; y++) {
    let row = 0;
    for (let x = 0; x < width; x++) {
      row += mask[y * width + x]!;
      sums[(y + 1) * (width + 1) + x + 1] = sums[y * (width + 1) + x + 1]! + row;
    }
    total += row;
  }
  const count = (x: number, y: number, w: number, h: number) =>
    sums[(y + h) * (width + 1) + x + w]! - sums[y * (width + 1) + x + w]! - sums[(y + h) * (width + 1) + x]! + sums[y * (width + 1) + x]!;
  const w = Math.min(region.w, width);
  const h = Math.min(region.h, height);
  const step = region.step ?? 10;
  const positions = (size: number, extent: number) => {
    const at: number[] = [];
    for (let p = 0; p + extent <= size; p += step) at.push(p);
    if (at[at.length - 1] !== size - extent) at.push(size - extent);
    return at;
  };
  const clean: { x: number; y: number }[] = [];
  let regions = 0;
  for (const y of positions(height, h)) {
    for (const x of positions(width, w)) {
      regions++;
      if (count(x, y, w, h) < (region.atLeast ?? 1)) clean.push({ x, y });
    }
  }
  return { share: total / (width * height), clean, regions };
}
