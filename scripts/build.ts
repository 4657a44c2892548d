/**
 * `bun run build`: one self-contained executable at dist/ogsmith. Fonts, templates, migrations
 * and UI assets are imported `with { type: "file" | "text" }`, so the compiler embeds them and
 * the binary runs from any directory with no Bun and no node_modules.
 */
import { rmSync } from "node:fs";

rmSync("dist", { recursive: true, force: true });
const result = await Bun.build({
  // The render worker and the extra HTTP threads are started with `new Worker(...)`, so each must
  // be an entrypoint of its own (see defaultWorkerUrl in src/render/pool.ts and threadUrl in
  // src/http/threads.ts for where they land inside the binary).
  entrypoints: ["./src/main.ts", "./src/render/render-worker.ts", "./src/http/http-thread.ts"],
  root: "./src",
  compile: { outfile: "./dist/ogsmith" },
  minify: true,
  bytecode: true,
  sourcemap: "linked",
  target: "bun",
});
if (!result.success) {
  for (const log of result.logs) console.error(log);
  process.exit(1);
}
console.log("built dist/ogsmith");
