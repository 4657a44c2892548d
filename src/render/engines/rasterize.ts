/**
 * SVG → pixels with resvg, where the rasterizer's own failure is the request's answer and
 * never the server's end.
 *
 * resvg (the 0.3x inside @resvg/resvg-js) panics on some inputs: a clipped, masked, filtered
 * or translucent layer lying entirely more than twice the canvas size away from it (a
 * `transform: scale(10)` around an image, a very wide translucent box whose text lands far to
 * the right, or such a group inside an SVG image field). Layout cannot rule that out, and a
 * fetched SVG can say anything. A binding that throws (an SVG resvg cannot read) becomes 422
 * RENDER_FAILED here, nothing counted. The binding we pin, 2.6.2 (the release with native
 * modules for every platform ogsmith ships), lets a panic abort the process that draws, not
 * throw; the 2.7.0-alpha.2 binding caught it but publishes Linux x64 only. docs/rendering.md
 * says what that means for the server.
 */
import type { Resvg as ResvgClass } from "@resvg/resvg-js";
import { ApiError } from "../../errors.ts";

/**
 * The binding, loaded on the first rasterization (a takumi render worker never needs it), so that
 * a binary or platform with no native module for it says so plainly (the binding's own message
 * blames npm). Each release binary embeds its own target's module (scripts/native.ts).
 */
let resvg: typeof ResvgClass | undefined;
export function loadResvg(): typeof ResvgClass {
  if (resvg) return resvg;
  try {
    resvg = (require("@resvg/resvg-js") as typeof import("@resvg/resvg-js")).Resvg;
    return resvg;
  } catch (error) {
    throw new Error(
      `resvg's native module (@resvg/resvg-js) is not available to this ${process.platform}-${process.arch} process (a release binary embeds its own target's only, and ogsmith --version names that target; docs/operations.md, Release binaries). ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

export interface Rasterized {
  pixels: Uint8Array;
  width: number;
  height: number;
}

/** Draws `svg` at its own width and height; `background` is painted first when given. */
export function rasterize(svg: string, background?: string): Rasterized {
  const Resvg = loadResvg();
  try {
    const image = new Resvg(svg, { font: { loadSystemFonts: false }, fitTo: { mode: "original" }, ...(background ? { background } : {}) }).render();
    return { pixels: image.pixels, width: image.width, height: image.height };
  } catch {
    // resvg's own words name its internals (`Option::unwrap()`), not anything the caller wrote;
    // the panic itself is already on stderr (Rust's panic hook prints it).
    throw new ApiError(
      "RENDER_FAILED",
      "The card could not be drawn: the renderer refused its layout (a clipped, masked or translucent part far outside the canvas is one cause).",
    );
  }
}
