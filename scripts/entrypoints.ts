/**
 * The compiled binary's entrypoints, relative to the repository root: the program, and every
 * file it starts with `new Worker(...)` — each of those must be an entrypoint of its own (see
 * defaultWorkerUrl in src/render/pool.ts and threadUrl in src/store/sqlite/checkpointer.ts, for
 * where they land inside the binary). The build and the
 * binary's test share this list.
 */
export const ENTRYPOINTS = ["src/main.ts", "src/render/render-worker.ts", "src/store/sqlite/checkpoint-thread.ts"];
