/**
 * Memory upkeep for a render worker, between a render and its answer.
 *
 * resvg-js keeps each render's pixmap (≈3 MB at 1200×630, more for larger sizes) in native
 * memory that only the finalizer of its JS wrapper frees, and the pixels and PNG scanlines add
 * as much again. Left alone that happens late: the JS heap barely grows per render, so the GC
 * seldom runs, and finalizers run from the event loop, which a busy worker reaches only between
 * jobs. So after each render: leave the render's call stack (JSC scans stacks conservatively,
 * and a GC called from inside the render keeps the wrappers it just used alive), collect, and
 * turn the event loop once more so finalizers run before the answer lets the next job in.
 *
 * - The turns are `setImmediate`, not `setTimeout(0)`: a timer is clamped to 1 ms, so two of
 *   them left the worker idle ≈ 2.5 ms per render (measured: 1.2 ms per setTimeout(0) turn vs
 *   0.003 ms per setImmediate turn) and delayed every answer by as much.
 * - Young collections are cheap (< 1 ms). A full one also throws compiled code away and costs
 *   15–30 ms, so it runs only when the heap, external memory included (`heapSize` of bun:jsc
 *   counts ArrayBuffers), has grown `fullAfterBytes` past what the last full one left, or every
 *   `fullEvery` renders as a backstop.
 *
 * Measured with 2 and 4 workers on a 2-core box, 3 jobs in flight per worker, peak RSS of the
 * process: no upkeep 290–315 / 400 MB; young collection after answering instead of before
 * 250 / 400–420 MB; this 206–210 / 308 MB, with the same CPU time per image (±5 %).
 */
import { heapSize } from "bun:jsc";

export interface WorkerMemoryOptions {
  /** A full collection at least every this many renders; 0 turns upkeep off entirely. */
  fullEvery: number;
  /** Heap growth since the last full collection that triggers the next one. */
  fullAfterBytes?: number;
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export function createMemoryUpkeep({ fullEvery, fullAfterBytes = 24 * 1024 * 1024 }: WorkerMemoryOptions): () => Promise<void> {
  let sinceFull = 0;
  // Taken at the first upkeep, so start-up and warm-up do not count as growth.
  let baseline: number | undefined;
  return async () => {
    if (fullEvery <= 0) return;
    await nextTurn();
    if (++sinceFull >= fullEvery || (baseline !== undefined && heapSize() - baseline > fullAfterBytes)) {
      sinceFull = 0;
      Bun.gc(true);
      baseline = heapSize();
    } else {
      Bun.gc(false);
      baseline ??= heapSize();
    }
    await nextTurn();
  };
}
