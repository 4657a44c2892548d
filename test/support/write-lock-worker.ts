/** A worker thread for test/unit/store/write-lock.test.ts: increments a counter under the lock, or holds it forever. */
import { SharedWriteLock } from "../../src/store/sqlite/write-lock.ts";

declare const self: Worker;

export type WriteLockJob =
  /** Increments `counter[0]` `rounds` times by read, pause, write: only mutual exclusion keeps every increment. */
  | { kind: "increment"; lock: SharedArrayBuffer; counter: SharedArrayBuffer; start: SharedArrayBuffer; rounds: number; useLock: boolean; maxWaitMs?: number }
  /** Takes the lock and never lets go (the test terminates the thread). */
  | { kind: "hold-forever"; lock: SharedArrayBuffer };

self.onmessage = (event: MessageEvent<WriteLockJob>) => {
  const job = event.data;
  const lock = new SharedWriteLock(job.lock, job.kind === "increment" ? (job.maxWaitMs ?? 5_000) : 5_000);
  if (job.kind === "hold-forever") {
    lock.hold(() => {
      self.postMessage({ holding: true });
      for (;;);
    });
    return;
  }
  const counter = new Int32Array(job.counter);
  const start = new Int32Array(job.start);
  self.postMessage({ ready: true });
  // Spin rather than sleep, so that all threads start together.
  while (Atomics.load(start, 0) === 0);
  const increment = () => {
    const seen = Atomics.load(counter, 0);
    // Widen the window between read and write, as a transaction's statements do.
    for (let i = 0; i < 200; i++) Atomics.load(counter, 1);
    Atomics.store(counter, 0, seen + 1);
  };
  for (let round = 0; round < job.rounds; round++) {
    if (job.useLock) lock.hold(increment);
    else increment();
  }
  self.postMessage({ done: true, overruns: lock.overruns });
};
