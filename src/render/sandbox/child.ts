/**
 * The serving process's handle on one render process: started, spoken to over IPC, measured,
 * and killed. A render process is the same executable started with RENDER_PROCESS_ARG (from
 * source: Bun running src/main.ts), so a binary needs nothing beside itself.
 */
import { fileURLToPath } from "node:url";
import { isCompiledBinary } from "../../compiled.ts";
import { PARENT_PID_ENV, RENDER_PROCESS_ARG, type RenderProcessReply, type RenderProcessRequest } from "./protocol.ts";

/** The command line that starts a render process of this executable. */
export function renderProcessCommand(): string[] {
  if (isCompiledBinary) return [process.execPath, RENDER_PROCESS_ARG];
  return [process.execPath, fileURLToPath(new URL("../../main.ts", import.meta.url)), RENDER_PROCESS_ARG];
}

export interface RenderChildEvents {
  message(reply: RenderProcessReply): void;
  /** The process is gone: `signal` names what ended it (SIGKILL, SIGABRT, SIGSEGV …), else its exit code. */
  exit(code: number | null, signal: string | null): void;
}

export class RenderChild {
  readonly pid: number;
  private readonly process: Bun.Subprocess;
  private gone = false;

  constructor(command: string[], events: RenderChildEvents, env?: Record<string, string | undefined>) {
    this.process = Bun.spawn(command, {
      // Its own panics and aborts say why on the service's stderr; it prints nothing else.
      stdio: ["ignore", "ignore", "inherit"],
      env: { ...(env ?? process.env), [PARENT_PID_ENV]: String(process.pid) },
      serialization: "advanced",
      ipc: (message: RenderProcessReply) => {
        if (!this.gone) events.message(message);
      },
      onExit: (_subprocess, code, signal) => {
        this.gone = true;
        events.exit(code, signal === null ? null : String(signal));
      },
    });
    this.pid = this.process.pid;
  }

  get alive(): boolean {
    return !this.gone;
  }

  send(message: RenderProcessRequest): void {
    if (this.gone) return;
    try {
      this.process.send(message);
    } catch {
      // The channel closed under us: the exit event follows and settles what the process held.
    }
  }

  /** SIGKILL (TerminateProcess on Windows): native code cannot ignore it. */
  kill(): void {
    if (this.gone) return;
    try {
      this.process.kill("SIGKILL");
    } catch {
      // Already exited.
    }
  }

  /** Resolves once the process has exited. */
  get exited(): Promise<unknown> {
    return this.process.exited;
  }
}
