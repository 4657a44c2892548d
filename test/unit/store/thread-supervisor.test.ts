import { expect, test } from "bun:test";
import { createLogger } from "../../../src/logger.ts";
import { type StartSignal, startSupervisedThread } from "../../../src/store/sqlite/thread-supervisor.ts";
import type { FromSupervised, StartPlan, SupervisedInit } from "../../support/supervised-worker.ts";
import { waitFor } from "../../support/wait.ts";

const url = new URL("../../support/supervised-worker.ts", import.meta.url);
const startSignal = (message: FromSupervised): StartSignal =>
  message.type === "ready" ? { ready: true } : message.type === "failed" ? { failed: message.message } : undefined;
const stopMessage = (worker: Worker) => worker.postMessage("stop");

function supervise(plan: StartPlan[], options: { startTimeoutMs?: number } = {}) {
  const starts = new SharedArrayBuffer(4);
  const lines: { level: string; msg: string; retry_in_ms?: number }[] = [];
  const pongs: number[] = [];
  const thread = startSupervisedThread<FromSupervised>({
    name: "test thread",
    url,
    init: { starts, plan } satisfies SupervisedInit,
    startSignal,
    onMessage: (message) => {
      if (message.type === "pong") pongs.push(message.start);
    },
    logger: createLogger("info", (line) => lines.push(JSON.parse(line))),
    startTimeoutMs: options.startTimeoutMs,
    restartDelayMs: 20,
    maxRestartDelayMs: 60,
  });
  return { thread, lines, pongs, starts: () => Atomics.load(new Int32Array(starts), 0) };
}

test("a start resolves once the thread is ready; its messages reach the handler; stop waits for it to end", async () => {
  const s = supervise(["ready"]);
  const thread = await s.thread;
  expect(thread.running).toBe(true);
  thread.worker.postMessage("ping");
  await waitFor(() => s.pongs.length === 1, "a pong");
  expect(s.pongs).toEqual([1]);
  await thread.stop(stopMessage, 5_000);
  expect(thread.running).toBe(false);
  expect(s.lines).toEqual([]);
});

test("a thread that reports a failed start rejects the start, and nothing is left running", async () => {
  const s = supervise(["fail"]);
  await expect(s.thread).rejects.toThrow("test thread did not start: start 1 refused");
  expect(s.starts()).toBe(1);
});

test("a thread that never answers rejects the start at the deadline and is terminated", async () => {
  const s = supervise(["silent"], { startTimeoutMs: 200 });
  await expect(s.thread).rejects.toThrow("test thread did not start within 0.2 s");
  expect(s.starts()).toBe(1);
});

test("a thread that dies is started again, and a failed restart is retried, the pause doubling to its cap", async () => {
  // Start 1 is ready; after its death starts 2, 3 and 4 fail; start 5 is ready.
  const s = supervise(["ready", "fail", "fail", "fail", "ready"]);
  const thread = await s.thread;
  const first = thread.worker;
  first.postMessage("die");
  await waitFor(
    () => thread.running && thread.worker !== first,
    () => `starts: ${s.starts()}, lines: ${JSON.stringify(s.lines)}`,
  );
  expect(s.starts()).toBe(5);
  expect(thread.restarts).toBe(4);
  expect(s.lines.map((line) => [line.level, line.msg, line.retry_in_ms])).toEqual([
    ["error", "test thread exited; starting it again", undefined],
    ["error", "test thread did not restart; trying again", 40],
    ["error", "test thread did not restart; trying again", 60],
    ["error", "test thread did not restart; trying again", 60],
  ]);
  // The new incarnation is the one answering.
  thread.worker.postMessage("ping");
  await waitFor(() => s.pongs.length === 1, "a pong");
  expect(s.pongs).toEqual([5]);
  await thread.stop(stopMessage, 5_000);
});

test("a thread stopped on purpose is not started again", async () => {
  const s = supervise(["ready"]);
  const thread = await s.thread;
  await thread.stop(stopMessage, 5_000);
  // stop() resolves once the thread's close event has been handled, and that handler is where a
  // restart is decided (and logged) — so it is decided by now, with no pause to wait out.
  expect(thread.running).toBe(false);
  expect(s.starts()).toBe(1);
  expect(thread.restarts).toBe(0);
  expect(s.lines).toEqual([]);
});

test("a restart still starting when stop comes is terminated at once, not after the stop deadline", async () => {
  // Start 1 is ready; its restart (start 2) never answers.
  const s = supervise(["ready", "silent"], { startTimeoutMs: 60_000 });
  const thread = await s.thread;
  thread.worker.postMessage("die");
  await waitFor(
    () => s.starts() === 2,
    () => `starts: ${s.starts()}`,
  );
  // The stop deadline is far beyond the test's own timeout: only an immediate end passes.
  await thread.stop(stopMessage, 60_000);
  expect(thread.running).toBe(false);
  expect(s.starts()).toBe(2);
});
