/**
 * Run as its own process: renders the cards named in argv (JSON: [{ template, title, subtitle }];
 * the built-in templates and those of label-templates.ts) in a fresh renderer and prints one SHA-256 of the PNG per line, so a test can compare what
 * separate processes (a new worker each) draw for the same request.
 */
import { createInProcessRenderer } from "../../src/render/engines/in-process.ts";
import { BUILT_IN_TEMPLATES, createTemplateRegistry } from "../../src/templates/registry.ts";
import { LABEL_TEMPLATES } from "./label-templates.ts";
import { renderRequest } from "./render-request.ts";
import { testEngine } from "./engines.ts";

const cards = JSON.parse(process.argv[2]!) as { template: string; title: string; subtitle?: string }[];
const registry = createTemplateRegistry([...BUILT_IN_TEMPLATES, ...LABEL_TEMPLATES]);
const renderer = createInProcessRenderer({ engine: testEngine() });
for (const { template, ...fields } of cards) {
  const result = await renderer.render(renderRequest(registry, { template, theme: "light", fields, width: 1200, height: 630, format: "png" }));
  console.log(new Bun.CryptoHasher("sha256").update(result.bytes).digest("hex"));
}
await renderer.close();
