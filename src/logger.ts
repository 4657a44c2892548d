/** JSON lines on stdout, one object per line. Secrets never go in: callers pass key prefixes, not keys. */
import type { Config } from "./config.ts";

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;
type Level = Exclude<keyof typeof LEVELS, "silent">;

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  /** Whether `level` is written at all: lets a hot path skip building fields nobody reads. */
  enabled?(level: Level): boolean;
}

export function createLogger(level: Config["logLevel"] = "info", write: (line: string) => void = (line) => process.stdout.write(line + "\n")): Logger {
  const threshold = LEVELS[level];
  const log = (lvl: Level) => (msg: string, fields?: Record<string, unknown>) => {
    if (LEVELS[lvl] < threshold) return;
    // Wall time on purpose: log timestamps say when something happened on this machine, not on the test clock.
    write(JSON.stringify({ time: new Date().toISOString(), level: lvl, msg, ...fields }));
  };
  return { debug: log("debug"), info: log("info"), warn: log("warn"), error: log("error"), enabled: (lvl) => LEVELS[lvl] >= threshold };
}

export const silentLogger: Logger = createLogger("silent");

/** Error details for the log (never for a response body). */
export const describeError = (error: unknown): Record<string, unknown> =>
  error instanceof Error ? { error: error.message, stack: error.stack } : { error: String(error) };
