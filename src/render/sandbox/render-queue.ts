/**
 * The render pool's waiting jobs (pool.ts), in two lanes: interactive renders, bounded by count
 * and by what they hold in memory, and background renders (batches), bounded by count, which
 * only the background processes serve. A free process takes the first job of its lane that may
 * start: arrival order, except that a job whose account is at its share waits (fair-share.ts).
 */
import type { RenderJob } from "./protocol.ts";
import type { Pending, Slot } from "./render-slot.ts";

export class RenderQueue {
  readonly interactive: Pending[] = [];
  /** Served only when no interactive job may start, by processes of their own. */
  readonly background: Pending[] = [];
  /** What the interactive jobs waiting hold in memory (their images and definitions). */
  bytes = 0;

  add(entry: Pending, lane: Slot["lane"]): void {
    if (lane === "background") {
      this.background.push(entry);
      return;
    }
    this.interactive.push(entry);
    this.bytes += entry.bytes;
  }

  /** Takes out the first job of `lane` that `mayStart` lets start, if any. */
  take(lane: Slot["lane"], mayStart: (pending: Pending) => boolean): Pending | undefined {
    const queue = lane === "interactive" ? this.interactive : this.background;
    const index = queue.findIndex((pending) => mayStart(pending));
    if (index < 0) return undefined;
    const [next] = queue.splice(index, 1);
    if (lane === "interactive") this.bytes -= next!.bytes;
    return next;
  }

  /** Takes out every job waiting, in both lanes (to fail them). */
  drain(): Pending[] {
    this.bytes = 0;
    return [...this.interactive.splice(0), ...this.background.splice(0)];
  }
}

/** Roughly what a waiting job holds: its images (data: URIs, one byte a character) and its definition. */
export function jobBytes(job: RenderJob): number {
  let bytes = 1024;
  for (const uri of Object.values(job.images)) bytes += uri?.length ?? 0;
  for (const value of Object.values(job.fields)) bytes += value?.length ?? 0;
  const spec = job.accountTemplate?.spec;
  if (spec) bytes += spec.html.length + JSON.stringify(spec.sample ?? {}).length;
  return bytes;
}
