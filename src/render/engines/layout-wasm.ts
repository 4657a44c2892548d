/**
 * satori's layout engine (yoga, compiled to wasm), compiled once per process. Kept apart from
 * layout.ts so the main thread, which compiles it for the render workers but never lays out a
 * card itself, does not load satori's bundle (≈ 1 MB of JavaScript to parse at start-up).
 *
 * The wasm file is imported `with { type: "file" }`, which `bun build --compile` embeds.
 */
import layoutWasmPath from "satori/layout.wasm" with { type: "file" };

let compiled: Promise<WebAssembly.Module> | undefined;

/**
 * The compiled layout engine, compiled on first use; post it to a worker for `initLayout`.
 * Compiled asynchronously (≈ 15 ms here), off the thread that asks, so creating the render
 * pool does not hold up the server's start.
 */
export function layoutModule(): Promise<WebAssembly.Module> {
  compiled ??= Bun.file(layoutWasmPath as string)
    .arrayBuffer()
    .then((bytes) => WebAssembly.compile(bytes));
  return compiled;
}
