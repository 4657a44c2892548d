import { describe, expect, test } from "bun:test";
import { SharedWriteLock } from "../../../src/store/sqlite/write-lock.ts";
import type { WriteLockJob } from "../../support/write-lock-worker.ts";

const workerUrl = new URL("../../support/write-lock-worker.ts", import.meta.url);

/** Resolves with the first message that has `field`. */
function messageWith(worker: Worker, field: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const onMessage = (event: MessageEvent) => {
      if (!(field in event.data)) return;
      worker.removeEventListener("message", onMessage);
      resolve(event.data);
    };
    worker.addEventListener("message", onMessage);
    worker.addEventListener("error", (event) => reject(new Error((event as ErrorEvent).message)));
  });
}

/** Four threads increment one counter 5,000 times each; returns the final count. */
async function race(useLock: boolean): Promise<{ count: number; overruns: number }> {
  const lock = SharedWriteLock.create();
  const counter = new SharedArrayBuffer(8);
  const start = new SharedArrayBuffer(4);
  const workers = Array.from({ length: 4 }, () => new Worker(workerUrl));
  try {
    const ready = workers.map((w) => messageWith(w, "ready"));
    for (const w of workers) w.postMessage({ kind: "increment", lock, counter, start, rounds: 5_000, useLock } satisfies WriteLockJob);
    await Promise.all(ready);
    const done = workers.map((w) => messageWith(w, "done"));
    Atomics.store(new Int32Array(start), 0, 1);
    const results = await Promise.all(done);
    return { count: Atomics.load(new Int32Array(counter), 0), overruns: results.reduce((sum, r) => sum + (r.overruns as number), 0) };
  } finally {
    for (const w of workers) w.terminate();
  }
}

describe("SharedWriteLock", () => {
  test("one holder at a time across threads: no increment is lost", async () => {
    // The same race without the lock loses increments, so the lock is what keeps them.
    const unlocked = await race(false);
    expect(unlocked.count).toBeLessThan(20_000);
    const locked = await race(true);
    expect(locked).toEqual({ count: 20_000, overruns: 0 });
  });

  test("a thread killed while holding the lock costs one bounded wait, then the lock works again", async () => {
    const buffer = SharedWriteLock.create();
    const holder = new Worker(workerUrl);
    const holding = messageWith(holder, "holding");
    holder.postMessage({ kind: "hold-forever", lock: buffer } satisfies WriteLockJob);
    await holding;
    holder.terminate();

    const lock = new SharedWriteLock(buffer, 30);
    expect(lock.hold(() => "went ahead")).toBe("went ahead");
    expect(lock.overruns).toBe(1);
    // Its release freed the word: the next writers take it at once.
    expect(lock.hold(() => 1) + lock.hold(() => 2)).toBe(3);
    expect(lock.overruns).toBe(1);
    expect(Atomics.load(new Int32Array(buffer), 0)).toBe(0);
  });

  test("a body that throws releases the lock", () => {
    const buffer = SharedWriteLock.create();
    const lock = new SharedWriteLock(buffer, 30);
    expect(() => lock.hold(() => { throw new Error("rolled back"); })).toThrow("rolled back");
    expect(Atomics.load(new Int32Array(buffer), 0)).toBe(0);
    expect(lock.hold(() => "next")).toBe("next");
    expect(lock.overruns).toBe(0);
  });
});
