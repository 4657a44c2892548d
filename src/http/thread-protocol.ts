/**
 * The messages between the main thread and the extra HTTP threads of `OG_HTTP_THREADS`
 * (threads.ts on the main side, http-thread.ts on the other). Plain data only: they are
 * structured-cloned across threads.
 */
import type { Config } from "../config.ts";
import type { PlainError } from "../errors.ts";
import type { RenderJob } from "../render/pool.ts";
import type { ProducedImage } from "../render/renderer.ts";
import type { ThreadShared } from "../services.ts";
import type { RequestSnapshot } from "./request-metrics.ts";

export type ToThread =
  | { type: "init"; index: number; config: Config; port: number; shared: ThreadShared }
  | { type: "produced"; id: number; image?: ProducedImage; error?: PlainError }
  | { type: "scraped"; id: number; text?: string; error?: string }
  | { type: "snapshot"; id: number }
  | { type: "stop" };

export type FromThread =
  | { type: "listening" }
  | { type: "failed"; message: string }
  /** A render the thread's memory cache did not have: the main thread's backend makes it. */
  | { type: "produce"; id: number; key: string; job: RenderJob }
  /** Memory-cache hits, for the persistent cache's recency order (batched). */
  | { type: "used"; keys: string[] }
  /** Jobs were committed: the main thread's job worker should look now. */
  | { type: "jobs" }
  | { type: "store-unavailable"; reason: string }
  /** The thread was asked for /metrics: the main thread answers for the whole server. */
  | { type: "scrape"; id: number }
  | { type: "snapshot"; id: number; requests: RequestSnapshot }
  | { type: "stopped" };
