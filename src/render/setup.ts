/**
 * What every process or worker that renders does once at start-up: register the fallback
 * fonts of OG_FONTS_DIR and build the template registry (built-ins, then OG_TEMPLATES_DIR).
 * `ogsmith serve`, `ogsmith render` and each render worker call this with the same settings,
 * so they all draw the same glyphs and know the same templates.
 */
import type { Logger } from "../logger.ts";
import { loadTemplatesFromDir, type TemplateLoadError } from "../templates/loader.ts";
import { createTemplateRegistry, type TemplateRegistry } from "../templates/registry.ts";
import { useExtraFonts, type ExtraFontsReport } from "./fonts/fonts.ts";

export interface RenderSetupOptions {
  templatesDir?: string;
  fontsDir?: string;
  logger: Logger;
}

export interface RenderSetup {
  templates: TemplateRegistry;
  /** Template files that were skipped, with why (already logged). */
  templateErrors: TemplateLoadError[];
  fonts: ExtraFontsReport;
}

export async function prepareRendering({ templatesDir, fontsDir, logger }: RenderSetupOptions): Promise<RenderSetup> {
  const fonts = useExtraFonts(fontsDir);
  for (const skipped of fonts.skipped) logger.warn("font skipped", skipped);
  for (const note of fonts.notes) logger.warn("font loaded with a limit", note);
  if (fontsDir) logger.info("fallback fonts loaded", { dir: fontsDir, count: fonts.loaded.length });

  const templates = createTemplateRegistry();
  let templateErrors: TemplateLoadError[] = [];
  if (templatesDir) {
    const result = await loadTemplatesFromDir(
      templatesDir,
      logger,
      templates.list().map((t) => t.id),
    );
    for (const t of result.loaded) templates.add(t);
    templateErrors = result.errors;
  }
  return { templates, templateErrors, fonts };
}
