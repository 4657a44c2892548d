/**
 * What the serving process and a render process say to each other over the IPC channel (Bun's
 * "advanced" serialization: structured clones, so image bytes travel as Uint8Array).
 */
import type { PlainError } from "../../errors.ts";
import type { Theme } from "../../templates/types.ts";
import type { ImageFormat } from "../output/encode.ts";
import type { RenderEngine, RenderTimings } from "../engines/engine.ts";
import type { RenderFonts } from "../fonts/account-fonts.ts";
import type { RenderRequest } from "../types.ts";

/** What a render process needs to draw one image: images are already data: URIs. */
export interface RenderJob {
  template: string;
  theme: Theme;
  fields: Record<string, string | undefined>;
  images: Record<string, string | undefined>;
  width: number;
  height: number;
  /** Encoding happens in the render process too. Default png. */
  format?: ImageFormat;
  /** 1–100 for jpeg and webp. */
  quality?: number;
  /**
   * An account's own template: the render process builds its definition from this plain-JSON
   * spec (`template` is then the spec's id). `version` 0 is an unsaved definition (a preview).
   */
  accountTemplate?: RenderRequest["accountTemplate"];
  /** Draw it as a preview, with the PREVIEW mark (preview.ts). */
  preview?: boolean;
  /**
   * The account's fonts the card names, by digest, and the bundled serif or monospace family. A
   * render process asks for the bytes of a digest it does not hold ("fonts_needed").
   */
  fonts?: RenderFonts;
}

export interface RenderProcessInit {
  type: "init";
  templatesDir: string | undefined;
  fontsDir: string | undefined;
  /** Force a full GC every this many renders (0: never). */
  gcEvery: number;
  warmUp: boolean;
  /** What draws the cards (OG_RENDER_ENGINE); absent: satori. */
  engine?: RenderEngine;
}

export type RenderProcessRequest =
  | RenderProcessInit
  | { type: "render"; id: number; job: RenderJob }
  /** The answer to "fonts_needed": the bytes of each digest found (one missing is absent; the render then fails). */
  | { type: "fonts"; id: number; fonts: { digest: string; data: Uint8Array }[] };

export type RenderProcessReply =
  | { type: "ready"; templates: string[] }
  | { type: "init_failed"; message: string }
  | { type: "done"; id: number; bytes: Uint8Array; timings: RenderTimings; missingGlyphs: number[] }
  | { type: "failed"; id: number; error: PlainError }
  /** Render `id` names font files this process does not hold: the serving process sends them ("fonts"). */
  | { type: "fonts_needed"; id: number; digests: string[] };

/** The argument that starts the executable as a render process (not a public command). */
export const RENDER_PROCESS_ARG = "__render-process";

/** The environment variable that tells a render process its parent's pid (see dieWithParent). */
export const PARENT_PID_ENV = "OG_RENDER_PARENT_PID";
