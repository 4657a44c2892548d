/**
 * Account template definitions that pass every bound of the template language (docs/templates.md),
 * the paint budget included, and are as expensive to draw as we could make them within it: the
 * worst a tenant can send. Each is validated by the real parser when the bench starts, so a
 * tightened bound shows up as a refusal. Drawn uncapped at 2400×2400 on one core of the shared
 * 2-core box with both engines: `bun run bench/tenant-isolation.ts --uncapped` (figures in
 * docs/render-bounds.md). REFUSED_TEMPLATES are the definitions that passed before the paint
 * budget existed and took over a minute; the unit tests check each is now refused.
 */
const n = (count: number, f: (i: number) => string) => Array.from({ length: count }, (_, i) => f(i)).join("");
const STOPS16 = n(16, (k) => `${k % 2 ? "red" : "blue"} ${k}%`)
  .split("%")
  .join("%, ")
  .replace(/, $/, "");
const GRADIENTS4 = n(4, () => `repeating-radial-gradient(circle, ${STOPS16})`).replace(/\)r/g, "), r");
const SHADOW = "0 0 99px 99px red";
/** An inline SVG over the whole 2400×2400 canvas. */
const svg = (defs: string, body: string) =>
  `<div style="display:flex;width:100%;height:100%;background:#fff"><svg width="2400" height="2400" viewBox="0 0 2400 2400"><defs>${defs}</defs>${body}</svg></div>`;
const FULL = 'width="2400" height="2400"';
const MASK = `<mask id="m"><rect ${FULL} fill="white"/></mask>`;
/** `<use>` of `<use>` of … a translucent canvas-wide rectangle, ten at each of `levels` levels. */
const usePyramid = (levels: number) => n(levels, (l) => `<g id="g${l + 1}">${n(10, () => `<use href="#g${l}"/>`)}</g>`);
const shadows4 = (blur: number) => `0 0 ${blur}px 0 red,0 0 ${blur}px 0 red,inset 0 0 ${blur}px 0 red,0 0 ${blur}px 0 red`;

export const EXPENSIVE_TEMPLATES: Record<string, Record<string, unknown>> = {
  /** A 6 px blur around two nested colour filters (a filter inside a filter inside a filter). */
  "nested-blurs": {
    id: "nested-blurs",
    width: 2400,
    height: 2400,
    html: `<div style="display:flex;width:750px;height:750px;filter:blur(6px);background:#f0f">${["brightness(0.9)", "sepia(0.5)"].map((f) => `<div style="display:flex;width:750px;height:750px;filter:${f};background:#0f0">`).join("")}</div></div></div>`,
  },
  /** Seven nested colour filters. */
  "nested-filters": {
    id: "nested-filters",
    width: 2400,
    height: 2400,
    html:
      ["brightness(0.9)", "sepia(0.5)", "contrast(1.1)", "saturate(1.2)", "invert(0.1)", "grayscale(0.2)", "hue-rotate(10deg)"]
        .map((f) => `<div style="display:flex;width:750px;height:750px;filter:${f};background:#0f0">`)
        .join("") + "</div>".repeat(7),
  },
  /** One full-canvas layer of four repeating radial gradients, 16 stops each, tiled every 2 px (the smallest tile). */
  "gradient-tiles": {
    id: "gradient-tiles",
    width: 2400,
    height: 2400,
    html: `<div style="display:flex;width:100%;height:100%;background:#fff">${n(1, () => `<div style="position:absolute;width:2400px;height:2400px;background-image:${GRADIENTS4};background-size:2px 2px"></div>`)}</div>`,
  },
  /** One 500 px box with four 43 px shadows (a shadow's filter reaches blur²/4 = 462 px around the box). */
  "shadow-stack": {
    id: "shadow-stack",
    width: 2400,
    height: 2400,
    html: `<div style="display:flex;width:100%;height:100%;background:#fff"><div style="position:absolute;width:500px;height:500px;box-shadow:${shadows4(43)}"></div></div>`,
  },
  /** Eight masked canvas-wide rectangles in an inline SVG. */
  "svg-masks": {
    id: "svg-masks",
    width: 2400,
    height: 2400,
    html: svg(
      MASK,
      n(8, () => `<rect ${FULL} fill="red" mask="url(#m)"/>`),
    ),
  },
  /** Twenty <use> of a translucent canvas-wide rectangle. */
  "svg-uses": {
    id: "svg-uses",
    width: 2400,
    height: 2400,
    html: svg(
      `<g id="g0"><rect ${FULL} fill="red" opacity="0.5"/></g>`,
      n(20, () => '<use href="#g0"/>'),
    ),
  },
};

/** What the same names were before the paint budget: each passed every other bound and took over a minute to draw. */
export const REFUSED_TEMPLATES: Record<string, Record<string, unknown>> = {
  /** 32 nested full-canvas boxes, each with four 64 px blurs and four 99 px shadows. */
  "nested-blurs": {
    id: "nested-blurs",
    width: 2400,
    height: 2400,
    html:
      n(
        32,
        () =>
          `<div style="display:flex;width:100%;height:100%;filter:blur(64px) blur(64px) blur(64px) blur(64px);box-shadow:${SHADOW},${SHADOW},${SHADOW},${SHADOW};background:#f0f">`,
      ) + "</div>".repeat(32),
  },
  /** 60 full-canvas layers of four repeating radial gradients, 16 stops each, tiled every 2 px. */
  "gradient-tiles": {
    id: "gradient-tiles",
    width: 2400,
    height: 2400,
    html: `<div style="display:flex;width:100%;height:100%;background:#fff">${n(60, () => `<div style="position:absolute;width:2400px;height:2400px;background-image:${GRADIENTS4};background-size:2px 2px"></div>`)}</div>`,
  },
  /** 64 full-canvas boxes with four 99 px shadows each. */
  "shadow-stack": {
    id: "shadow-stack",
    width: 2400,
    height: 2400,
    html: `<div style="display:flex;width:100%;height:100%;background:#fff">${n(64, () => `<div style="position:absolute;width:2400px;height:2400px;box-shadow:${SHADOW},${SHADOW},inset ${SHADOW},${SHADOW}"></div>`)}</div>`,
  },
  /** 300 masked canvas-wide rectangles in an inline SVG. */
  "svg-masks": {
    id: "svg-masks",
    width: 2400,
    height: 2400,
    html: svg(
      MASK,
      n(300, () => `<rect ${FULL} fill="red" mask="url(#m)"/>`),
    ),
  },
  /** Ten <use> of ten <use> of ten <use> of a translucent canvas-wide rectangle: 1,000 layers from 34 elements. */
  "svg-uses": {
    id: "svg-uses",
    width: 2400,
    height: 2400,
    html: svg(`<g id="g0"><rect ${FULL} fill="red" opacity="0.5"/></g>${usePyramid(3)}`, '<use href="#g3"/>'),
  },
};
