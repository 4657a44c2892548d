/**
 * One render worker (a Bun Worker thread) of the pool in pool.ts. It loads fonts and templates
 * once (prepareRendering: built-ins, OG_FONTS_DIR, OG_TEMPLATES_DIR — the same call the main
 * thread makes, so both know the same templates), warms satori up, and then renders one job
 * at a time: template → satori → resvg → PNG, JPEG or WebP, with images already fetched by the main thread
 * and handed over as data: URIs. No I/O happens here, and the network is taken away before
 * anything else loads (no-network.ts). An account's own template arrives as its plain-JSON
 * definition and is compiled here, once per account, id and version.
 *
 * Under `bun build --compile` this file must be an extra entrypoint of the build
 * (scripts/build.ts), or the binary has nothing to start.
 */
// First: nothing imported after it can reach the network.
import "./no-network.ts";
import { ApiError, toPlainError } from "../errors.ts";
import { accountTemplateDefinition } from "../templates/account/index.ts";
import type { TemplateDefinition } from "../templates/types.ts";
import { silentLogger } from "../logger.ts";
import { loadLayout, renderTemplate, type RenderEngine } from "./engine.ts";
import type { RenderJob, WorkerInit, WorkerReply, WorkerRequest } from "./pool.ts";
import { withPreviewMark } from "./preview.ts";
import { prepareRendering, type RenderSetup } from "./setup.ts";
import { createMemoryUpkeep } from "./worker-memory.ts";

declare const self: Worker;

let setup: Promise<RenderSetup> | undefined;
/** What draws this worker's cards (OG_RENDER_ENGINE), from the init message. */
let engine: RenderEngine | undefined;

const reply = (message: WorkerReply, transfer: Transferable[] = []) => self.postMessage(message, transfer);

async function init(message: WorkerInit): Promise<RenderSetup> {
  engine = message.engine;
  releaseNativeMemory = createMemoryUpkeep({ fullEvery: message.gcEvery });
  // satori's layout engine (yoga, wasm) is only instantiated where satori draws.
  if (engine !== "takumi") await (await loadLayout()).initLayout(message.layout);
  // The main thread already logged what the directories held; repeating it per worker is noise.
  const ready = await prepareRendering({ templatesDir: message.templatesDir, fontsDir: message.fontsDir, logger: silentLogger });
  if (message.warmUp) {
    // The first satori call parses every font and compiles yoga (~0.8 s); pay it now, not in a request.
    const template = ready.templates.get("event") ?? ready.templates.list()[0];
    if (template) {
      await renderTemplate(template, { title: "warm-up" }, { width: 1200, height: 630, theme: "dark", images: {}, engine }).catch(() => {});
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
    const found = job.accountTemplate ? accountDefinition(job.accountTemplate) : templates.get(job.template);
    if (!found) throw new ApiError("UNKNOWN_TEMPLATE", `Unknown template: ${job.template}.`);
    const template = job.preview ? withPreviewMark(found, job) : found;
    const { bytes, timings, missingGlyphs } = await renderTemplate(template, job.fields, {
      width: job.width,
      height: job.height,
      theme: job.theme,
      images: job.images,
      format: job.format,
      quality: job.quality,
      engine,
    });
    outcome = { message: { type: "done", id: message.id, bytes, timings, missingGlyphs }, transfer: [bytes.buffer as ArrayBuffer] };
  } catch (error) {
    outcome = { message: { type: "failed", id: message.id, error: toPlainError(error) }, transfer: [] };
  }
  await releaseNativeMemory();
  reply(outcome.message, outcome.transfer);
}

/**
 * Compiled account templates, by account, id, version and revision (a saved version never
 * changes; the revision tells apart a template deleted and created again, whose versions start
 * over), the most recently used last. An unsaved definition (version 0 without a revision, a
 * preview) is compiled each time: the editor sends a new one with every keystroke.
 */
const accountDefinitions = new Map<string, TemplateDefinition>();
const MAX_ACCOUNT_DEFINITIONS = 64;

function accountDefinition(source: NonNullable<RenderJob["accountTemplate"]>): TemplateDefinition {
  if (source.version <= 0 && !source.revision) return accountTemplateDefinition(source.spec);
  const key = JSON.stringify([source.accountId, source.spec.id, source.version, source.revision ?? Bun.hash(JSON.stringify(source.spec)).toString(16)]);
  let definition = accountDefinitions.get(key);
  if (definition) accountDefinitions.delete(key);
  else definition = accountTemplateDefinition(source.spec);
  accountDefinitions.set(key, definition);
  if (accountDefinitions.size > MAX_ACCOUNT_DEFINITIONS) accountDefinitions.delete(accountDefinitions.keys().next().value!);
  return definition;
}

/** Between a render and its answer: collect what the render left (see worker-memory.ts). */
let releaseNativeMemory = async (): Promise<void> => {};

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

