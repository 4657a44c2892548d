/**
 * One render worker (a Bun Worker thread) of the pool in pool.ts. It loads fonts and templates
 * once (prepareRendering: built-ins, OG_FONTS_DIR, OG_TEMPLATES_DIR — the same call the main
 * thread makes, so both know the same templates), warms satori up, and then renders one job
 * at a time: template → satori → resvg → PNG, JPEG or WebP, with images already fetched by the main thread
 * and handed over as data: URIs. No I/O happens here.
 *
 * Under `bun build --compile` this file must be an extra entrypoint of the build
 * (scripts/build.ts), or the binary has nothing to start.
 */
import { ApiError } from "../errors.ts";
import { silentLogger } from "../logger.ts";
import { renderTemplate, renderTemplateToPng } from "./engine.ts";
import type { WorkerInit, WorkerReply, WorkerRequest } from "./pool.ts";
import { prepareRendering, type RenderSetup } from "./setup.ts";

declare const self: Worker;

let setup: Promise<RenderSetup> | undefined;
let gcEvery = 0;
let sinceGc = 0;

const reply = (message: WorkerReply, transfer: Transferable[] = []) => self.postMessage(message, transfer);

async function init(message: WorkerInit): Promise<RenderSetup> {
  gcEvery = message.gcEvery;
  // The main thread already logged what the directories held; repeating it per worker is noise.
  const ready = await prepareRendering({ templatesDir: message.templatesDir, fontsDir: message.fontsDir, logger: silentLogger });
  if (message.warmUp) {
    // The first satori call parses every font and compiles yoga (~0.8 s); pay it now, not in a request.
    const template = ready.templates.get("event") ?? ready.templates.list()[0];
    if (template) {
      await renderTemplateToPng(template, { title: "warm-up" }, { width: 1200, height: 630, theme: "dark", images: {} }).catch(() => {});
      Bun.gc(true);
    }
  }
  return ready;
}

async function render(message: Extract<WorkerRequest, { type: "render" }>): Promise<void> {
  const { job } = message;
  let outcome: { message: WorkerReply; transfer: Transferable[] };
  try {
    const { templates } = await setup!;
    const template = templates.get(job.template);
    if (!template) throw new ApiError("UNKNOWN_TEMPLATE", `Unknown template: ${job.template}.`);
    const { bytes, timings } = await renderTemplate(template, job.fields, {
      width: job.width,
      height: job.height,
      theme: job.theme,
      images: job.images,
      format: job.format,
      quality: job.quality,
    });
    outcome = { message: { type: "done", id: message.id, bytes, timings }, transfer: [bytes.buffer as ArrayBuffer] };
  } catch (error) {
    outcome = {
      message: {
        type: "failed",
        id: message.id,
        error:
          error instanceof ApiError
            ? { code: error.code, message: error.message, details: error.details }
            : { message: error instanceof Error ? error.message : String(error), stack: error instanceof Error ? error.stack : undefined },
      },
      transfer: [],
    };
  }
  await releaseNativeMemory();
  reply(outcome.message, outcome.transfer);
}

/**
 * resvg-js keeps each render's pixmap (≈3 MB at 1200×630, more for larger sizes) in native
 * memory that only the finalizer of its JS wrapper frees. Left alone that happens late: the JS
 * heap barely grows per render, so the GC seldom runs, and finalizers run from the event loop,
 * which a busy worker reaches only between jobs. So after each render: leave the render's call
 * stack (JSC scans stacks conservatively, and a GC called from inside the render keeps the
 * wrappers it just used alive), collect, and turn the event loop once more so finalizers run
 * before the answer lets the next job in. Young-generation collections are cheap; a full one
 * every `gcEvery` renders sweeps what got promoted.
 *
 * Measured: 2 workers, concurrency 8, 400 event cards, RSS of the process (pool only):
 * no GC 300–330 MB, peaks past 500 MB; GC from inside the render 210–290 MB; this ~200–215 MB,
 * peak ~240 MB. A full GC after every render holds ~185 MB but costs ~15 ms of CPU per render;
 * every 32nd costs next to nothing.
 */
async function releaseNativeMemory(): Promise<void> {
  if (gcEvery <= 0) return;
  await nextTask();
  if (++sinceGc >= gcEvery) {
    sinceGc = 0;
    Bun.gc(true);
  } else {
    Bun.gc(false);
  }
  await nextTask();
}

const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));

self.onmessage = (event: MessageEvent<WorkerRequest>) => {
  const message = event.data;
  if (message.type === "init") {
    setup = init(message);
    setup.then(
      (ready) => reply({ type: "ready", templates: ready.templates.list().map((t) => t.id) }),
      (error) => reply({ type: "init_failed", message: error instanceof Error ? error.message : String(error) }),
    );
  } else if (message.type === "render") {
    void render(message);
  }
};

