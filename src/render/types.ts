/**
 * The render interface the HTTP face and the CLI call: in-process (engine.ts, the CLI) or through
 * the worker pool, caches and image fetching (renderer.ts, the server), behind one interface.
 */
import type { Theme } from "../templates/types.ts";

export type ImageFormat = "png";

export interface RenderRequest {
  template: string;
  theme: Theme;
  /** Validated template fields (text and image URLs), already trimmed of unknown names. */
  fields: Record<string, string | undefined>;
  width: number;
  height: number;
  format: ImageFormat;
}

export interface RenderResult {
  bytes: Uint8Array;
  contentType: "image/png";
  width: number;
  height: number;
  /** Wall time spent producing the image, in ms. */
  generationTimeMs: number;
  /** True when the bytes came from the rendered-image cache. */
  cached: boolean;
  /** Code points no font has (drawn as a box): sent as X-Missing-Glyphs, logged by name. */
  missingGlyphs?: number[];
}

export interface Renderer {
  render(request: RenderRequest): Promise<RenderResult>;
  close(): Promise<void>;
}

export const DEFAULT_WIDTH = 1200;
export const DEFAULT_HEIGHT = 630;
