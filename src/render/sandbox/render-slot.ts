/**
 * One render process as the pool (pool.ts, render-processes.ts) sees it: its lane, whether it
 * has started, the render it holds, and the job types both files share. Started here with its
 * init message, a background one at a lower CPU priority.
 */
import { setPriority } from "node:os";
import type { RenderedImage } from "../engines/engine.ts";
import { RenderChild, renderProcessCommand } from "./child.ts";
import type { RenderPoolOptions } from "./pool-options.ts";
import type { RenderJob, RenderProcessReply } from "./protocol.ts";

/** A render job, waiting in the pool's queue or held by a process, with what settles it. */
export interface Pending {
  job: RenderJob;
  /** Whose account template it is (at most the share of theirs render at once); none for operator templates. */
  tenant: string | undefined;
  /** Who asked: the account the repeat-offender rules hold to one process. */
  account: string | undefined;
  address: string | undefined;
  /** What it holds in memory while it waits (its images and definition). */
  bytes: number;
  resolve(result: RenderedImage): void;
  reject(error: unknown): void;
}

export interface Slot {
  index: number;
  /** Interactive processes take interactive jobs; background ones (lower CPU priority) take background jobs. */
  lane: "interactive" | "background";
  /** A background process's idle timer: it ends when it has had nothing to do for a while. */
  idleTimer?: ReturnType<typeof setTimeout>;
  child: RenderChild;
  ready: boolean;
  /** Set once the process is gone or being killed (and replaced), so its late events are ignored. */
  dead: boolean;
  current?: { id: number; pending: Pending; timer: unknown; started: number };
}

/** The nice value of background render processes (see startSlot). */
export const BACKGROUND_NICE = 10;

/** What a slot's process tells the one that started it. */
export interface SlotEvents {
  message(slot: Slot, reply: RenderProcessReply): void;
  /** The process is gone: `signal` names what ended it, else its exit code. */
  exit(slot: Slot, code: number | null, signal: string | null): void;
}

/** Starts a render process for the slot `index` of `lane` and sends it what it starts with. */
export function startSlot(
  index: number,
  lane: Slot["lane"],
  options: Pick<RenderPoolOptions, "command" | "templatesDir" | "fontsDir" | "engine"> & { gcEvery: number; warmUp: boolean },
  events: SlotEvents,
): Slot {
  let slot!: Slot;
  const child = new RenderChild(options.command ?? renderProcessCommand(), {
    message: (reply) => events.message(slot, reply),
    exit: (code, signal) => events.exit(slot, code, signal),
  });
  slot = { index, lane, child, ready: false, dead: false };
  if (lane === "background") {
    // A lower priority (nice 10, which needs no privileges): when the CPU is short, interactive
    // renders and the server get about nine tenths of it; when it is idle, a batch gets all of
    // it. Not the lowest (19): that left a batch about 1 % beside any busy process on the box.
    try {
      setPriority(child.pid, BACKGROUND_NICE);
    } catch {
      // Not allowed here: the background lane still keeps interactive renders from waiting.
    }
  }
  child.send({
    type: "init",
    templatesDir: options.templatesDir,
    fontsDir: options.fontsDir,
    gcEvery: options.gcEvery,
    warmUp: options.warmUp,
    engine: options.engine,
  });
  return slot;
}
