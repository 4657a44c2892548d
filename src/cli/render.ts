/**
 * `ogsmith render`: render images with no server and no quota (static-site builds).
 *
 *   ogsmith render --json '<request body>' -o out.png
 *   ogsmith render --batch items.json --out-dir DIR [--workers N] [--concurrency N]
 *   ogsmith render --template-file DEF.json [-o out.png]   (its sample values)
 *
 * Bodies are validated exactly like POST /api/generate (parseRenderRequest); a batch item may
 * also carry `filename`. A bad item is reported by its index and the others still render.
 * Exit codes: 0 every image written, 1 at least one failed, 2 usage error (bad flags, the
 * --json or batch file is not JSON, the batch is neither an array nor JSON lines).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { parseArgs } from "node:util";
import type { Config } from "../config.ts";
import { ApiError } from "../errors.ts";
import type { Logger } from "../logger.ts";
import { RENDER_ENGINES, type RenderEngine } from "../render/engines/engine.ts";
import { createServiceRenderer, formatCodePoints } from "../render/renderer.ts";
import { parseRenderRequest } from "../render/request.ts";
import { prepareRendering } from "../render/setup.ts";
import type { Renderer } from "../render/types.ts";
import type { TemplateRegistry } from "../templates/registry.ts";
import { UsageError } from "./output.ts";
import {
  attachTemplateFile,
  defaultToTemplateFile,
  describeTemplateFileProblems,
  loadTemplateFile,
  type TemplateFile,
  withTemplateFile,
} from "./template-file.ts";
import { describeFailure, splitFilename } from "./render-items.ts";

export const RENDER_HELP = `Usage:
  ogsmith render --json '<request body>' -o out.png [--template-file DEF.json] [--engine satori|takumi]
  ogsmith render --batch items.json --out-dir DIR [--workers N] [--concurrency N] [--template-file DEF.json] [--engine satori|takumi]
  ogsmith render --template-file DEF.json [-o out.png] [--engine satori|takumi]

A request body is the JSON of POST /api/generate: {"template": "blog", "title": "…", …};
"format": "jpeg" or "webp" (with "quality", 1–100, default 85) writes that format instead of PNG.
--batch reads a JSON array of bodies, or JSON lines (one body per line; name the file .jsonl
to allow a single line), streamed ("-" reads standard input). Each may carry "filename"
(relative to --out-dir, ".png", ".jpg" or ".webp" added if missing); otherwise the file is
named after a slug of the title, or <index>.png. --json renders in this process; --batch on
--workers render threads (default: one per core) with at most --concurrency items in flight
(default 2 × workers), writing each image as it is done. No server, no API key, no quota.
OG_TEMPLATES_DIR and OG_FONTS_DIR apply as for \`ogsmith serve\`; --engine picks what draws
the images (default OG_RENDER_ENGINE, else satori; docs/engines.md).

--template-file renders an account template's definition (the JSON that GET /api/templates/{id}
returns, see docs/templates.md), validated as the API validates it; bodies that leave out
"template" use it, and a body that gives none of its fields gets its "sample" values. Without
--json or --batch it draws the sample values at 1200×630 to -o (default <id>.png). An invalid
definition is exit 1 with every problem and its line and column.

Exit status: 0 all rendered, 1 some failed (each reported by index), 2 usage error.`;

/** Plain lines on stderr for start-up warnings (a broken template, an unreadable font). */
function cliLogger(): Logger {
  const line = (fields?: Record<string, unknown>) =>
    fields
      ? " " +
        Object.entries(fields)
          .map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`)
          .join(" ")
      : "";
  return {
    debug() {},
    info() {},
    warn: (msg, fields) => console.error(`ogsmith: ${msg}:${line(fields)}`),
    error: (msg, fields) => console.error(`ogsmith: ${msg}:${line(fields)}`),
  };
}

/** http(s) image URLs go through the same guarded fetcher as the server; data: URIs are decoded locally. */
export async function runRender(config: Config, argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      json: { type: "string" },
      output: { type: "string", short: "o" },
      batch: { type: "string" },
      "out-dir": { type: "string" },
      concurrency: { type: "string" },
      workers: { type: "string" },
      engine: { type: "string" },
      "template-file": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    console.log(RENDER_HELP);
    return 0;
  }
  if (values.engine !== undefined) {
    if (!(RENDER_ENGINES as readonly string[]).includes(values.engine))
      throw new UsageError(`--engine must be one of ${RENDER_ENGINES.join(", ")}, got "${values.engine}"`);
    config = { ...config, renderEngine: values.engine as RenderEngine };
  }
  if (values.json !== undefined && values.batch !== undefined) throw new UsageError(`Use either --json or --batch, not both.\n\n${RENDER_HELP}`);
  // A template file alone is drawn with its sample values: the body is `{}`.
  const sampleOnly = values.json === undefined && values.batch === undefined && values["template-file"] !== undefined;
  if (values.json === undefined && values.batch === undefined && !sampleOnly) throw new UsageError(RENDER_HELP);
  if (values.json !== undefined && !values.output) throw new UsageError(`--json needs -o out.png.\n\n${RENDER_HELP}`);
  if (sampleOnly && values["out-dir"] !== undefined) throw new UsageError(`--out-dir goes with --batch; one image is written to -o.\n\n${RENDER_HELP}`);
  if (values.batch !== undefined && !values["out-dir"]) throw new UsageError(`--batch needs --out-dir DIR.\n\n${RENDER_HELP}`);
  let templateFile: TemplateFile | undefined;
  if (values["template-file"] !== undefined) {
    try {
      templateFile = loadTemplateFile(values["template-file"]);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      console.error(`ogsmith: --template-file ${values["template-file"]} is not a valid template definition:\n${describeTemplateFileProblems(error)}`);
      return 1;
    }
  }
  if (values.json !== undefined) return renderOne(config, values.json, values.output!, templateFile);
  if (sampleOnly && templateFile) return renderOne(config, "{}", values.output ?? `${templateFile.spec.id}.png`, templateFile);
  if (values.batch !== undefined) {
    const concurrency = values.concurrency === undefined ? undefined : Number(values.concurrency);
    if (concurrency !== undefined && (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 1024))
      throw new UsageError("--concurrency must be a whole number from 1 to 1024");
    const workers = values.workers === undefined ? undefined : Number(values.workers);
    if (workers !== undefined && (!Number.isInteger(workers) || workers < 1 || workers > 256))
      throw new UsageError("--workers must be a whole number from 1 to 256");
    const { renderBatchStreaming } = await import("./render-batch.ts");
    return renderBatchStreaming(config, { batchPath: values.batch, outDir: values["out-dir"]!, workers, concurrency, templateFile, logger: cliLogger() });
  }
  throw new UsageError(RENDER_HELP);
}

/**
 * The templates, and one render process to draw with: the CLI's renders run in the sandbox the
 * server's do (the deadline, the memory bound, a crash costing the render, not the command's
 * own error handling), from the same executable.
 */
async function setUp(config: Config): Promise<{ templates: TemplateRegistry; renderer: Renderer }> {
  const logger = cliLogger();
  const { templates } = await prepareRendering({ templatesDir: config.templatesDir, fontsDir: config.fontsDir, logger });
  const renderer = createServiceRenderer({
    config: { ...config, renderWorkers: 1, cacheDir: undefined },
    logger,
    pngCacheBytes: 0,
    // One card: no warm-up card first.
    pool: { warmUp: false, perAccountLimit: 1 },
  });
  return { templates, renderer };
}

async function renderOne(config: Config, json: string, output: string, templateFile: TemplateFile | undefined): Promise<number> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (error) {
    throw new UsageError(`--json is not valid JSON: ${(error as Error).message}`);
  }
  const { templates, renderer } = await setUp(config);
  try {
    const body = splitFilename(parsed).body;
    const request = templateFile
      ? attachTemplateFile(parseRenderRequest(defaultToTemplateFile(body, templateFile), withTemplateFile(templates, templateFile)), templateFile)
      : parseRenderRequest(body, templates);
    const result = await renderer.render(request);
    mkdirSync(dirname(resolve(output)), { recursive: true });
    writeFileSync(output, result.bytes);
    const kind = result.contentType.slice("image/".length).toUpperCase();
    console.log(`${output}: ${result.width}×${result.height} ${kind}, ${result.bytes.byteLength} bytes, ${result.generationTimeMs} ms`);
    if (result.missingGlyphs?.length) {
      console.error(`ogsmith: warning: ${result.missingGlyphs.length} character(s) no font has, drawn as boxes: ${formatCodePoints(result.missingGlyphs)}`);
    }
    return 0;
  } catch (error) {
    console.error(`ogsmith: render failed: ${describeFailure(error)}`);
    return 1;
  } finally {
    await renderer.close();
  }
}
