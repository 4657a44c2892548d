/**
 * `bun run bench/fonts.ts`: one process standing in for one render worker. Latin render time,
 * then RSS before and after the first CJK render (fallback slices load on first use), then CJK
 * render time; baseline and comparison in the same run.
 */
import { createInProcessRenderer } from "../src/render/engine.ts";
import { createTemplateRegistry } from "../src/templates/registry.ts";
import { loadedFallbackSlices } from "../src/render/fonts.ts";
const r = createInProcessRenderer(createTemplateRegistry());
const rss = () => { Bun.gc(true); return (process.memoryUsage().rss / 1048576).toFixed(1); };
const go = (title: string) => r.render({ template: "event", theme: "dark", fields: { title }, width: 1200, height: 630, format: "png" });
for (let i = 0; i < 20; i++) await go("Latin warm-up " + i);
console.log("after 20 Latin renders: RSS", rss(), "MB; slices", loadedFallbackSlices().length);
let t = performance.now(); for (let i = 0; i < 30; i++) await go("Launch week number " + i); const latin = (performance.now() - t) / 30;
await go("开源的社交图片生成服务 こんにちは 안녕하세요");
console.log("after first CJK render: RSS", rss(), "MB; slices", loadedFallbackSlices().length);
for (let i = 0; i < 20; i++) await go("开源的社交图片生成服务 " + i);
console.log("after 20 more CJK renders: RSS", rss(), "MB");
t = performance.now(); for (let i = 0; i < 30; i++) await go("开源的社交图片生成服务 " + i); console.log("ms/render latin", latin.toFixed(1), "cjk", ((performance.now() - t) / 30).toFixed(1));
