/**
 * `bun run build`: one self-contained executable at dist/ogsmith. Fonts, templates, migrations
 * and UI assets are imported `with { type: "file" | "text" }`, so the compiler embeds them and
 * the binary runs from any directory with no Bun and no node_modules.
 */
import { rmSync } from "node:fs";
import { ENTRYPOINTS } from "./entrypoints.ts";

rmSync("dist", { recursive: true, force: true });
const result = await Bun.build({
  entrypoints: ENTRYPOINTS.map((path) => `./${path}`),
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
