/**
 * `bun run build`: one self-contained executable at dist/ogsmith. Fonts, templates, migrations,
 * UI assets and the third-party notices are imported `with { type: "file" | "text" }`, so the
 * compiler embeds them and the binary runs from any directory with no Bun and no node_modules.
 *
 * `bun run build --sourcemap` also writes source maps beside it (dist/*.map, ≈ 10 MB, the
 * source in full) for debugging a minified stack trace; a release leaves them out.
 */
import { rmSync } from "node:fs";
import { parseArgs } from "node:util";
import { ENTRYPOINTS } from "./entrypoints.ts";

const { values } = parseArgs({ args: Bun.argv.slice(2), options: { sourcemap: { type: "boolean", default: false } } });

rmSync("dist", { recursive: true, force: true });
const result = await Bun.build({
  entrypoints: ENTRYPOINTS.map((path) => `./${path}`),
  root: "./src",
  compile: { outfile: "./dist/ogsmith" },
  minify: true,
  bytecode: true,
  sourcemap: values.sourcemap ? "linked" : "none",
  target: "bun",
});
if (!result.success) {
  for (const log of result.logs) console.error(log);
  process.exit(1);
}
console.log(`built dist/ogsmith${values.sourcemap ? " and its source maps (dist/*.map)" : ""}`);
