/**
 * The compiled binary's entrypoints, relative to the repository root: the program, and every
 * file it starts with `new Worker(...)` — each of those must be an entrypoint of its own (see
 * threadUrl in src/store/sqlite/checkpointer.ts for where it lands inside the binary). Render
 * processes need none: they are the binary itself, started with a render-mode argument. The
 * build and the binary's test share this list.
 */
export const ENTRYPOINTS = ["src/main.ts", "src/store/sqlite/checkpoint-thread.ts"];
