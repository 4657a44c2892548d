/**
 * Account template definitions that pass every bound of the template language (docs/templates.md)
 * and are still as expensive to draw as we could make them: the worst a tenant can send. Each is
 * validated by the real parser when the bench starts, so a tightened bound shows up as a refusal.
 * Drawn uncapped on one core of the shared 2-core box: `bun run bench/tenant-isolation.ts --uncapped`
 * (figures in docs/render-bounds.md) — why the 5 s bound per render exists.
 */
const n = (count: number, f: (i: number) => string) => Array.from({ length: count }, (_, i) => f(i)).join("");
const SHADOW = "0 0 99px 99px red";

export const EXPENSIVE_TEMPLATES: Record<string, Record<string, unknown>> = {
  /** 32 nested full-canvas boxes, each with four 64 px blurs and four 99 px shadows (64 shadow and filter declarations per template). */
  "nested-blurs": {
    id: "nested-blurs",
    width: 2400,
    height: 2400,
    html: n(32, () => `<div style="display:flex;width:100%;height:100%;filter:blur(64px) blur(64px) blur(64px) blur(64px);box-shadow:${SHADOW},${SHADOW},${SHADOW},${SHADOW};background:#f0f">`) + "</div>".repeat(32),
  },
  /** 60 full-canvas layers of four repeating radial gradients, 16 stops each, tiled every 2 px (the smallest tile). */
  "gradient-tiles": {
    id: "gradient-tiles",
    width: 2400,
    height: 2400,
    html: `<div style="display:flex;width:100%;height:100%;background:#fff">${n(60, () => `<div style="position:absolute;width:2400px;height:2400px;background-image:${n(4, () => `repeating-radial-gradient(circle, ${n(16, (k) => `${k % 2 ? "red" : "blue"} ${k}%`).replace(/%(?=[a-z])/g, "%, ")})`).replace(/\)r/g, "), r")};background-size:2px 2px"></div>`)}</div>`,
  },
  /** 64 full-canvas boxes with four 99 px shadows each (64 shadow and filter declarations per template). */
  "shadow-stack": {
    id: "shadow-stack",
    width: 2400,
    height: 2400,
    html: `<div style="display:flex;width:100%;height:100%;background:#fff">${n(64, () => `<div style="position:absolute;width:2400px;height:2400px;box-shadow:${SHADOW},${SHADOW},inset ${SHADOW},${SHADOW}"></div>`)}</div>`,
  },
};
