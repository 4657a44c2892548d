/**
 * Tailwind classes, expanded by satori's own Tailwind engine (the one behind its `tw` prop,
 * exported by our satori patch) into the style object satori would use, so the expanded
 * declarations go through the same CSS allow-list and bounds as inline styles, and what is
 * checked is what is drawn. satori's engine supports a subset of Tailwind (layout, spacing,
 * colours, typography, borders, radii, shadows, opacity); a class it does not know is refused
 * by name instead of being dropped silently.
 *
 * A few families it leaves out or draws otherwise than Tailwind are expanded here instead
 * (`ownClass`): `gap-*` (it has none), `leading-*` and `tracking-*` (it refuses the relative
 * ones without a `text-*` size on the same element, and turns them into px of that size where
 * Tailwind means the element's own font size), border widths (it has no `border-x`/`border-y`)
 * and `size-*`. Its palette stops at 900: the 950 shades (Tailwind 3.3 on) are given to it as
 * the arbitrary colours they are (`bg-slate-950` as `bg-[#020617]`).
 */
import type * as TailwindEngine from "./tailwind-engine.ts";

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

/** Tailwind's spacing scale: `4` is 1rem (16px); `px` is 1px. */
function spacing(key: string): string | undefined {
  if (key === "px") return "1px";
  if (!/^\d{1,4}(\.5)?$/.test(key)) return undefined;
  return `${Number(key) * 4}px`;
}

/** `[12px]` → `12px` (underscores are spaces, as in Tailwind); undefined when not bracketed. */
function arbitrary(key: string): string | undefined {
  const m = /^\[([^\]]+)\]$/.exec(key);
  return m ? m[1]!.replace(/_/g, " ") : undefined;
}

const LEADING: Record<string, string> = { none: "1", tight: "1.25", snug: "1.375", normal: "1.5", relaxed: "1.625", loose: "2" };
const TRACKING: Record<string, string> = { tighter: "-0.05em", tight: "-0.025em", normal: "0em", wide: "0.025em", wider: "0.05em", widest: "0.1em" };
const BORDER_SIDES: Record<string, string[]> = {
  "": ["Top", "Right", "Bottom", "Left"],
  x: ["Right", "Left"],
  y: ["Top", "Bottom"],
  t: ["Top"],
  r: ["Right"],
  b: ["Bottom"],
  l: ["Left"],
};

/** The 950 shades, Tailwind's sRGB values, which the engine's palette lacks. */
const SHADE_950: Record<string, string> = {
  slate: "#020617", gray: "#030712", zinc: "#09090b", neutral: "#0a0a0a", stone: "#0c0a09", red: "#450a0a",
  orange: "#431407", amber: "#451a03", yellow: "#422006", lime: "#1a2e05", green: "#052e16", emerald: "#022c22",
  teal: "#042f2e", cyan: "#083344", sky: "#082f49", blue: "#172554", indigo: "#1e1b4b", violet: "#2e1065",
  purple: "#3b0764", fuchsia: "#4a044e", pink: "#500724", rose: "#4c0519",
};

/** `bg-zinc-950`, `border-t-sky-950/50` → the same utility with the colour as an arbitrary value. */
function withPaletteColour(base: string): string {
  const m = /^(-?[a-z][a-z-]*?-)([a-z]+)-950(\/\d{1,3})?$/.exec(base);
  const hex = m ? SHADE_950[m[2]!] : undefined;
  return hex ? `${m![1]}[${hex}]${m![3] ?? ""}` : base;
}

/** Utilities of one fixed meaning the engine lacks, whose properties the engines draw (Tailwind's own declarations). */
const KEYWORD_UTILITIES: Record<string, Array<[string, string]>> = {
  truncate: [["overflow", "hidden"], ["textOverflow", "ellipsis"], ["whiteSpace", "nowrap"]],
  "text-ellipsis": [["textOverflow", "ellipsis"]],
  "text-clip": [["textOverflow", "clip"]],
  "text-start": [["textAlign", "start"]],
  "text-end": [["textAlign", "end"]],
  "break-normal": [["wordBreak", "normal"]],
  "break-all": [["wordBreak", "break-all"]],
  "break-keep": [["wordBreak", "keep-all"]],
  ...Object.fromEntries(["normal", "nowrap", "pre", "pre-line", "pre-wrap"].map((v) => [`whitespace-${v}`, [["whiteSpace", v]]])),
  ...Object.fromEntries(["contain", "cover", "fill", "none", "scale-down"].map((v) => [`object-${v}`, [["objectFit", v]]])),
  ...Object.fromEntries(
    ["bottom", "center", "left", "left-bottom", "left-top", "right", "right-bottom", "right-top", "top"].map((v) => [`object-${v}`, [["objectPosition", v.replace("-", " ")]]]),
  ),
};

interface OwnClass {
  style: Array<[string, string]>;
  /** Tailwind's order within the family, for classes that set the same property: `gap-4` before `gap-x-2`, `border-2` before `border-x-4` before `border-l-8`. */
  rank: number;
}

/** The classes expanded here rather than by the engine (see the top of this file), or undefined. */
export function ownClass(base: string): OwnClass | undefined {
  let m = /^gap(?:-([xy]))?-(.+)$/.exec(base);
  if (m) {
    const value = spacing(m[2]!) ?? arbitrary(m[2]!);
    if (value === undefined) return undefined;
    const properties = m[1] === "x" ? ["columnGap"] : m[1] === "y" ? ["rowGap"] : ["rowGap", "columnGap"];
    return { style: properties.map((p) => [p, value]), rank: m[1] ? 1 : 0 };
  }
  const keyword = KEYWORD_UTILITIES[base];
  if (keyword) return { style: keyword, rank: 0 };
  // `line-clamp-3`: at most that many lines, the last one ending in an ellipsis.
  m = /^line-clamp-(\d{1,2})$/.exec(base);
  if (m) return { style: [["overflow", "hidden"], ["lineClamp", m[1]!]], rank: 0 };
  // `size-10`: width and height (Tailwind 3.4 on), on the spacing scale or arbitrary.
  m = /^size-(.+)$/.exec(base);
  if (m) {
    const value = spacing(m[1]!) ?? (m[1] === "full" ? "100%" : arbitrary(m[1]!));
    return value === undefined ? undefined : { style: [["width", value], ["height", value]], rank: 0 };
  }
  m = /^leading-(.+)$/.exec(base);
  if (m) {
    const value = LEADING[m[1]!] ?? (/^\d{1,2}$/.test(m[1]!) ? spacing(m[1]!) : undefined) ?? arbitrary(m[1]!);
    return value === undefined ? undefined : { style: [["lineHeight", value]], rank: 0 };
  }
  m = /^tracking-(.+)$/.exec(base);
  if (m) {
    const value = TRACKING[m[1]!] ?? arbitrary(m[1]!);
    return value === undefined ? undefined : { style: [["letterSpacing", value]], rank: 0 };
  }
  // `font-[Brand_Sans]`: a family (underscores are spaces), or a weight (`font-[550]`).
  m = /^font-\[([^\]]+)\]$/.exec(base);
  if (m) {
    const value = m[1]!.replace(/_/g, " ");
    return { style: [[/^\d+$/.test(value) ? "fontWeight" : "fontFamily", value]], rank: 0 };
  }
  // Border widths only: `border-red-500`, `border-solid`, `border-[#f00]` stay the engine's.
  m = /^border(?:-([xytrbl]))?(?:-(\d{1,3}|\[\d[^\]]*\]))?$/.exec(base);
  if (m) {
    const key = m[2];
    const value = key === undefined ? "1px" : /^\d+$/.test(key) ? `${key}px` : arbitrary(key)!;
    const side = m[1] ?? "";
    return { style: BORDER_SIDES[side]!.map((s) => [`border${s}Width`, value]), rank: side === "" ? 0 : side === "x" || side === "y" ? 1 : 2 };
  }
  return undefined;
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
const expansions = new Map<string, ExpandedClasses>();
const EXPANSIONS_KEPT = 1000;

export function expandClasses(value: string, canvas: { width: number; height: number }): ExpandedClasses {
  const key = `${canvas.width}x${canvas.height}:${value}`;
  const known = expansions.get(key);
  if (known) return known;
  const expanded = expandUncached(value, canvas);
  if (expansions.size >= EXPANSIONS_KEPT) expansions.delete(expansions.keys().next().value!);
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
  for (const match of tokens) {
    const token = match[0];
    const parts = token.split(":");
    const base = withPaletteColour(parts.pop()!);
    const variant = parts.find((p) => !VARIANTS.has(p));
    if (variant !== undefined) {
      problems.push({ token, offset: match.index, message: `Tailwind variant "${variant}:" in class "${token}" is not supported (an image has no hover, focus or dark mode; use themes)` });
      continue;
    }
    if (/url\(|https?:|data:/i.test(token)) {
      problems.push({ token, offset: match.index, message: `class "${token}": images in classes are not supported (use <img src="{{field}}">)` });
      continue;
    }
    const mine = ownClass(base);
    if (mine) {
      // Whether the variants match this canvas, asked of the engine with a class it knows.
      if (parts.length === 0 || Object.keys(expand(`${parts.join(":")}:opacity-50`, canvas)).length > 0) {
        own.push({ ...mine, level: parts.length === 0 ? 0 : Math.max(...parts.map((p) => VARIANT_ORDER.indexOf(p) + 1)), index: own.length });
      }
      continue;
    }
    // A breakpoint that does not match the canvas expands to nothing on purpose; its base must still exist.
    if (Object.keys(expand(base, canvas)).length === 0) {
      problems.push({ token, offset: match.index, message: `Tailwind class "${token}" is not supported by the renderer` });
      continue;
    }
    kept.push([...parts, base].join(":"));
  }
  const expanded = kept.length ? expand(kept.join(" "), canvas) : {};
  // `shadow-red-500` colours the shadow of `shadow-lg`: satori puts it into boxShadow the same way.
  if (typeof expanded.shadowColor === "string") {
    if (typeof expanded.boxShadow === "string") expanded.boxShadow = expanded.boxShadow.replace(/rgba?\([^)]+\)/g, expanded.shadowColor);
    delete expanded.shadowColor;
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
