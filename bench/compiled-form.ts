/**
 * Whether a render process should receive an account template's compiled tree with each job
 * instead of its HTML: what parsing a definition costs (once per render process and version,
 * today: treeOf in src/templates/account/index.ts) against what the compiled tree costs to
 * carry over IPC with every job (Bun's "advanced" serialization is a structured clone).
 * `bun run bench/compiled-form.ts`. Figures in docs/render-bounds.md.
 */
import { deserialize, serialize } from "bun:jsc";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { EXPENSIVE_TEMPLATES } from "./lib/expensive-templates.ts";
import { parseTemplateHtml } from "../src/templates/account/html.ts";

const starters = join(import.meta.dir, "../templates/starters");
const definitions: Record<string, Record<string, unknown>> = { ...EXPENSIVE_TEMPLATES };
for (const file of readdirSync(starters).filter((f) => f.endsWith(".json"))) definitions[file] = JSON.parse(readFileSync(join(starters, file), "utf8"));

const time = (f: () => void, rounds = 50): number => {
  for (let i = 0; i < 5; i++) f();
  const start = Bun.nanoseconds();
  for (let i = 0; i < rounds; i++) f();
  return (Bun.nanoseconds() - start) / rounds / 1e6;
};

console.log("definition            html B  parse ms  tree B   clone ms  html clone ms");
for (const [name, definition] of Object.entries(definitions)) {
  const spec = { fields: [], themes: {}, width: 1200, height: 630, ...definition } as unknown as Parameters<typeof parseTemplateHtml>[0];
  const root = parseTemplateHtml(spec, []).root;
  const bytes = serialize(root).byteLength;
  const parse = time(() => parseTemplateHtml(spec, []));
  const clone = time(() => deserialize(serialize(root)));
  const htmlClone = time(() => deserialize(serialize(spec)));
  console.log(
    `${name.padEnd(20)} ${String(spec.html.length).padStart(7)} ${parse.toFixed(2).padStart(9)} ${String(bytes).padStart(7)} ${clone.toFixed(3).padStart(10)} ${htmlClone.toFixed(3).padStart(14)}`,
  );
}
