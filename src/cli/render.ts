/**
 * `ogsmith render`: render images with no server and no quota (static-site builds).
 *
 *   ogsmith render --json '<request body>' -o out.png
 *   ogsmith render --batch items.json --out-dir DIR [--workers N] [--concurrency N]
 *
 * Bodies are validated exactly like POST /api/generate (parseRenderRequest); a batch item may
 * also carry `filename`. A bad item is reported by its index and the others still render.
 * Exit codes: 0 every image written, 1 at least one failed, 2 usage error (bad flags, the
 * --json or batch file is not JSON, the batch is neither an array nor JSON lines).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, relative, resolve } from "node:path";
import { parseArgs } from "node:util";
import cliProgress from "cli-progress";
import type { Config } from "../config.ts";
import { ApiError } from "../errors.ts";
import type { Logger } from "../logger.ts";
import { EXTENSIONS, IMAGE_FORMATS, type ImageFormat } from "../render/encode.ts";
import { createInProcessRenderer, type ImageLoader } from "../render/engine.ts";
import { formatCodePoints } from "../render/renderer.ts";
import { fetchImage } from "../render/fetch-image.ts";
import { parseRenderRequest } from "../render/request.ts";
import { prepareRendering } from "../render/setup.ts";
import type { Renderer } from "../render/types.ts";
import type { TemplateRegistry } from "../templates/registry.ts";
import { UsageError } from "./output.ts";
import { attachTemplateFile, defaultToTemplateFile, describeTemplateFileProblems, loadTemplateFile, type TemplateFile, withTemplateFile } from "./template-file.ts";

export const RENDER_HELP = `Usage:
  ogsmith render --json '<request body>' -o out.png [--template-file DEF.json]
  ogsmith render --batch items.json --out-dir DIR [--workers N] [--concurrency N] [--template-file DEF.json]

A request body is the JSON of POST /api/generate: {"template": "blog", "title": "…", …};
"format": "jpeg" or "webp" (with "quality", 1–100, default 85) writes that format instead of PNG.
--batch reads a JSON array of bodies, or JSON lines (one body per line; name the file .jsonl
to allow a single line), streamed ("-" reads standard input). Each may carry "filename"
(relative to --out-dir, ".png", ".jpg" or ".webp" added if missing); otherwise the file is
named after a slug of the title, or <index>.png. --json renders in this process; --batch on
--workers render threads (default: one per core) with at most --concurrency items in flight
(default 2 × workers), writing each image as it is done. No server, no API key, no quota.
OG_TEMPLATES_DIR and OG_FONTS_DIR apply as for \`ogsmith serve\`.

--template-file renders an account template's definition (the JSON that GET /api/templates/{id}
returns, see docs/templates.md), validated as the API validates it; bodies that leave out
"template" use it. An invalid definition is exit 1 with every problem and its line and column.

Exit status: 0 all rendered, 1 some failed (each reported by index), 2 usage error.`;

/** Plain lines on stderr for start-up warnings (a broken template, an unreadable font). */
function cliLogger(): Logger {
  const line = (fields?: Record<string, unknown>) =>
    fields ? " " + Object.entries(fields).map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`).join(" ") : "";
  return {
    debug() {},
    info() {},
    warn: (msg, fields) => console.error(`ogsmith: ${msg}:${line(fields)}`),
    error: (msg, fields) => console.error(`ogsmith: ${msg}:${line(fields)}`),
  };
}

/** http(s) image URLs go through the same guarded fetcher as the server; data: URIs are decoded locally. */
function imageLoader(config: Config): ImageLoader {
  return async (url, field) => (await fetchImage(field, url, { allowPrivate: config.allowPrivateNetworks })).dataUri;
}

/** One line per problem: "title: is required; colour: is not a field of the event template". */
export function describeFailure(error: unknown): string {
  if (error instanceof ApiError) {
    const details = (error.details ?? []).map((d) => `${d.field}: ${d.message}`);
    return details.length ? details.join("; ") : error.message;
  }
  return error instanceof Error ? error.message : String(error);
}

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
      "template-file": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    console.log(RENDER_HELP);
    return 0;
  }
  if (values.json !== undefined && values.batch !== undefined) throw new UsageError(`Use either --json or --batch, not both.\n\n${RENDER_HELP}`);
  if (values.json === undefined && values.batch === undefined) throw new UsageError(RENDER_HELP);
  if (values.json !== undefined && !values.output) throw new UsageError(`--json needs -o out.png.\n\n${RENDER_HELP}`);
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
  if (values.batch !== undefined) {
    const concurrency = values.concurrency === undefined ? undefined : Number(values.concurrency);
    if (concurrency !== undefined && (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 1024)) throw new UsageError("--concurrency must be a whole number from 1 to 1024");
    const workers = values.workers === undefined ? undefined : Number(values.workers);
    if (workers !== undefined && (!Number.isInteger(workers) || workers < 1 || workers > 256)) throw new UsageError("--workers must be a whole number from 1 to 256");
    const { renderBatchStreaming } = await import("./render-batch.ts");
    return renderBatchStreaming(config, { batchPath: values.batch, outDir: values["out-dir"]!, workers, concurrency, templateFile, logger: cliLogger() });
  }
  throw new UsageError(RENDER_HELP);
}

async function setUp(config: Config): Promise<{ templates: TemplateRegistry; renderer: Renderer }> {
  const { templates } = await prepareRendering({ templatesDir: config.templatesDir, fontsDir: config.fontsDir, logger: cliLogger() });
  return { templates, renderer: createInProcessRenderer({ loadImage: imageLoader(config) }) };
}

/** Removes `filename` (a batch-only key) so validation sees exactly an API body. */
export function splitFilename(body: unknown): { body: unknown; filename: unknown } {
  if (typeof body !== "object" || body === null || Array.isArray(body) || !("filename" in body)) return { body, filename: undefined };
  const { filename, ...rest } = body as Record<string, unknown>;
  return { body: rest, filename };
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

/** Lowercase ASCII words joined by "-", at most 80 characters; "" when nothing is left (e.g. an all-Cyrillic title). */
export function slugify(text: string): string {
  return text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 80)
    .replace(/-+$/, "");
}

/**
 * The file an item is written to, relative to the output directory, or why it cannot be.
 * An explicit filename may name a sub-directory but never leave the output directory.
 */
export function outputName(filename: unknown, body: unknown, index: number): { name: string } | { error: string } {
  // The extension follows the body's format (an invalid format fails validation later anyway).
  const format = typeof body === "object" && body !== null ? (body as Record<string, unknown>).format : undefined;
  const ext = IMAGE_FORMATS.includes(format as ImageFormat) ? EXTENSIONS[format as ImageFormat] : "png";
  if (filename === undefined || filename === null) {
    const title = typeof body === "object" && body !== null ? (body as Record<string, unknown>).title : undefined;
    const slug = typeof title === "string" ? slugify(title) : "";
    return { name: `${slug || index}.${ext}` };
  }
  if (typeof filename !== "string" || filename.trim() === "") return { error: "filename: must be a non-empty string" };
  if (filename.includes("\0") || filename.includes("\\")) return { error: "filename: must not contain NUL or backslashes" };
  if (isAbsolute(filename)) return { error: "filename: must be relative to --out-dir" };
  if (filename.split("/").some((part) => part === ".." || part === "." || part === "")) return { error: "filename: must not contain '.', '..' or empty path segments" };
  if (filename.length > 255) return { error: "filename: must be at most 255 characters" };
  const extPattern = ext === "jpg" ? /\.jpe?g$/i : new RegExp(`\\.${ext}$`, "i");
  return { name: extPattern.test(filename) ? filename : `${filename}.${ext}` };
}

/** Relative to the working directory when under it, else absolute. */
export function displayPath(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel && !rel.startsWith("..") && !isAbsolute(rel) ? rel : path;
}

/**
 * Progress on stderr: a bar on a terminal, one plain line per item otherwise (CI logs, pipes).
 * `total` is unknown when the batch streams in from standard input: then plain lines, "[n/?]".
 */
export function createProgress(total: number | undefined) {
  if (process.stderr.isTTY && total !== undefined) {
    const bar = new cliProgress.SingleBar(
      { stream: process.stderr, format: "rendering [{bar}] {value}/{total} | {failed} failed | {eta_formatted} left", hideCursor: true, clearOnComplete: false },
      cliProgress.Presets.shades_classic,
    );
    bar.start(total, 0, { failed: 0 });
    let failed = 0;
    return {
      ok: (_index: number, _file: string) => bar.increment(),
      fail: (_index: number, _reason: string) => bar.increment({ failed: ++failed }),
      stop: () => bar.stop(),
    };
  }
  let done = 0;
  const width = String(total ?? "").length;
  const prefix = () => `[${String(++done).padStart(width)}/${total ?? "?"}]`;
  return {
    ok: (index: number, file: string) => console.error(`${prefix()} #${index} ok ${file}`),
    fail: (index: number, reason: string) => console.error(`${prefix()} #${index} FAILED ${reason}`),
    stop: () => {},
  };
}
