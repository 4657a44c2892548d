/**
 * Tailwind classes, expanded by satori's own Tailwind engine (the one behind its `tw` prop,
 * exported by our satori patch) into the style object satori would use, so the expanded
 * declarations go through the same CSS allow-list and bounds as inline styles, and what is
 * checked is what is drawn. satori's engine supports a subset of Tailwind (layout, spacing,
 * colours, typography, borders, radii, shadows, opacity); a class it does not know is refused
 * by name instead of being dropped silently.
 *
 * A few families it leaves out or draws otherwise than Tailwind are expanded here instead
 * (tailwind-own-classes.ts), and utilities it lacks that several classes make together into one
 * declaration (gradients, transforms, filters, rings) are written as Tailwind 4 writes them
 * (tailwind-composites.ts). Its palette stops at 900: the 950 shades (Tailwind 3.3 on) are given
 * to it as the arbitrary colours they are (`bg-slate-950` as `bg-[#020617]`), and Tailwind 4's
 * names for sizes it has under Tailwind 3's (`shadow-xs`, `rounded-xs`, `rounded-4xl`) as
 * those. `space-*` and `divide-*` are not drawn: they style every child but the last, and which
 * child is last a template's sections decide only when it is drawn.
 */
import { LRUCache } from "lru-cache";
import { PROPERTIES } from "./css.ts";
import { composite, partClass, type Part } from "./tailwind-composites.ts";
import type * as TailwindEngine from "./tailwind-engine.ts";
import { ownClass, type OwnClass } from "./tailwind-own-classes.ts";

// satori (its layout engine, CSS and text code come with the Tailwind one) is loaded when a
// template's classes are first expanded, or by `warmTailwind`, not at start-up.
let twStyles: typeof TailwindEngine.twStyles | undefined;
const loadTwStyles = () => (twStyles ??= (require("./tailwind-engine.ts") as typeof TailwindEngine).twStyles);

/** Loads satori's Tailwind engine ahead of the first template that uses classes (serve.ts calls it once the server is up). */
export function warmTailwind(): void {
  loadTwStyles();
}

/** Variants that mean something for a still image: breakpoints against the design canvas. */
const VARIANT_ORDER = ["sm", "md", "lg", "xl", "2xl", "portrait", "landscape"];
const VARIANTS = new Set(VARIANT_ORDER);
export const MAX_CLASSES = 100;

/** Properties satori's engine gives as plain numbers that are not lengths. */
const UNITLESS = new Set(["opacity", "flexGrow", "flexShrink", "fontWeight", "zIndex", "lineClamp", "aspectRatio", "flex"]);

/** The 950 shades, Tailwind's sRGB values, which the engine's palette lacks. */
const SHADE_950: Record<string, string> = {
  slate: "#020617",
  gray: "#030712",
  zinc: "#09090b",
  neutral: "#0a0a0a",
  stone: "#0c0a09",
  red: "#450a0a",
  orange: "#431407",
  amber: "#451a03",
  yellow: "#422006",
  lime: "#1a2e05",
  green: "#052e16",
  emerald: "#022c22",
  teal: "#042f2e",
  cyan: "#083344",
  sky: "#082f49",
  blue: "#172554",
  indigo: "#1e1b4b",
  violet: "#2e1065",
  purple: "#3b0764",
  fuchsia: "#4a044e",
  pink: "#500724",
  rose: "#4c0519",
};

/** `bg-zinc-950`, `border-t-sky-950/50` → the same utility with the colour as an arbitrary value. */
function withPaletteColour(base: string): string {
  const m = /^(-?[a-z][a-z-]*?-)([a-z]+)-950(\/\d{1,3})?$/.exec(base);
  const hex = m ? SHADE_950[m[2]!] : undefined;
  return hex ? `${m![1]}[${hex}]${m![3] ?? ""}` : base;
}

/**
 * Tailwind 4's names for sizes the engine has under Tailwind 3's: `shadow-xs` is Tailwind 3's
 * `shadow-sm`, `rounded-xs` its `rounded-sm` (2 px), `rounded-4xl` is 32 px.
 */
function withTailwind4Name(base: string): string {
  if (base === "shadow-xs") return "shadow-sm";
  const m = /^(rounded(?:-(?:t|r|b|l|tl|tr|br|bl))?)-(xs|4xl)$/.exec(base);
  if (m) return m[2] === "xs" ? `${m[1]}-sm` : `${m[1]}-[32px]`;
  return base;
}

/** What to write instead of classes the engines cannot draw as Tailwind means them. */
const INSTEAD: Array<[RegExp, string]> = [
  [/^-?space-x-/, "it spaces an element's children; put gap-x-* on the element (a flex row) instead"],
  [/^-?space-y-/, "it spaces an element's children; put gap-y-* on the element (a flex column) instead"],
  [/^divide-/, "it styles an element's children; give each child its border (border-l, border-t and a border colour) instead"],
  [/^ring-offset-/, "write the offset as a box-shadow in style, a spread shadow in the offset colour under the ring's"],
  [/^decoration-(\d|\[|auto|from-font)/, "the engines do not draw a text decoration's thickness as written (decoration-8 draws about 3 px); leave it out"],
  [/^(grid|col-|row-)/, "the engines lay out flex boxes only; use flex, flex-wrap and w-* on the items"],
  [/^aspect-/, "give the element its width and height (w-[…] h-[…])"],
  [/^order-/, "write the children in the order they are to be drawn"],
  [/^(from|via|to)-\d{1,3}%$/, "gradient stop positions are not supported; write the gradient as background-image in style"],
];

function unsupported(token: string, base: string): string {
  const instead = INSTEAD.find(([pattern]) => pattern.test(base.replace(/^-/, "")))?.[1];
  return `Tailwind class "${token}" is not supported by the renderer${instead ? `: ${instead}` : " (write it as an inline style if its property is in the CSS table of the template docs, or leave it out)"}`;
}

export interface ExpandedClasses {
  style: Array<[property: string, value: string]>;
  problems: Array<{ token: string; offset: number; message: string }>;
}

function expand(classes: string, canvas: { width: number; height: number }): Record<string, unknown> {
  const tw = loadTwStyles()({ width: canvas.width, height: canvas.height });
  // The engine warns on the console about classes it ignores; we report those ourselves.
  const warn = console.warn;
  console.warn = () => {};
  try {
    return { ...tw([classes]) };
  } finally {
    console.warn = warn;
  }
}

/** Expansions by canvas and class list: templates repeat the same few class lists many times. */
const EXPANSIONS_KEPT = 1000;
const expansions = new LRUCache<string, ExpandedClasses>({ max: EXPANSIONS_KEPT });

export function expandClasses(value: string, canvas: { width: number; height: number }): ExpandedClasses {
  const key = `${canvas.width}x${canvas.height}:${value}`;
  const known = expansions.get(key);
  if (known) return known;
  const expanded = expandUncached(value, canvas);
  expansions.set(key, expanded);
  return expanded;
}

function expandUncached(value: string, canvas: { width: number; height: number }): ExpandedClasses {
  const problems: ExpandedClasses["problems"] = [];
  const tokens = [...value.matchAll(/\S+/g)];
  if (tokens.length > MAX_CLASSES) {
    problems.push({ token: "", offset: 0, message: `class has ${tokens.length} classes; at most ${MAX_CLASSES}` });
    return { style: [], problems };
  }
  const kept: string[] = [];
  const own: Array<OwnClass & { level: number; index: number }> = [];
  const composed: Array<Part & { level: number; index: number }> = [];
  for (const match of tokens) {
    const token = match[0];
    const parts = token.split(":");
    const base = withPaletteColour(parts.pop()!);
    const variant = parts.find((p) => !VARIANTS.has(p));
    if (variant !== undefined) {
      problems.push({
        token,
        offset: match.index,
        message: `Tailwind variant "${variant}:" in class "${token}" is not supported (an image has no hover, focus or dark mode; use themes)`,
      });
      continue;
    }
    if (/url\(|https?:|data:/i.test(token)) {
      problems.push({ token, offset: match.index, message: `class "${token}": images in classes are not supported (use <img src="{{field}}">)` });
      continue;
    }
    // Whether the variants match this canvas, asked of the engine with a class it knows.
    const applies = () => parts.length === 0 || Object.keys(expand(`${parts.join(":")}:opacity-50`, canvas)).length > 0;
    const level = parts.length === 0 ? 0 : Math.max(...parts.map((p) => VARIANT_ORDER.indexOf(p) + 1));
    const mine = ownClass(base);
    if (mine) {
      if (applies()) own.push({ ...mine, level, index: own.length });
      continue;
    }
    const part = partClass(base);
    if (part) {
      let value: string | undefined = part.value;
      // A colour part's colour is the engine's, as `bg-red-500/50` has it.
      if (part.colour) value = expand(`bg-${part.value}`, { width: 1200, height: 630 }).backgroundColor as string | undefined;
      if (typeof value !== "string") {
        problems.push({ token, offset: match.index, message: unsupported(token, base) });
        continue;
      }
      if (applies()) composed.push({ ...part, value, level, index: composed.length });
      continue;
    }
    const named = withTailwind4Name(base);
    // A breakpoint that does not match the canvas expands to nothing on purpose; its base must still exist.
    const alone = Object.keys(expand(named, canvas));
    // A class the engine expands into a property the engines do not draw is refused here, at the class.
    if (alone.length === 0 || alone.some((property) => !PROPERTIES[property] && property !== "shadowColor")) {
      problems.push({ token, offset: match.index, message: unsupported(token, base) });
      continue;
    }
    kept.push([...parts, named].join(":"));
  }
  const expanded = kept.length ? expand(kept.join(" "), canvas) : {};
  // `shadow-red-500` colours the shadow of `shadow-lg`: satori puts it into boxShadow the same way.
  if (typeof expanded.shadowColor === "string") {
    if (typeof expanded.boxShadow === "string") expanded.boxShadow = expanded.boxShadow.replace(/rgba?\([^)]+\)/g, expanded.shadowColor);
    delete expanded.shadowColor;
  }
  // Gradients, transforms, filters and rings: each class sets its part, a class with variants
  // over one without, then an axis (`scale-x-*`) over both axes (`scale-*`), as in Tailwind.
  const both = (p: Part) => p.group === "transform" && (p.key === "scale" || p.key === "translate" || p.key === "skew");
  composed.sort((a, b) => a.level - b.level || Number(!both(a)) - Number(!both(b)) || a.index - b.index);
  const set = new Map<string, string>();
  for (const p of composed) {
    if (both(p)) for (const axis of ["X", "Y"]) set.set(`${p.group}:${p.key}${axis}`, p.value);
    else set.set(`${p.group}:${p.key}`, p.value);
  }
  for (const [property, value] of composite(set)) {
    // A ring is drawn under the element's shadow, as Tailwind lists them: ring first.
    if (property === "boxShadow" && typeof expanded.boxShadow === "string") expanded.boxShadow = `${value}, ${expanded.boxShadow}`;
    else expanded[property] = value;
  }
  // After the engine's: `leading-*` wins over the line height of a `text-*` size, as in Tailwind 4.
  // Among these, a class with variants wins over one without, then Tailwind's order in the family.
  own.sort((a, b) => a.level - b.level || a.rank - b.rank || a.index - b.index);
  for (const { style } of own) for (const [property, value] of style) expanded[property] = value;
  const style: Array<[string, string]> = [];
  for (const [property, raw] of Object.entries(expanded)) {
    if (typeof raw === "number") style.push([property, UNITLESS.has(property) ? String(raw) : `${raw}px`]);
    else if (typeof raw === "string") style.push([property, raw]);
    else problems.push({ token: "", offset: 0, message: `class expands to ${property}, which is not supported` });
  }
  return { style, problems };
}
