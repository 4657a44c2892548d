/**
 * A render process: loads fonts and templates once (prepareRendering: built-ins, OG_FONTS_DIR,
 * OG_TEMPLATES_DIR, the same call the serving process makes, so both know the same templates),
 * warms its engine up, then renders one job at a time: template → satori → resvg (or takumi) →
 * PNG, JPEG or WebP, with images already fetched by the serving process and handed over as
 * data: URIs. No I/O happens here, and the network is taken away before anything else loads.
 * An account's own template arrives as its plain-JSON definition and is compiled here, once per
 * account, id and version.
 *
 * It keeps nothing worth losing: the serving process kills it at a render's deadline, when its
 * memory passes the bound, and replaces it (pool.ts). It ends with the serving process too,
 * even in the middle of native code (dieWithParent).
 */
// First: nothing imported after it can reach the network.
import "./no-network.ts";
import { LRUCache } from "lru-cache";
import { ApiError, toPlainError } from "../../errors.ts";
import { silentLogger } from "../../logger.ts";
import type { TemplateDefinition } from "../../templates/types.ts";
import type { RenderEngine } from "../engines/engine.ts";
import { renderTemplate } from "../engines/in-process.ts";
import { loadLayout } from "../engines/satori.ts";
import { layoutModule } from "../engines/layout-wasm.ts";
import { withPreviewMark } from "../preview-mark.ts";
import { prepareRendering, type RenderSetup } from "../setup.ts";
import { createMemoryUpkeep } from "./worker-memory.ts";
import { FontCache } from "./font-cache.ts";
import { libc } from "./libc.ts";
import { PARENT_PID_ENV, type RenderJob, type RenderProcessInit, type RenderProcessReply, type RenderProcessRequest } from "./protocol.ts";

export interface RenderProcessHooks {
  /** Runs before each render, in this process (test fixtures: a render that hangs, spins or crashes). */
  beforeRender?(job: RenderJob): void | Promise<void>;
}

export function runRenderProcess(hooks: RenderProcessHooks = {}): void {
  if (!process.send) throw new Error("a render process is started by ogsmith serve, with an IPC channel");
  dieWithParent();
  // The serving process closed the channel (it stopped, or was killed while this one was idle).
  process.on("disconnect", () => process.exit(0));
  const reply = (message: RenderProcessReply) => process.send!(message);
  let setup: Promise<RenderSetup> | undefined;
  let engine: RenderEngine | undefined;
  /** Between a render and its answer: collect what the render left (see worker-memory.ts). */
  let releaseNativeMemory = async (): Promise<void> => {};
  /** Account fonts held here, and the renders waiting for bytes the serving process is sending. */
  const fontCache = new FontCache();
  const fontWaits = new Map<number, () => void>();

  /** Asks the serving process for the font files `job` names that this process lacks, and waits for them. */
  async function fetchFonts(id: number, job: RenderJob): Promise<void> {
    if (!job.fonts) return;
    const missing = fontCache.missing(job.fonts);
    if (missing.length > 0) {
      await new Promise<void>((resolve) => {
        fontWaits.set(id, resolve);
        reply({ type: "fonts_needed", id, digests: missing });
      });
    }
    fontCache.trim(new Set(job.fonts.faces.map((face) => face.digest)));
  }

  async function init(message: RenderProcessInit): Promise<RenderSetup> {
    engine = message.engine;
    releaseNativeMemory = createMemoryUpkeep({ fullEvery: message.gcEvery });
    // satori's layout engine (yoga, wasm) is only instantiated where satori draws.
    if (engine !== "takumi") await (await loadLayout()).initLayout(await layoutModule());
    // The serving process already logged what the directories held; repeating it per process is noise.
    const ready = await prepareRendering({ templatesDir: message.templatesDir, fontsDir: message.fontsDir, logger: silentLogger });
    if (message.warmUp) {
      // The first satori call parses every font and compiles yoga (~0.8 s); pay it now, not in a request.
      const template = ready.templates.get("event") ?? ready.templates.list()[0];
      if (template) {
        await renderTemplate(template, { title: "warm-up" }, { width: 1200, height: 630, theme: "dark", images: {}, engine }).catch(() => {});
        Bun.gc(true);
      }
    }
    libc()?.trim();
    return ready;
  }

  async function render(id: number, job: RenderJob): Promise<void> {
    let outcome: RenderProcessReply;
    try {
      const { templates } = await setup!;
      await hooks.beforeRender?.(job);
      const found = job.accountTemplate ? await accountDefinition(job.accountTemplate) : templates.get(job.template);
      if (!found) throw new ApiError("UNKNOWN_TEMPLATE", `Unknown template: ${job.template}.`);
      const template = job.preview ? withPreviewMark(found, job) : found;
      await fetchFonts(id, job);
      const cardFonts = job.fonts ? await fontCache.cardFonts(job.fonts) : undefined;
      const { bytes, timings, missingGlyphs } = await renderTemplate(template, job.fields, {
        cardFonts,
        width: job.width,
        height: job.height,
        theme: job.theme,
        images: job.images,
        format: job.format,
        quality: job.quality,
        engine,
      });
      outcome = { type: "done", id, bytes, timings, missingGlyphs };
    } catch (error) {
      outcome = { type: "failed", id, error: toPlainError(error) };
    }
    await releaseNativeMemory();
    libc()?.trim();
    reply(outcome);
  }

  process.on("message", (message: RenderProcessRequest) => {
    if (message.type === "init") {
      setup = init(message);
      setup.then(
        (ready) => reply({ type: "ready", templates: ready.templates.list().map((t) => t.id) }),
        (error) => reply({ type: "init_failed", message: error instanceof Error ? error.message : String(error) }),
      );
    } else if (message.type === "render") {
      void render(message.id, message.job);
    } else if (message.type === "fonts") {
      for (const { digest, data } of message.fonts) fontCache.add(digest, data);
      fontWaits.get(message.id)?.();
      fontWaits.delete(message.id);
    }
  });
}

/**
 * Compiled account templates, by account, id, version and revision (a saved version never
 * changes; the revision tells apart a template deleted and created again, whose versions start
 * over), the 64 most recently used. An unsaved definition (version 0 without a revision, a
 * preview) is compiled each time: the editor sends a new one with every keystroke.
 */
const accountDefinitions = new LRUCache<string, TemplateDefinition>({ max: 64 });

/**
 * The template language (≈ 30 MB of parsers and tables) loads with the first account template,
 * not at start: a process that draws only built-in templates stays small.
 */
let language: Promise<typeof import("../../templates/account/index.ts")> | undefined;

async function accountDefinition(source: NonNullable<RenderJob["accountTemplate"]>): Promise<TemplateDefinition> {
  const { accountTemplateDefinition } = await (language ??= import("../../templates/account/index.ts"));
  if (source.version <= 0 && !source.revision) return accountTemplateDefinition(source.spec);
  const key = JSON.stringify([source.accountId, source.spec.id, source.version, source.revision ?? Bun.hash(JSON.stringify(source.spec)).toString(16)]);
  let definition = accountDefinitions.get(key);
  if (!definition) {
    definition = accountTemplateDefinition(source.spec);
    accountDefinitions.set(key, definition);
  }
  return definition;
}

/**
 * A render process must not outlive the serving process: one killed with SIGKILL while this
 * process loops in native code would leave it burning a core for good. On Linux the kernel
 * sends SIGKILL when the parent dies (PR_SET_PDEATHSIG); elsewhere the closed IPC channel ends
 * an idle process, and a busy one ends when its render does.
 */
function dieWithParent(): void {
  libc()?.dieWithParent();
  // The parent died before the request took effect: this process was already handed to another.
  const parent = Number(process.env[PARENT_PID_ENV]);
  if (parent > 0 && process.ppid !== parent) process.exit(0);
}
