/**
 * The render pool with real render processes (sandbox/process-main.ts): concurrent renders at
 * several sizes, the bounded queue, a crashed or stuck process replaced, close().
 * Misbehaving templates come from a temp OG_TEMPLATES_DIR, loaded by each process like any
 * disk template.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ApiError } from "../../../src/errors.ts";
import { silentLogger } from "../../../src/logger.ts";
import { RenderPool, type RenderJob } from "../../../src/render/sandbox/pool.ts";
import { ManualTimers } from "../../support/manual-timers.ts";
import { decodePng } from "../../support/png.ts";
import { waitFor } from "../../support/wait.ts";

let templatesDir: string;

// process.exit ends the render process; an endless loop never answers (it says first, by a
// file, that it is in the loop).
const misbehavingTemplate = (hangingFile: string) => `
import { writeFileSync } from "node:fs";
export default {
  id: "misbehave",
  description: "Crashes or hangs on request (pool tests).",
  fields: [{ name: "title", type: "text", required: true }],
  render(fields, ctx) {
    if (fields.title === "crash") process.exit(7);
    if (fields.title === "hang") {
      writeFileSync(${JSON.stringify(hangingFile)}, "");
      for (;;) {}
    }
    return { type: "div", props: { style: { display: "flex", width: ctx.width, height: ctx.height, backgroundColor: "#123456" }, children: [] } };
  },
};
`;

beforeAll(() => {
  templatesDir = mkdtempSync(join(tmpdir(), "ogsmith-pool-templates-"));
  writeFileSync(join(templatesDir, "misbehave.ts"), misbehavingTemplate(join(templatesDir, "hanging")));
});
afterAll(() => rmSync(templatesDir, { recursive: true, force: true }));

const job = (overrides: Partial<RenderJob> = {}): RenderJob => ({
  template: "event",
  theme: "dark",
  fields: { title: "Pool test" },
  images: {},
  width: 1200,
  height: 630,
  ...overrides,
});

async function rejection(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

describe("RenderPool", () => {
  test("renders valid PNGs concurrently, each at its requested size", async () => {
    const pool = new RenderPool({ workers: 2, logger: silentLogger, warmUp: false });
    try {
      const sizes = [
        [1200, 630],
        [200, 200],
        [630, 1200],
        [2400, 1260],
        [800, 418],
        [1200, 630],
      ] as const;
      const results = await Promise.all(
        sizes.map(([width, height], i) => pool.render(job({ width, height, theme: i % 2 ? "light" : "dark", fields: { title: `Card ${i}` } }))),
      );
      results.forEach(({ bytes: png }, i) => {
        const decoded = decodePng(png);
        expect([decoded.width, decoded.height]).toEqual([...sizes[i]!]);
      });
      expect(pool.stats).toMatchObject({ workers: 2, rendered: sizes.length, busy: 0, queued: 0, replaced: 0 });
    } finally {
      await pool.close();
    }
  });

  test("a full queue fails fast with SERVER_BUSY and Retry-After; admitted jobs still finish", async () => {
    const pool = new RenderPool({ workers: 1, maxQueue: 1, logger: silentLogger, warmUp: false });
    try {
      await pool.ready();
      const jobs = Array.from({ length: 5 }, (_, i) => pool.render(job({ fields: { title: `Burst ${i}` } })));
      const settled = await Promise.allSettled(jobs);
      // One running, one waiting; the other three refused at once.
      expect(settled.map((s) => s.status)).toEqual(["fulfilled", "fulfilled", "rejected", "rejected", "rejected"]);
      for (const s of settled.slice(2)) {
        const error = (s as PromiseRejectedResult).reason as ApiError;
        expect(error).toBeInstanceOf(ApiError);
        expect(error.code).toBe("SERVER_BUSY");
        expect(error.status).toBe(503);
        expect(error.retryAfterSeconds).toBe(1); // the HTTP layer sends it as Retry-After: 1
      }
      // Capacity is back once the queue drained.
      expect(decodePng((await pool.render(job())).bytes).width).toBe(1200);
    } finally {
      await pool.close();
    }
  });

  test("a render process that dies mid-render fails that job with 422 RENDER_FAILED and is replaced", async () => {
    const pool = new RenderPool({ workers: 1, logger: silentLogger, templatesDir, warmUp: false });
    try {
      const queuedBehind = pool.render(job({ fields: { title: "after the crash" } }));
      const crashed = pool.render(job({ template: "misbehave", fields: { title: "crash" } }));
      // Order: the first job was dispatched first; the crash is queued behind it.
      expect(decodePng((await queuedBehind).bytes).width).toBe(1200);
      const error = await rejection(crashed);
      expect(error.code).toBe("RENDER_FAILED");
      expect(error.status).toBe(422);
      expect(pool.stats.restarts).toEqual({ deadline: 0, memory: 0, crash: 1 });

      // The replacement serves both the disk template and the built-ins.
      const again = await pool.render(job({ template: "misbehave", fields: { title: "fine" } }));
      expect(decodePng(again.bytes).width).toBe(1200);
      expect(pool.stats.replaced).toBe(1);
      expect(pool.stats.ready).toBe(1);
    } finally {
      await pool.close();
    }
  });

  test("jobs waiting behind a crash are served by the replacement process", async () => {
    const pool = new RenderPool({ workers: 1, logger: silentLogger, templatesDir, warmUp: false });
    try {
      await pool.ready();
      const crashed = pool.render(job({ template: "misbehave", fields: { title: "crash" } }));
      const waiting = [1, 2, 3].map((i) => pool.render(job({ fields: { title: `waiting ${i}` } })));
      expect((await rejection(crashed)).code).toBe("RENDER_FAILED");
      for (const result of await Promise.all(waiting)) expect(decodePng(result.bytes).height).toBe(630);
    } finally {
      await pool.close();
    }
  });

  test("a render that overruns the deadline is killed with its process: 422 RENDER_FAILED", async () => {
    // The bound is fired by the test once the render is in its endless loop: on real time it
    // would also race the next, ordinary render, which a loaded machine can make slow.
    const timers = new ManualTimers();
    const pool = new RenderPool({ workers: 1, logger: silentLogger, templatesDir, warmUp: false, timeoutMs: 7_000, timers });
    try {
      await pool.ready();
      const hung = pool.render(job({ template: "misbehave", fields: { title: "hang" } }));
      await waitFor(() => existsSync(join(templatesDir, "hanging")), "the render to enter its endless loop");
      expect(timers.pending).toEqual([7_000]);
      timers.fire(7_000);
      const error = await rejection(hung);
      expect(error.code).toBe("RENDER_FAILED");
      expect(error.message).toContain("7 s");
      expect(pool.stats.replaced).toBe(1);
      // The replacement serves the next job, whose own bound was armed and is cleared.
      expect(decodePng((await pool.render(job())).bytes).width).toBe(1200);
      expect(timers.set).toEqual([7_000, 7_000]);
      expect(timers.pending).toEqual([]);
      expect(pool.stats).toMatchObject({ replaced: 1, rendered: 1, restarts: { deadline: 1, memory: 0, crash: 0 } });
    } finally {
      await pool.close();
    }
  });

  test("a template error inside the render process is an ordinary failure; the process survives", async () => {
    const pool = new RenderPool({ workers: 1, logger: silentLogger, warmUp: false });
    try {
      const error = await rejection(pool.render(job({ template: "no-such-template" })));
      expect(error.code).toBe("UNKNOWN_TEMPLATE");
      expect(decodePng((await pool.render(job())).bytes).width).toBe(1200);
      expect(pool.stats.replaced).toBe(0);
    } finally {
      await pool.close();
    }
  });

  test("close() ends the render processes and refuses new work", async () => {
    const pool = new RenderPool({ workers: 2, logger: silentLogger, warmUp: false });
    await pool.ready();
    const pids = pool.pids;
    await pool.close();
    for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow();
    expect((await rejection(pool.render(job()))).code).toBe("SERVER_BUSY");
    expect(pool.stats.ready).toBe(0);
  });

  test("render processes that cannot start make the pool fail jobs instead of respawning forever", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ogsmith-pool-broken-"));
    try {
      const script = join(dir, "broken-render-process.ts");
      writeFileSync(script, `throw new Error("cannot start");\n`);
      const pool = new RenderPool({ workers: 1, logger: silentLogger, command: [process.execPath, script] });
      try {
        await expect(pool.ready()).rejects.toThrow(/cannot start/);
        expect((await rejection(pool.render(job()))).code).toBe("INTERNAL_ERROR");
      } finally {
        await pool.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
