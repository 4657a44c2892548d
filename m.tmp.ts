import { createInProcessRenderer } from "./src/render/engine.ts";
import { createTemplateRegistry } from "./src/templates/registry.ts";
import { decodePng, pixelAt } from "./test/support/png.ts";
const r = createInProcessRenderer(createTemplateRegistry());
for (const t of ["ي", "ى", "بِ", "ب", "في", "فى"]) {
  const png = decodePng((await r.render({ template: "blog", theme: "light", fields: { title: t }, width: 1200, height: 630, format: "png" })).bytes);
  let top = -1, bottom = -1;
  for (let y = 100; y < 560; y++) for (let x = 60; x < 1140; x++) { const [a] = pixelAt(png, x, y); if (a < 200) { if (top < 0) top = y; bottom = y; } }
  console.log(JSON.stringify(t), top, bottom);
}
