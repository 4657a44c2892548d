/**
 * Which render engine the render tests draw with: `OG_TEST_ENGINE=takumi bun test …` runs the
 * same files on takumi (the CI's second pass over the render tests); satori otherwise.
 */
import { RENDER_ENGINES, type RenderEngine } from "../../src/render/engines/engine.ts";
import type { DecodedPng } from "./png.ts";

export function testEngine(): RenderEngine {
  const name = process.env.OG_TEST_ENGINE?.trim() || "satori";
  if (!(RENDER_ENGINES as readonly string[]).includes(name)) throw new Error(`OG_TEST_ENGINE must be one of ${RENDER_ENGINES.join(", ")}, got "${name}"`);
  return name as RenderEngine;
}

/** How far apart two images of one size are: the mean absolute channel difference (RGB, 0–255) and the share of pixels with a channel more than `far` apart. */
export function imageDistance(a: DecodedPng, b: DecodedPng, far = 48): { mean: number; farShare: number } {
  if (a.width !== b.width || a.height !== b.height) throw new Error(`sizes differ: ${a.width}×${a.height} vs ${b.width}×${b.height}`);
  let sum = 0;
  let farPixels = 0;
  for (let i = 0; i < a.pixels.length; i += 4) {
    let worst = 0;
    for (let c = 0; c < 3; c++) {
      const d = Math.abs(a.pixels[i + c]! - b.pixels[i + c]!);
      sum += d;
      if (d > worst) worst = d;
    }
    if (worst > far) farPixels++;
  }
  const pixels = a.width * a.height;
  return { mean: sum / (pixels * 3), farShare: farPixels / pixels };
}
