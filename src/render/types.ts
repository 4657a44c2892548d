/**
 * The render interface the HTTP face and the CLI call: in-process for the CLI (engines/in-process.ts), a
 * worker pool with caches and image fetching for the service (renderer.ts).
 */
import type { AccountTemplateSpec } from "../templates/account/index.ts";
import type { RenderFonts } from "./fonts/account-fonts.ts";
import type { TemplateDefinition, Theme } from "../templates/types.ts";
import type { ImageContentType, ImageFormat } from "./output/encode.ts";

export type { ImageFormat } from "./output/encode.ts";

/** A validated generation request: only `parseRenderRequest` (request.ts) makes one. */
export interface RenderRequest {
  /** The template's id: what cache keys, logs and the render worker (which has its own registry) use. */
  template: string;
  /**
   * The template itself, found when the request was validated, so a renderer never looks it up
   * again. Not part of the cache key and never sent to a worker thread (functions cannot cross).
   */
  definition: TemplateDefinition;
  theme: Theme;
  /** Validated template fields (text and image URLs), already trimmed of unknown names. */
  fields: Record<string, string | undefined>;
  width: number;
  height: number;
  format: ImageFormat;
  /** 1–100 for jpeg and webp (default 85 is filled in by validation); undefined for png. */
  quality?: number;
  /**
   * Set only when the request names one of the account's own templates: the version drawn, and
   * its definition (plain JSON, which a render worker turns into the template). The account, the
   * id and the version are part of the content address.
   */
  accountTemplate?: {
    accountId: string;
    version: number;
    spec: AccountTemplateSpec;
    /**
     * SHA-256 of the stored definition. Also in the content address: a template deleted and
     * created again under the same id starts at version 1 again, and must not meet the cached
     * images of the one before.
     */
    revision?: string;
  };
  /**
   * The fonts an account template names beyond Inter (render/fonts/account-fonts.ts): the account's own
   * faces, by digest (part of the content address), and the bundled serif or monospace family.
   */
  fonts?: RenderFonts;
  /** A preview (render/preview.ts: capped size, PREVIEW mark); never shares a cache entry with a real render. */
  preview?: boolean;
  /**
   * The account that asked, where there is one: a render of its that is killed or crashes counts
   * against it (render/sandbox/offenders.ts). Not part of the content address.
   */
  requester?: string;
}

export interface RenderResult {
  bytes: Uint8Array;
  contentType: ImageContentType;
  width: number;
  height: number;
  /** Wall time spent producing the image, in ms. */
  generationTimeMs: number;
  /** SHA-256 (hex) of everything that decides the bytes, when the renderer computes one (the service's cache key). */
  contentAddress?: string;
  /** True when the bytes came from the rendered-image cache. */
  cached: boolean;
  /** Code points no font has (drawn as a box): sent as X-Missing-Glyphs, logged by name. */
  missingGlyphs?: number[];
}

export interface Renderer {
  render(request: RenderRequest): Promise<RenderResult>;
  /**
   * The answer from the in-memory cache when it is there and needs nothing fetched (no image
   * fields): synchronous, no side effects besides the caches' own recency. Lets a repeated
   * request be counted in one store transaction instead of a reservation and a confirmation.
   */
  cached?(request: RenderRequest): RenderResult | undefined;
  close(): Promise<void>;
}

export const DEFAULT_WIDTH = 1200;
export const DEFAULT_HEIGHT = 630;
