/**
 * The real render process (src/render/sandbox/process-main.ts) with a test-only hook in front,
 * for the pool's rules. A job of an account template whose id starts with
 *   - "slow" spins for a minute, as a render stuck in layout or rasterizing would (only killing
 *     the process ends it);
 *   - "hog" takes `<title>` MB of memory (touched, so it is resident) and then spins;
 *   - "abort" aborts the process (SIGABRT), as a native panic built with panic = "abort" does;
 *   - "takumi-panic" hands takumi a tree it panics on (a clip-path under scale(1e9), which the
 *     template language refuses today): takumi is built with panic = "abort", so the process ends;
 *   - "hold" writes `<gate dir>/started-<title>` and blocks until `<gate dir>/release-<title>`
 *     exists (or 20 s pass), then renders normally.
 * Each writes `<gate dir>/started-<title>` first (with its pid in it) when the template's
 * `description` is a directory, so that a test can act once the render is really under way. Any
 * other job whose title is `hold:<path>` writes `<path>.started` and blocks until `<path>.release`
 * exists (or 20 s pass). Every other job goes straight to the real render process.
 */
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** The command line that starts this fixture as a render process (RenderPoolOptions.command). */
export const GATED_PROCESS = [process.execPath, new URL(import.meta.url).pathname];

const pause = new Int32Array(new SharedArrayBuffer(4));
const spin = (ms: number) => {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) Atomics.wait(pause, 0, 0, 5);
};
const blockUntil = (path: string) => {
  const deadline = Date.now() + 20_000;
  while (!existsSync(path) && Date.now() < deadline) Atomics.wait(pause, 0, 0, 2);
};
/** Held here so the collector cannot give it back. */
const hogged: Uint8Array[] = [];

// Imported only when run: the render process module takes the network away from whoever loads it.
if (import.meta.main) {
  const { runRenderProcess } = await import("../../src/render/sandbox/process-main.ts");
  runRenderProcess({
    async beforeRender(job) {
      const title = job.fields.title ?? "untitled";
      if (job.accountTemplate) {
        const id = job.accountTemplate.spec.id;
        const gate = job.accountTemplate.spec.description;
        const signalStart = () => {
          if (gate.startsWith("/")) writeFileSync(join(gate, `started-${title}`), String(process.pid));
        };
        if (id.startsWith("slow")) {
          signalStart();
          spin(60_000);
        } else if (id.startsWith("hog")) {
          signalStart();
          const block = new Uint8Array(Number(title) * 1024 * 1024);
          block.fill(1);
          hogged.push(block);
          spin(60_000);
        } else if (id.startsWith("takumi-panic")) {
          signalStart();
          const { loadTakumiNative } = await import("../../src/render/engines/takumi-native.ts");
          const tree = {
            type: "container",
            style: { display: "flex", width: "100%", height: "100%" },
            children: [
              { type: "container", style: { width: 100, height: 100, backgroundColor: "red", transform: "scale(1000000000)", clipPath: "circle(40%)" } },
            ],
          };
          await new (loadTakumiNative().Renderer)().render(JSON.stringify(tree), { width: 1200, height: 630, format: "png" });
        } else if (id.startsWith("abort")) {
          signalStart();
          process.abort();
        } else if (id.startsWith("hold") && gate.startsWith("/")) {
          signalStart();
          blockUntil(join(gate, `release-${title}`));
        }
        return;
      }
      if (title.startsWith("hold:")) {
        const path = title.slice("hold:".length);
        writeFileSync(`${path}.started`, String(process.pid));
        blockUntil(`${path}.release`);
      }
    },
  });
}
