/**
 * `ogsmith render --batch`: many request bodies, rendered on every core, streamed in and out.
 *
 * - Input: a JSON array or JSON lines, from a file or standard input ("-"), read element by
 *   element (json-stream.ts); nothing holds the whole batch. A file is read twice: a first pass
 *   counts the items and checks the JSON (so a broken file is a usage error before anything is
 *   written, and the progress bar knows its total), the second renders. Standard input is read
 *   once; a syntax error there stops the batch where it is found.
 * - Work: each body is validated on this thread (parseRenderRequest), its images fetched or
 *   decoded here, and the drawing done by the render worker pool (the service renderer of
 *   `ogsmith serve`, without its PNG cache), `--workers` threads (default: the core count).
 * - Output: each PNG is written as soon as it is done. At most `--concurrency` items (default
 *   2 × workers) are between read and written at once, so memory stays flat however long the
 *   batch is; only failures and the used file names are kept until the summary.
 */
import { createReadStream, mkdirSync } from "node:fs";
import { availableParallelism } from "node:os";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import type { Config } from "../config.ts";
import type { Logger } from "../logger.ts";
import { formatCodePoints } from "../render/render-front.ts";
import { createServiceRenderer } from "../render/renderer.ts";
import { parseRenderRequest } from "../render/request.ts";
import { prepareRendering } from "../render/setup.ts";
import { BatchSyntaxError, readBatchItems, type BatchItem, type BatchShape } from "./json-stream.ts";
import { UsageError } from "./output.ts";
import { attachTemplateFile, defaultToTemplateFile, type TemplateFile, withTemplateFile } from "./template-file.ts";
import { createProgress, describeFailure, displayPath, outputName, splitFilename } from "./render-items.ts";

export interface BatchOptions {
  batchPath: string;
  outDir: string;
  /** Render worker threads; default the core count. */
  workers?: number;
  /** Items read but not yet written, at most; default 2 × workers. */
  concurrency?: number;
  /** --template-file: an account template's definition the items may use (and get when they name none). */
  templateFile?: TemplateFile;
  logger: Logger;
}

const isLinesFile = (path: string) => /\.(jsonl|ndjson)$/i.test(path);

function source(batchPath: string): AsyncIterable<Uint8Array> {
  return batchPath === "-" ? Bun.stdin.stream() : createReadStream(batchPath, { highWaterMark: 64 * 1024 });
}

/**
 * Items of the batch in order. A lone value that is not an array is refused unless the file is
 * named as JSON lines: `{"title": …}` in items.json is far more likely a mistake than a batch of one.
 */
async function* batchItems(batchPath: string): AsyncGenerator<BatchItem> {
  let shape: BatchShape | undefined;
  let held: BatchItem | undefined;
  for await (const item of readBatchItems(source(batchPath), (s) => (shape = s))) {
    if (shape === "lines" && !isLinesFile(batchPath) && item.index === 0) {
      held = item;
      continue;
    }
    if (held) {
      yield held;
      held = undefined;
    }
    yield item;
  }
  if (held) throw new UsageError(`--batch ${batchPath} must contain a JSON array of request bodies (or JSON lines, one body per line)`);
}

/** The first pass over a file: how many items, and is it JSON at all. */
async function countItems(batchPath: string): Promise<number> {
  let count = 0;
  for await (const _ of batchItems(batchPath)) count++;
  return count;
}

const syntaxError = (batchPath: string, error: BatchSyntaxError) => new UsageError(`--batch ${batchPath} is not valid JSON: ${error.message}`);

export async function renderBatchStreaming(config: Config, options: BatchOptions): Promise<number> {
  const { batchPath, outDir, logger } = options;
  const workers = options.workers ?? availableParallelism();
  const concurrency = options.concurrency ?? 2 * workers;

  let total: number | undefined;
  if (batchPath !== "-") {
    try {
      total = await countItems(batchPath);
    } catch (error) {
      if (error instanceof BatchSyntaxError) throw syntaxError(batchPath, error);
      if (error instanceof UsageError) throw error;
      throw new UsageError(`Cannot read --batch ${batchPath}: ${(error as Error).message}`);
    }
  }

  const root = resolve(outDir);
  mkdirSync(root, { recursive: true });
  const { templates: registry } = await prepareRendering({ templatesDir: config.templatesDir, fontsDir: config.fontsDir, logger });
  const { templateFile } = options;
  const templates = templateFile ? withTemplateFile(registry, templateFile) : registry;
  // The server's renderer: images fetched through the same guard, drawing in worker threads.
  // No image caches (a batch seldom repeats itself, and they would hold images for nothing);
  // the queue is as long as the in-flight limit and waits as long as it takes, so the pool never
  // answers SERVER_BUSY here.
  const renderer = createServiceRenderer({
    config: { ...config, renderWorkers: workers, cacheDir: undefined },
    logger,
    pngCacheBytes: 0,
    // One user: the per-account share of workers (a server's protection of other accounts) would only halve the batch.
    pool: { maxQueue: concurrency, maxWaitMs: Number.POSITIVE_INFINITY, perAccountLimit: workers },
  });

  const started = performance.now();
  const failures: { index: number; reason: string }[] = [];
  let written = 0;
  let seen = 0;
  let stopped: UsageError | undefined;
  const progress = createProgress(total);
  // Names are settled in input order, so a clash is always reported on the later item.
  const claimed = new Map<string, number>();

  const fail = (index: number, reason: string) => {
    failures.push({ index, reason });
    progress.fail(index, reason);
  };

  async function renderItem({ index, value }: BatchItem): Promise<void> {
    const { body, filename } = splitFilename(value);
    const named = outputName(filename, body, index);
    if ("error" in named) return fail(index, named.error);
    let name = named.name;
    const owner = claimed.get(name.toLowerCase());
    if (owner !== undefined) {
      // A title-derived name that repeats gets the index; an explicit one is an error.
      if (filename !== undefined && filename !== null) return fail(index, `filename: "${name}" is already used by item ${owner}`);
      name = name.replace(/(\.[a-z]+)$/i, `-${index}$1`);
    }
    claimed.set(name.toLowerCase(), index);
    const path = join(root, name);
    // Belt and braces: whatever the checks above missed, nothing is written outside --out-dir.
    if (relative(root, path).startsWith(".." + sep) || isAbsolute(relative(root, path))) return fail(index, "filename: must stay inside --out-dir");
    try {
      const request = parseRenderRequest(templateFile ? defaultToTemplateFile(body, templateFile) : body, templates);
      const result = await renderer.render(templateFile ? attachTemplateFile(request, templateFile) : request);
      mkdirSync(dirname(path), { recursive: true });
      await Bun.write(path, result.bytes);
      written++;
      if (result.missingGlyphs?.length) {
        console.error(`ogsmith: warning: ${displayPath(path)}: characters no font has, drawn as boxes: ${formatCodePoints(result.missingGlyphs)}`);
      }
      progress.ok(index, displayPath(path));
    } catch (error) {
      fail(index, describeFailure(error));
    }
  }

  const inFlight = new Set<Promise<void>>();
  try {
    try {
      for await (const item of batchItems(batchPath)) {
        seen++;
        const task = renderItem(item).finally(() => inFlight.delete(task));
        inFlight.add(task);
        if (inFlight.size >= concurrency) await Promise.race(inFlight);
      }
    } catch (error) {
      // Only standard input gets here with bad JSON (a file was checked first): stop reading,
      // finish what is in flight, and say where the input broke.
      if (error instanceof BatchSyntaxError) stopped = syntaxError(batchPath, error);
      else if (error instanceof UsageError) stopped = error;
      else throw error;
    }
    await Promise.all(inFlight);
  } finally {
    progress.stop();
    await renderer.close();
  }

  const seconds = (performance.now() - started) / 1000;
  const rate = seconds > 0 ? written / seconds : 0;
  failures.sort((a, b) => a.index - b.index);
  console.log(
    `rendered ${written} of ${seen} image${seen === 1 ? "" : "s"} to ${outDir} in ${seconds.toFixed(2)} s (${rate.toFixed(1)} images/s) with ${workers} render worker${workers === 1 ? "" : "s"}`,
  );
  if (failures.length) {
    console.log(`failed ${failures.length}:`);
    for (const f of failures) console.log(`  item ${f.index}: ${f.reason}`);
  }
  if (stopped) throw stopped;
  return failures.length ? 1 : 0;
}
