import { describe, expect, test } from "bun:test";
import { LockWord } from "../../../src/lock-word.ts";
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
async function race(useLock: boolean, options: { lock?: SharedArrayBuffer; maxWaitMs?: number } = {}): Promise<{ count: number; overruns: number }> {
  const lock = options.lock ?? SharedWriteLock.create();
  const counter = new SharedArrayBuffer(8);
  const start = new SharedArrayBuffer(4);
  const workers = Array.from({ length: 4 }, () => new Worker(workerUrl));
  try {
    const ready = workers.map((w) => messageWith(w, "ready"));
    for (const w of workers) w.postMessage({ kind: "increment", lock, counter, start, rounds: 5_000, useLock, maxWaitMs: options.maxWaitMs } satisfies WriteLockJob);
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

  test("behind a holder that never lets go, one thread takes over and the rest queue behind it", async () => {
    const buffer = SharedWriteLock.create();
    // Held by a tag nobody will release, as a thread killed in its section leaves it.
    new LockWord(new Int32Array(buffer, 0, 2), 0, 1, 1_000, 0).lock();
    const { count, overruns } = await race(true, { lock: buffer, maxWaitMs: 200 });
    expect({ count, overruns }).toEqual({ count: 20_000, overruns: 1 });
  });

  test("a holder that was only stalled cannot release the lock of the thread that took it over", () => {
    const buffer = SharedWriteLock.create();
    const words = new Int32Array(buffer, 0, 2);
    const stalled = new LockWord(words, 0, 1, 1_000, 0);
    const taker = new LockWord(words, 0, 1, 30, 0);
    stalled.lock();
    taker.lock();
    expect(taker.takeovers).toBe(1);
    // The stalled holder comes back and releases: the word stays the taker's.
    stalled.unlock();
    expect(Atomics.load(words, 0)).not.toBe(0);
    taker.unlock();
    expect(Atomics.load(words, 0)).toBe(0);
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
