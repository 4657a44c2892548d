import { writeFileSync } from "node:fs";
import { createInProcessRenderer } from "./src/render/engine.ts";
import { createTemplateRegistry } from "./src/templates/registry.ts";
const r = createInProcessRenderer(createTemplateRegistry());
const [template, theme, title, subtitle, out] = process.argv.slice(2);
const res = await r.render({ template, theme: theme as any, fields: { title, subtitle }, width: 1200, height: 630, format: "png" });
writeFileSync(out, res.bytes); console.log(res.missingGlyphs);
