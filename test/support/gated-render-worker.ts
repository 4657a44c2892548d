/**
 * The real render worker (src/render/render-worker.ts) with a test-only hook in front, for the
 * pool's tenant rules: a job of an account template whose id starts with
 *   - "slow" spins its thread for a minute, as a render stuck in layout or rasterizing would
 *     (only terminating the worker ends it);
 *   - "native" blocks its thread in a native call for 8 s (Bun.sleepSync), which terminating the
 *     worker does not interrupt, as resvg rasterizing is not: the thread ends only afterwards;
 *   - "hold" writes `<gate dir>/started-<title>` and blocks its thread until
 *     `<gate dir>/release-<title>` exists (or 20 s pass), then renders normally.
 * "slow" and "native" write `<gate dir>/started-<title>` first too, so that a test can fire the
 * bound once the render is really stuck. The gate directory is the template's `description` (a
 * worker does not see environment changes made after the process started). Any other job whose title is `hold:<path>` writes
 * `<path>.started` and blocks until `<path>.release` exists (or 20 s pass). Every other job goes
 * straight to the real worker.
 */
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import "../../src/render/render-worker.ts";
import type { WorkerRequest } from "../../src/render/pool.ts";

declare const self: Worker;

const real = self.onmessage!;
const pause = new Int32Array(new SharedArrayBuffer(4));

self.onmessage = (event: MessageEvent<WorkerRequest>) => {
  const message = event.data;
  if (message.type === "render" && message.job.accountTemplate) {
    const id = message.job.accountTemplate.spec.id;
    const gate = message.job.accountTemplate.spec.description;
    const title = message.job.fields.title ?? "untitled";
    const signalStart = () => {
      if (gate.startsWith("/")) writeFileSync(join(gate, `started-${title}`), "");
    };
    if (id.startsWith("native")) {
      signalStart();
      Bun.sleepSync(8_000);
    } else if (id.startsWith("slow")) {
      signalStart();
      const deadline = Date.now() + 60_000;
      while (Date.now() < deadline) Atomics.wait(pause, 0, 0, 5);
    } else if (id.startsWith("hold") && gate.startsWith("/")) {
      writeFileSync(join(gate, `started-${title}`), "");
      const deadline = Date.now() + 20_000;
      while (!existsSync(join(gate, `release-${title}`)) && Date.now() < deadline) Atomics.wait(pause, 0, 0, 2);
    }
  }
  const title = message.type === "render" ? message.job.fields.title : undefined;
  if (message.type === "render" && !message.job.accountTemplate && title?.startsWith("hold:")) {
    const path = title.slice("hold:".length);
    writeFileSync(`${path}.started`, "");
    const deadline = Date.now() + 20_000;
    while (!existsSync(`${path}.release`) && Date.now() < deadline) Atomics.wait(pause, 0, 0, 2);
  }
  real.call(self, event);
};
