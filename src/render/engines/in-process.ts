/**
 * The in-process renderer: one card drawn in this thread by the engine a render names (satori
 * unless told otherwise). A single `ogsmith render`, the benchmarks and the pixel tests call it
 * directly; the render processes of `ogsmith serve` (../sandbox/process-main.ts) run
 * `renderTemplate` for each job. The only file that knows both engines.
 */
import type { SatoriNode, TemplateDefinition } from "../../templates/types.ts";
import { loadFonts } from "../fonts/fonts.ts";
import { CONTENT_TYPES } from "../output/encode.ts";
import { withPreviewMark } from "../preview-mark.ts";
import type { RenderRequest, RenderResult, Renderer } from "../types.ts";
import {
  cardBackground,
  dataUriOnlyLoader,
  layoutSize,
  resolveImages,
  type ImageLoader,
  type RenderedImage,
  type RenderEngine,
  type RenderOptions,
  type RenderTimings,
} from "./engine.ts";
import { renderWithSatori } from "./satori.ts";
import { renderWithTakumi } from "./takumi.ts";

/** Renders to PNG (the original pipeline; benchmarks compare against it). */
export async function renderTemplateToPng(
  template: TemplateDefinition,
  fields: Record<string, string | undefined>,
  options: Omit<RenderOptions, "format" | "quality">,
): Promise<{ png: Uint8Array; timings: RenderTimings; missingGlyphs: number[] }> {
  const { bytes, timings, missingGlyphs } = await renderTemplate(template, fields, { ...options, format: "png" });
  return { png: bytes, timings, missingGlyphs };
}

/**
 * Renders one template with already-resolved images to image bytes of exactly width×height in
 * the requested format. Exposed on its own so benchmarks and workers can call the pipeline
 * without the registry.
 */
export async function renderTemplate(template: TemplateDefinition, fields: Record<string, string | undefined>, options: RenderOptions): Promise<RenderedImage> {
  const logical = layoutSize(options.width, options.height, template.canvas);
  if (options.engine === "takumi") {
    const background =
      options.format === "jpeg"
        ? cardBackground(
            template.render(fields, {
              width: logical.width,
              height: logical.height,
              theme: options.theme,
              images: options.images,
              fontNames: options.cardFonts?.names,
            }) as SatoriNode,
          )
        : undefined;
    return renderWithTakumi(template, fields, { ...options, logical, background });
  }
  return renderWithSatori(template, fields, { ...options, logical });
}

export interface InProcessRendererOptions {
  loadImage?: ImageLoader;
  /** Default satori. */
  engine?: RenderEngine;
}

export function createInProcessRenderer(options: InProcessRendererOptions = {}): Renderer {
  const loadImage = options.loadImage ?? dataUriOnlyLoader;
  // Start reading fonts now so the first request doesn't pay for it.
  void loadFonts();

  return {
    async render(request: RenderRequest): Promise<RenderResult> {
      const started = performance.now();
      const template = request.preview ? withPreviewMark(request.definition, request) : request.definition;
      const { width, height } = request;
      const images = await resolveImages(request.fields, template, loadImage);
      const { bytes, missingGlyphs } = await renderTemplate(template, request.fields, {
        width,
        height,
        theme: request.theme,
        images,
        format: request.format,
        quality: request.quality,
        engine: options.engine,
      });
      return {
        missingGlyphs,
        bytes,
        contentType: CONTENT_TYPES[request.format],
        width,
        height,
        generationTimeMs: Math.round(performance.now() - started),
        cached: false,
      };
    },
    async close() {},
  };
}
