/**
 * The render pool's rules for accounts' own templates, with real render processes: the definition
 * travels as plain JSON and is compiled in the process (its design canvas honoured); a render over
 * the 5 s deadline is killed with its process (422 RENDER_FAILED); one account's renders hold at
 * most half of the processes; bursts wait by expected time, not by a fixed count, and memory is
 * bounded.
 *
 * Slow and held renders come from a test-only hook in front of the real render process
 * (test/support/gated-render-process.ts), not from templates that happen to be heavy. Bounds
 * are fired by the tests (ManualTimers) once the render they stop is stuck, except in the one
 * test of the real 5 s: a bound on real time also races every ordinary render after it, which
 * a loaded machine can make slower than any bound short enough for a test.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ApiError } from "../../../src/errors.ts";
import { createLogger, silentLogger } from "../../../src/logger.ts";
import { BACKGROUND_NICE, RenderPool, type RenderJob, type RenderPoolOptions } from "../../../src/render/sandbox/pool.ts";
import { parseAccountTemplate } from "../../../src/templates/account/index.ts";
import { ManualTimers } from "../../support/manual-timers.ts";
import { GATED_PROCESS } from "../../support/gated-render-process.ts";
import { processExists } from "../../support/process-tree.ts";
import { decodePng, fractionNear } from "../../support/png.ts";
import { waitFor } from "../../support/wait.ts";

let gateDir: string;
const started = (title: string) => existsSync(join(gateDir, `started-${title}`));
const release = (title: string) => writeFileSync(join(gateDir, `release-${title}`), "");

beforeAll(() => {
  gateDir = mkdtempSync(join(tmpdir(), "ogsmith-pool-gate-"));
});
afterAll(() => rmSync(gateDir, { recursive: true, force: true }));

const BLUE: [number, number, number] = [0, 0, 255];
const RED: [number, number, number] = [255, 0, 0];

/** A flat card: a red box of half the canvas width on blue, on the given design canvas. */
function spec(id: string, canvas: { width: number; height: number } = { width: 1200, height: 630 }) {
  return parseAccountTemplate({
    id,
    // The hook's gate directory (see gated-render-process.ts).
    description: gateDir,
    width: canvas.width,
    height: canvas.height,
    fields: [{ name: "title", type: "text" }],
    html: `<div style="display: flex; width: 100%; height: 100%; background-color: #0000ff"><div style="width: ${canvas.width / 2}px; height: 100%; background-color: #ff0000"></div></div>`,
  });
}

function tenantJob(account: string, id: string, title: string, overrides: Partial<RenderJob> = {}): RenderJob {
  return {
    template: id,
    theme: "dark",
    fields: { title },
    images: {},
    width: 400,
    height: 210,
    accountTemplate: { accountId: account, version: 1, spec: spec(id) },
    ...overrides,
  };
}

const builtIn = (title: string): RenderJob => ({ template: "event", theme: "dark", fields: { title }, images: {}, width: 400, height: 210 });

/** A process's nice value, from /proc (field 19 of its stat line). */
function niceOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]);
}

async function rejection(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

/** Held renders wait for the test: no bound fires unless the test fires it (pass `timers` to). */
function gatedPool(options: Partial<RenderPoolOptions> & { workers: number }): RenderPool {
  return new RenderPool({ logger: silentLogger, warmUp: false, command: GATED_PROCESS, timers: new ManualTimers(), ...options });
}

/** The default deadline of a render. */
const BOUND_MS = 5_000;

describe("account templates in the pool", () => {
  test("the spec crosses as JSON and is drawn by the render process, on its own design canvas", async () => {
    // Bounds fired by hand only: a cold 1200×1200 render must not race the 5 s on a loaded machine.
    const pool = new RenderPool({ workers: 1, logger: silentLogger, warmUp: false, timers: new ManualTimers() });
    try {
      // A square 600×600 design drawn at 1200×1200: the red half stays the left half.
      const square = spec("square", { width: 600, height: 600 });
      const job = tenantJob("acc_a", "square", "x", { width: 1200, height: 1200, accountTemplate: { accountId: "acc_a", version: 3, spec: square } });
      const png = decodePng((await pool.render(job)).bytes);
      expect([png.width, png.height]).toEqual([1200, 1200]);
      expect(fractionNear(png, 20, 20, 560, 1160, RED)).toBeGreaterThan(0.99);
      expect(fractionNear(png, 620, 20, 560, 1160, BLUE)).toBeGreaterThan(0.99);

      // A wide request of the square design keeps the design's height: the red box is 300 px of 1200×630's scale.
      const wide = decodePng((await pool.render({ ...job, width: 1260, height: 630 })).bytes);
      expect(fractionNear(wide, 10, 10, 280, 610, RED)).toBeGreaterThan(0.99);
      expect(fractionNear(wide, 330, 10, 900, 610, BLUE)).toBeGreaterThan(0.99);

      // The same id and version under another account is another template: never the memoized one.
      const other = parseAccountTemplate({
        id: "square",
        width: 600,
        height: 600,
        html: '<div style="width: 100%; height: 100%; background-color: #00ff00"></div>',
      });
      const green = decodePng((await pool.render({ ...job, accountTemplate: { accountId: "acc_b", version: 3, spec: other } })).bytes);
      expect(fractionNear(green, 0, 0, 1200, 1200, [0, 255, 0])).toBeGreaterThan(0.99);
    } finally {
      await pool.close();
    }
  });

  test("a render over the 5 s deadline is killed on real time: 422 RENDER_FAILED, its process replaced", async () => {
    // The real bound: the pool's default, on real timers. The render spins for a minute, so it
    // overruns 5 s whatever the load; what comes after is shown with bounds fired by hand below.
    const pool = new RenderPool({ workers: 1, logger: silentLogger, warmUp: false, command: GATED_PROCESS });
    try {
      await pool.ready();
      const error = await rejection(pool.render(tenantJob("acc_a", "slow-card", "stuck")));
      expect(error.code).toBe("RENDER_FAILED");
      expect(error.status).toBe(422);
      expect(error.message).toContain("5 s");
      expect(pool.stats.replaced).toBe(1);
    } finally {
      await pool.close();
    }
  }, 30_000);

  test("one account's renders hold at most half of the processes: another account's render starts at once", async () => {
    const pool = gatedPool({ workers: 2 });
    try {
      await pool.ready();
      const a1 = pool.render(tenantJob("acc_a", "hold-a", "a1"));
      const a2 = pool.render(tenantJob("acc_a", "hold-a", "a2"));
      await waitFor(() => started("a1"), "account A's first render to start");
      // A's second render waits for A's share although a worker is free...
      expect(pool.stats).toMatchObject({ busy: 1, queued: 1 });
      // ...and B's render takes that worker while A's first is still held.
      const b = pool.render(tenantJob("acc_b", "hold-b", "b1"));
      await waitFor(() => started("b1"), "account B's render to start");
      expect(started("a2")).toBe(false);
      release("b1");
      expect(decodePng((await b).bytes).width).toBe(400);
      expect(started("a2")).toBe(false);
      // Operator templates are cheap and bounded: they are not held back by A's share.
      expect(decodePng((await pool.render(builtIn("built-in while A holds"))).bytes).width).toBe(400);
      release("a1");
      await waitFor(() => started("a2"), "account A's second render to start once its first ended");
      release("a2");
      await Promise.all([a1, a2]);
      expect(pool.stats).toMatchObject({ busy: 0, queued: 0, replaced: 0 });
    } finally {
      await pool.close();
    }
  }, 30_000);

  test("while a killed render's process is replaced, the process left is kept for other accounts", async () => {
    const timers = new ManualTimers();
    const pool = gatedPool({ workers: 2, timers });
    try {
      await pool.ready();
      const stopped = pool.render(tenantJob("acc_a", "slow-card", "stuck-replaced"));
      const next = pool.render(tenantJob("acc_a", "card", "a2"));
      await waitFor(() => started("stuck-replaced"), "the render to be stuck");
      timers.fire(BOUND_MS);
      const error = await rejection(stopped);
      expect(error.code).toBe("RENDER_FAILED");
      expect(error.message).toContain("5 s");
      // One worker ready, one starting: half of one is none, so A's next render waits on a free worker...
      expect(pool.stats).toMatchObject({ ready: 1, busy: 0, queued: 1 });
      // ...which B's render takes at once.
      expect(decodePng((await pool.render(tenantJob("acc_b", "card", "b"))).bytes).width).toBe(400);
      // A's render starts once the replacement is ready: the account's share is free again.
      expect(decodePng((await next).bytes).width).toBe(400);
      expect(pool.stats).toMatchObject({ ready: 2, replaced: 1 });
      // The replacement draws operator templates too.
      expect(decodePng((await pool.render(builtIn("built-in after"))).bytes).width).toBe(400);
    } finally {
      await pool.close();
    }
  }, 30_000);

  test("a killed render's process is gone at once: nothing of it runs on; the log names who and why", async () => {
    const timers = new ManualTimers();
    const lines: Record<string, unknown>[] = [];
    const pool = gatedPool({ workers: 2, timers, logger: createLogger("info", (line) => lines.push(JSON.parse(line))) });
    try {
      await pool.ready();
      const stuck = pool.render(tenantJob("acc_a", "slow-card", "stuck-gone"));
      await waitFor(() => started("stuck-gone"), "the render to be stuck");
      const pid = Number(readFileSync(join(gateDir, "started-stuck-gone"), "utf8"));
      timers.fire(BOUND_MS);
      expect((await rejection(stuck)).code).toBe("RENDER_FAILED");
      // SIGKILL: the process is reaped, though its loop never ends (the deadline leaves room for a busy machine).
      await waitFor(() => !processExists(pid), "the killed render process to be gone", { timeoutMs: 10_000 });
      expect(pool.stats).toMatchObject({ replaced: 1, restarts: { deadline: 1, memory: 0, crash: 0 } });
      expect(lines.filter((l) => l.reason)).toEqual([
        expect.objectContaining({ level: "warn", reason: "deadline", account: "acc_a", template: "slow-card", version: 1, pid, timeout_ms: BOUND_MS }),
      ]);
      await waitFor(() => pool.stats.ready === 2, "the replacement to be ready");
      // The account renders again at once: its one kill does not hold it to one process.
      expect(decodePng((await pool.render(tenantJob("acc_a", "card", "a-after"))).bytes).width).toBe(400);
    } finally {
      await pool.close();
    }
  }, 30_000);

  test("a job waits while its expected wait is within the bound; beyond it SERVER_BUSY says when to retry", async () => {
    // No render finishes while the first is held, so the estimate stays at the assumed 4 s a render.
    const pool = gatedPool({ workers: 1, initialRenderMs: 4_000, maxWaitMs: 10_000 });
    try {
      await pool.ready();
      const held = pool.render(tenantJob("acc_a", "hold-x", "first"));
      await waitFor(() => started("first"), "the first render to start");
      // Waiting behind 0, 1 and 2 queued jobs: 0, 4 and 8 s expected, all within 10 s.
      const waiting = [1, 2, 3].map((i) => pool.render(builtIn(`queued ${i}`)));
      expect(pool.stats).toMatchObject({ queued: 3, expectedWaitMs: 12_000 });
      const refused = await rejection(pool.render(builtIn("one too many")));
      expect(refused.code).toBe("SERVER_BUSY");
      expect(refused.retryAfterSeconds).toBe(12);
      release("first");
      await held;
      for (const result of await Promise.all(waiting)) expect(decodePng(result.bytes).width).toBe(400);
      // Four real renders taught the estimate what a render takes here, whatever that is on this
      // machine: it is no longer the assumed 4 s.
      expect(pool.stats.recentRenderMs).not.toBe(4_000);
    } finally {
      await pool.close();
    }
  }, 30_000);

  test("one account's backlog reaches its own bound first: others are still admitted", async () => {
    const pool = gatedPool({ workers: 2, initialRenderMs: 3_000, maxWaitMs: 10_000 });
    try {
      await pool.ready();
      const holding = pool.render(tenantJob("acc_a", "hold-a", "a-running"));
      await waitFor(() => started("a-running"), "A's render to start");
      // A's share is one worker: its queued jobs wait 0, 3, 6 and 9 s; the fifth would wait 12 s.
      const queuedA = [1, 2, 3, 4].map((i) => pool.render(tenantJob("acc_a", "hold-a", `a${i}`)));
      const refused = await rejection(pool.render(tenantJob("acc_a", "hold-a", "a5")));
      expect(refused.code).toBe("SERVER_BUSY");
      expect(refused.retryAfterSeconds).toBe(12);
      // The pool-wide estimate is 4 × 3 s ÷ 2 = 6 s: B is admitted, and starts on the free worker.
      const b = pool.render(tenantJob("acc_b", "card", "b"));
      expect(decodePng((await b).bytes).width).toBe(400);
      for (const title of ["a-running", "a1", "a2", "a3", "a4"]) release(title);
      await Promise.all([holding, ...queuedA]);
    } finally {
      await pool.close();
    }
  }, 30_000);

  test("an account's stopped renders teach its own estimate: its backlog is refused sooner, others' is not", async () => {
    const timers = new ManualTimers();
    const pool = gatedPool({ workers: 2, timeoutMs: 1_000, initialRenderMs: 100, maxWaitMs: 10_000, timers });
    try {
      await pool.ready();
      const stuck = pool.render(tenantJob("acc_a", "slow-card", "stuck-estimate"));
      await waitFor(() => started("stuck-estimate"), "the render to be stuck");
      // A stopped render counts as taking the whole bound (1 s here), however soon it was fired.
      timers.fire(1_000);
      expect((await rejection(stuck)).code).toBe("RENDER_FAILED");
      // Both workers held by operator-template renders: everything else waits in the queue.
      const holds = ["w1", "w2"].map((name) => pool.render(builtIn(`hold:${join(gateDir, name)}`)));
      await waitFor(() => existsSync(join(gateDir, "w1.started")) && existsSync(join(gateDir, "w2.started")), "both workers to be held");
      // A's renders take 1 s as far as the pool knows: eleven wait (the last expects 10 s on its one worker), the twelfth is refused.
      const queuedA = Array.from({ length: 11 }, (_, i) => pool.render(tenantJob("acc_a", "card", `a${i}`)));
      const refused = await rejection(pool.render(tenantJob("acc_a", "card", "a11")));
      expect(refused.code).toBe("SERVER_BUSY");
      expect(refused.retryAfterSeconds).toBe(11);
      // B has no such history: 11 queued × 100 ms ÷ 2 workers.
      expect(pool.expectedWaitMs("acc_b")).toBe(550);
      const b = pool.render(tenantJob("acc_b", "card", "b"));
      for (const name of ["w1", "w2"]) writeFileSync(join(gateDir, `${name}.release`), "");
      await Promise.all([...holds, ...queuedA, b]);
    } finally {
      await pool.close();
    }
  }, 30_000);

  test("what waits is bounded in bytes as well as in time", async () => {
    const pool = gatedPool({ workers: 1, maxQueuedBytes: 64 * 1024 });
    try {
      await pool.ready();
      const held = pool.render(tenantJob("acc_a", "hold-m", "m"));
      await waitFor(() => started("m"), "the held render to start");
      const big = `data:image/png;base64,${"A".repeat(100 * 1024)}`;
      const refused = await rejection(pool.render({ ...builtIn("big"), images: { logo_url: big } }));
      expect(refused.code).toBe("SERVER_BUSY");
      expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
      // A small job still fits.
      const small = pool.render(builtIn("small"));
      release("m");
      await Promise.all([held, small]);
    } finally {
      await pool.close();
    }
  }, 30_000);
  test("background renders run on processes of their own at a lower CPU priority; idle ones end", async () => {
    const pool = gatedPool({ workers: 1, backgroundWorkers: 1, backgroundIdleMs: 200 });
    try {
      await pool.ready();
      const interactivePids = pool.pids;
      // A background render held: the interactive process stays free, and an interactive render starts at once.
      const background = pool.render(builtIn(`hold:${join(gateDir, "bg-held")}`), { background: true });
      await waitFor(() => existsSync(join(gateDir, "bg-held.started")), "the background render to start");
      const backgroundPid = Number(readFileSync(join(gateDir, "bg-held.started"), "utf8"));
      expect(interactivePids).not.toContain(backgroundPid);
      expect(niceOf(backgroundPid)).toBe(BACKGROUND_NICE);
      expect(niceOf(interactivePids[0]!)).toBe(0);
      expect(decodePng((await pool.render(builtIn("interactive beside a batch"))).bytes).width).toBe(400);
      expect(pool.stats).toMatchObject({ alive: 2, background: 0 });
      writeFileSync(join(gateDir, "bg-held.release"), "");
      expect(decodePng((await background).bytes).width).toBe(400);
      // Idle, the background process ends; the next background job starts another.
      await waitFor(() => !processExists(backgroundPid), "the idle background process to end");
      expect(pool.stats).toMatchObject({ alive: 1, replaced: 0 });
      expect(decodePng((await pool.render(builtIn("background again"), { background: true })).bytes).width).toBe(400);
    } finally {
      await pool.close();
    }
  }, 30_000);

  test("repeat offenders: a killed render is refused at once when asked again; two kills hold the account to one process", async () => {
    const timers = new ManualTimers();
    let now = 0;
    const pool = gatedPool({ workers: 2, timers, now: () => now });
    try {
      await pool.ready();
      const kill = async (title: string, address: string) => {
        const stuck = pool.render(tenantJob("acc_a", "slow-card", title), { address, account: "acc_a" });
        await waitFor(() => started(title), "the render to be stuck");
        timers.fire(BOUND_MS);
        expect((await rejection(stuck)).code).toBe("RENDER_FAILED");
        await waitFor(() => pool.stats.ready === 2, "the replacement to be ready");
      };
      await kill("offender-1", "address-1");
      // The same address again: refused at once, no process started or killed.
      const again = await rejection(pool.render(tenantJob("acc_a", "slow-card", "offender-1"), { address: "address-1", account: "acc_a" }));
      expect(again.code).toBe("RENDER_FAILED");
      expect(again.message).toContain("refused");
      expect(pool.stats.restarts.deadline).toBe(1);
      // One kill: the account still renders on both processes (a built-in of its own beside its template).
      now += 60_000;
      await kill("offender-2", "address-2");
      // Two kills within 10 minutes: every render of acc_a now waits for its one process.
      const first = pool.render(builtIn(`hold:${join(gateDir, "held-a1")}`), { account: "acc_a" });
      const second = pool.render(builtIn(`hold:${join(gateDir, "held-a2")}`), { account: "acc_a" });
      await waitFor(() => existsSync(join(gateDir, "held-a1.started")), "acc_a's first render to start");
      expect(pool.stats).toMatchObject({ busy: 1, queued: 1 });
      // Another account takes the free process meanwhile.
      expect(decodePng((await pool.render(builtIn("other account"), { account: "acc_b" })).bytes).width).toBe(400);
      writeFileSync(join(gateDir, "held-a1.release"), "");
      await waitFor(() => existsSync(join(gateDir, "held-a2.started")), "acc_a's second render to start after the first");
      writeFileSync(join(gateDir, "held-a2.release"), "");
      await Promise.all([first, second]);
      // Ten minutes after the second kill the hold ends, and the first address is drawn again.
      now += 10 * 60_000;
      expect(decodePng((await pool.render(tenantJob("acc_a", "card", "after the hold"), { address: "address-1", account: "acc_a" })).bytes).width).toBe(400);
    } finally {
      await pool.close();
    }
  }, 30_000);
  test("a takumi panic (built with panic = abort) ends only its render process: 422, replaced, the others go on", async () => {
    const pool = gatedPool({ workers: 2, engine: "takumi" });
    try {
      await pool.ready();
      const held = pool.render(builtIn(`hold:${join(gateDir, "beside-panic")}`));
      await waitFor(() => existsSync(join(gateDir, "beside-panic.started")), "a render on the other process");
      const error = await rejection(pool.render(tenantJob("acc_a", "takumi-panic-card", "panic")));
      expect(error.code).toBe("RENDER_FAILED");
      expect(error.message).toContain("crashed");
      expect(pool.stats.restarts).toEqual({ deadline: 0, memory: 0, crash: 1 });
      // The render on the other process was untouched.
      writeFileSync(join(gateDir, "beside-panic.release"), "");
      expect(decodePng((await held).bytes).width).toBe(400);
      await waitFor(() => pool.stats.ready === 2, "the replacement to be ready");
      expect(decodePng((await pool.render(builtIn("after the panic"))).bytes).width).toBe(400);
    } finally {
      await pool.close();
    }
  }, 30_000);
  test("a render process over the memory bound is killed: 422 naming the bound, replaced, nothing of it left", async () => {
    const pool = gatedPool({ workers: 1, memoryBytes: 256 * 1024 * 1024 });
    try {
      await pool.ready();
      // The render takes 400 MB (touched, so resident) and then spins: only the watch can stop it.
      const error = await rejection(pool.render(tenantJob("acc_a", "hog-card", "400")));
      expect(error.code).toBe("RENDER_FAILED");
      expect(error.message).toContain("memory bound (256 MB)");
      const pid = Number(readFileSync(join(gateDir, "started-400"), "utf8"));
      await waitFor(() => !processExists(pid), "the process over the bound to be gone", { timeoutMs: 10_000 });
      expect(pool.stats.restarts).toEqual({ deadline: 0, memory: 1, crash: 0 });
      await waitFor(() => pool.stats.ready === 1, "the replacement to be ready");
      expect(decodePng((await pool.render(builtIn("after the memory kill"))).bytes).width).toBe(400);
    } finally {
      await pool.close();
    }
  }, 30_000);
});
