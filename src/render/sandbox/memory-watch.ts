/**
 * The render memory bound (OG_RENDER_MEMORY_MB): every render process's resident memory is read
 * every `everyMs` (100 ms), from the serving process, so that a render stuck in native code is
 * measured too, and one over the bound is handed to `over` with the failure its render answers
 * (422 RENDER_FAILED naming the bound). The processes (render-processes.ts) kill it; this file
 * only reads and compares.
 */
import { ApiError } from "../../errors.ts";
import type { ResidentMemoryReader } from "./resident-memory.ts";

const MiB = 1024 * 1024;

export interface MemoryWatchOptions<P> {
  read: ResidentMemoryReader;
  everyMs: number;
  boundBytes: number;
  /** The processes alive now. */
  live: () => P[];
  pidOf: (watched: P) => number;
  /** A process over the bound: end it, and answer the render it holds with `failure`. */
  over: (watched: P, failure: ApiError, extra: Record<string, unknown>) => void;
}

export class MemoryWatch<P> {
  private interval: ReturnType<typeof setInterval> | undefined;
  private reading = false;
  private stopped = false;

  constructor(private readonly options: MemoryWatchOptions<P>) {}

  start(): void {
    this.interval = setInterval(() => void this.check(), this.options.everyMs);
    this.interval.unref?.();
  }

  stop(): void {
    this.stopped = true;
    if (this.interval) clearInterval(this.interval);
  }

  /** Reads every process's resident memory and hands on the ones over the bound. */
  private async check(): Promise<void> {
    if (this.reading || this.stopped) return;
    this.reading = true;
    try {
      const { boundBytes, pidOf } = this.options;
      const live = this.options.live();
      const sizes = await this.options.read(live.map(pidOf));
      for (const watched of live) {
        const size = sizes.get(pidOf(watched));
        if (size === undefined || size <= boundBytes) continue;
        this.options.over(
          watched,
          new ApiError(
            "RENDER_FAILED",
            `The image took more than the render memory bound (${Math.round(boundBytes / MiB)} MB) to draw and was stopped. Simplify the template (fewer nested clips, rounded or translucent layers, smaller images) and try again.`,
          ),
          { resident_mb: Math.round(size / MiB), bound_mb: Math.round(boundBytes / MiB) },
        );
      }
    } finally {
      this.reading = false;
    }
  }
}
