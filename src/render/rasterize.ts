/**
 * SVG → pixels with resvg, where the rasterizer's own failure is the request's answer and
 * never the server's end.
 *
 * resvg (the 0.3x inside @resvg/resvg-js) panics on some inputs: a clipped, masked, filtered
 * or translucent layer lying entirely more than twice the canvas size away from it (a
 * `transform: scale(10)` around an image, a very wide translucent box whose text lands far to
 * the right, or such a group inside an SVG image field). Layout cannot rule that out, and a
 * fetched SVG can say anything, so it is handled here, where it happens: the binding we pin
 * (2.7.0-alpha.2) catches the panic and throws, and that becomes 422 RENDER_FAILED, nothing
 * counted. The 2.6.x bindings let the panic abort the whole process, every worker thread and
 * every account with it; docs/rendering.md says why that version is pinned.
 */
import type { Resvg as ResvgClass } from "@resvg/resvg-js";
import { ApiError } from "../errors.ts";

/**
 * The binding, loaded on the first rasterization (a takumi render worker never needs it), so that
 * a platform it has no native module for says so plainly: the pinned alpha publishes Linux x64
 * (glibc and musl) only, and the binding's own message blames npm.
 */
let resvg: typeof ResvgClass | undefined;
function loadResvg(): typeof ResvgClass {
  if (resvg) return resvg;
  try {
    resvg = (require("@resvg/resvg-js") as typeof import("@resvg/resvg-js")).Resvg;
    return resvg;
  } catch (error) {
    throw new Error(
      `ogsmith draws with @resvg/resvg-js 2.7.0-alpha.2, which has native modules for Linux x64 (glibc and musl) only; this is ${process.platform}-${process.arch} (docs/rendering.md, Render workers). ${error instanceof Error ? error.message : String(error)}`,
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
