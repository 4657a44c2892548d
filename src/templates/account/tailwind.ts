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
 *
 * Utilities the engine lacks whose properties both engines draw are written here as Tailwind 4
 * writes them (`partClass`, `composite`): gradients, transforms, filters and rings, which
 * several classes make together into one declaration, and Tailwind 4's names for sizes the
 * engine has (`shadow-xs`, `rounded-xs`, `rounded-4xl`). `space-*` and `divide-*` are not: they
 * style every child but the last, and which child is last a template's sections decide only
 * when it is drawn.
 */
import { LRUCache } from "lru-cache";
import { PROPERTIES } from "./css.ts";
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

/** `1/2` → `50%`, `full` → `100%` (Tailwind's fractions of the element's own size), or undefined. */
function fraction(key: string): string | undefined {
  if (key === "full") return "100%";
  const m = /^(\d{1,2})\/(\d{1,2})$/.exec(key);
  if (!m || Number(m[2]) === 0) return undefined;
  return `${Number(((Number(m[1]) / Number(m[2])) * 100).toFixed(6))}%`;
}

/** A whole number of Tailwind's (`45`, `150`), or an arbitrary value; undefined otherwise. */
function amount(key: string, unit: string): string | undefined {
  return /^\d{1,4}$/.test(key) ? `${key}${unit}` : arbitrary(key);
}

/** `-` before a value Tailwind negates (`-rotate-12`); arbitrary values are negated with calc() there, which the language has not. */
function negate(value: string, negative: boolean): string | undefined {
  if (!negative) return value;
  if (/^-/.test(value)) return value.slice(1);
  return /^[\d.]/.test(value) ? `-${value}` : undefined;
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

/** Utilities of one fixed meaning the engine lacks, whose properties the engines draw (Tailwind's own declarations). */
const KEYWORD_UTILITIES: Record<string, Array<[string, string]>> = {
  truncate: [
    ["overflow", "hidden"],
    ["textOverflow", "ellipsis"],
    ["whiteSpace", "nowrap"],
  ],
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
    ["bottom", "center", "left", "left-bottom", "left-top", "right", "right-bottom", "right-top", "top"].map((v) => [
      `object-${v}`,
      [["objectPosition", v.replace("-", " ")]],
    ]),
  ),
};

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

/** Tailwind 4's blur scale (`blur-sm` is 8 px there; the bare `blur` is kept, 8 px). */
const BLUR: Record<string, string> = { none: "0px", xs: "4px", sm: "8px", "": "8px", md: "12px", lg: "16px", xl: "24px", "2xl": "40px", "3xl": "64px" };
/** Tailwind 4's drop shadows. */
const DROP_SHADOW: Record<string, string> = {
  none: "0 0 #0000",
  xs: "0 1px 1px rgb(0 0 0 / 0.05)",
  sm: "0 1px 2px rgb(0 0 0 / 0.15)",
  "": "0 1px 2px rgb(0 0 0 / 0.1)",
  md: "0 3px 3px rgb(0 0 0 / 0.12)",
  lg: "0 4px 4px rgb(0 0 0 / 0.15)",
  xl: "0 9px 7px rgb(0 0 0 / 0.1)",
  "2xl": "0 25px 25px rgb(0 0 0 / 0.15)",
};
/** Tailwind's filter order: one `filter` of these functions, whatever the order of the classes. */
const FILTER_ORDER = ["blur", "brightness", "contrast", "grayscale", "hue-rotate", "invert", "saturate", "sepia", "drop-shadow"];
/** Tailwind 4's order: the `translate`, `rotate` and `scale` properties, then `transform` (the skews). */
const TRANSFORM_ORDER = ["translateX", "translateY", "rotate", "scaleX", "scaleY", "skewX", "skewY"];
const GRADIENT_DIRECTIONS: Record<string, string> = {
  t: "to top",
  tr: "to top right",
  r: "to right",
  br: "to bottom right",
  b: "to bottom",
  bl: "to bottom left",
  l: "to left",
  tl: "to top left",
};
const ORIGINS: Record<string, string> = {
  center: "center",
  top: "top",
  "top-right": "right top",
  right: "right",
  "bottom-right": "right bottom",
  bottom: "bottom",
  "bottom-left": "left bottom",
  left: "left",
  "top-left": "left top",
};

/**
 * One part of a declaration that several classes make together: a gradient (direction and
 * stops), a transform, a filter, a ring. Each class sets its key; the declaration is written
 * once all the classes are read (`composite`).
 */
export interface Part {
  group: "gradient" | "transform" | "filter" | "ring" | "decoration";
  key: string;
  /** A colour part holds the colour class (`red-500/50`), resolved by the engine's palette. */
  value: string;
  colour?: boolean;
}

/** The part a class sets, or undefined when it is none of these. */
export function partClass(base: string): Part | undefined {
  let m = /^bg-(?:gradient|linear)-to-(tl|tr|bl|br|t|r|b|l)$/.exec(base);
  if (m) return { group: "gradient", key: "direction", value: GRADIENT_DIRECTIONS[m[1]!]! };
  m = /^(-?)bg-linear-(\d{1,3})$/.exec(base);
  if (m) return { group: "gradient", key: "direction", value: `${m[1]}${m[2]}deg` };
  m = /^(from|via|to)-(.+)$/.exec(base);
  if (m) return { group: "gradient", key: m[1]!, value: m[2]!, colour: true };
  m = /^(-?)rotate-(.+)$/.exec(base);
  if (m) {
    const value = amount(m[2]!, "deg");
    const signed = value && negate(value, m[1] === "-");
    return signed ? { group: "transform", key: "rotate", value: `rotate(${signed})` } : undefined;
  }
  m = /^(-?)scale(?:-([xy]))?-(.+)$/.exec(base);
  if (m) {
    const key = m[3]!;
    const value = /^\d{1,4}$/.test(key) ? String(Number(key) / 100) : arbitrary(key);
    const signed = value && negate(value, m[1] === "-");
    if (!signed) return undefined;
    return { group: "transform", key: m[2] ? `scale${m[2].toUpperCase()}` : "scale", value: signed };
  }
  m = /^(-?)translate(?:-([xy]))?-(.+)$/.exec(base);
  if (m) {
    const value = spacing(m[3]!) ?? fraction(m[3]!) ?? arbitrary(m[3]!);
    const signed = value && negate(value, m[1] === "-");
    if (!signed) return undefined;
    return { group: "transform", key: m[2] ? `translate${m[2].toUpperCase()}` : "translate", value: signed };
  }
  m = /^(-?)skew(?:-([xy]))?-(.+)$/.exec(base);
  if (m) {
    const value = amount(m[3]!, "deg");
    const signed = value && negate(value, m[1] === "-");
    if (!signed) return undefined;
    return { group: "transform", key: m[2] ? `skew${m[2].toUpperCase()}` : "skew", value: signed };
  }
  m = /^blur(?:-(.+))?$/.exec(base);
  if (m) {
    const value = BLUR[m[1] ?? ""] ?? arbitrary(m[1] ?? "");
    return value === undefined ? undefined : { group: "filter", key: "blur", value: `blur(${value})` };
  }
  m = /^drop-shadow(?:-(.+))?$/.exec(base);
  if (m) {
    const value = DROP_SHADOW[m[1] ?? ""];
    return value === undefined ? undefined : { group: "filter", key: "drop-shadow", value: `drop-shadow(${value})` };
  }
  m = /^(grayscale|invert|sepia)(?:-(.+))?$/.exec(base);
  if (m) {
    const value = m[2] === undefined ? "100%" : amount(m[2], "%");
    return value === undefined ? undefined : { group: "filter", key: m[1]!, value: `${m[1]}(${value})` };
  }
  m = /^(brightness|contrast|saturate)-(.+)$/.exec(base);
  if (m) {
    const value = amount(m[2]!, "%");
    return value === undefined ? undefined : { group: "filter", key: m[1]!, value: `${m[1]}(${value})` };
  }
  m = /^(-?)hue-rotate-(.+)$/.exec(base);
  if (m) {
    const value = amount(m[2]!, "deg");
    const signed = value && negate(value, m[1] === "-");
    return signed ? { group: "filter", key: "hue-rotate", value: `hue-rotate(${signed})` } : undefined;
  }
  m = /^decoration-(solid|double|dotted|dashed|wavy)$/.exec(base);
  if (m) return { group: "decoration", key: "style", value: m[1]! };
  m = /^decoration-(?!\d|\[\d|auto$|from-font$)(.+)$/.exec(base);
  if (m) return { group: "decoration", key: "colour", value: m[1]!, colour: true };
  // `ring` is 1 px in Tailwind 4 (3 px in Tailwind 3); `ring-2`, `ring-[3px]`; `ring-red-500` its colour.
  if (base === "ring") return { group: "ring", key: "width", value: "1px" };
  if (base === "ring-inset") return { group: "ring", key: "inset", value: "inset" };
  m = /^ring-(\d{1,2}|\[\d[^\]]*\])$/.exec(base);
  if (m) return { group: "ring", key: "width", value: /^\d+$/.test(m[1]!) ? `${m[1]}px` : arbitrary(m[1]!)! };
  m = /^ring-(?!offset-)(.+)$/.exec(base);
  if (m) return { group: "ring", key: "colour", value: m[1]!, colour: true };
  return undefined;
}

/** A colour with its alpha at 0 (a gradient's missing end fades to the other end's colour, as in Tailwind 3's sRGB gradients). */
function transparentOf(colour: string): string {
  const hex = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(colour);
  if (hex)
    return `rgba(${hex
      .slice(1)
      .map((h) => Number.parseInt(h, 16))
      .join(", ")}, 0)`;
  const rgb = /^rgba?\(\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)/i.exec(colour);
  return rgb ? `rgba(${rgb[1]}, ${rgb[2]}, ${rgb[3]}, 0)` : "transparent";
}

/** The declarations the parts make, keyed by property (camelCase). */
function composite(parts: Map<string, string>): Array<[string, string]> {
  const get = (group: string, key: string) => parts.get(`${group}:${key}`);
  const out: Array<[string, string]> = [];
  const direction = get("gradient", "direction");
  if (direction) {
    const from = get("gradient", "from");
    const via = get("gradient", "via");
    const to = get("gradient", "to");
    const start = from ?? transparentOf(via ?? to ?? "");
    const end = to ?? transparentOf(via ?? from ?? "");
    const stops = via ? `${start} 0%, ${via} 50%, ${end} 100%` : `${start} 0%, ${end} 100%`;
    out.push(["backgroundImage", `linear-gradient(${direction}, ${stops})`]);
  }
  const transform: string[] = [];
  for (const key of TRANSFORM_ORDER) {
    const value = get("transform", key);
    if (value === undefined) continue;
    transform.push(key === "rotate" ? value : `${key}(${value})`);
  }
  if (transform.length) out.push(["transform", transform.join(" ")]);
  const filters = FILTER_ORDER.map((key) => get("filter", key)).filter((v) => v !== undefined);
  if (filters.length) out.push(["filter", filters.join(" ")]);
  const ring = get("ring", "width");
  if (ring) out.push(["boxShadow", `${get("ring", "inset") ? "inset " : ""}0 0 0 ${ring} ${get("ring", "colour") ?? "currentColor"}`]);
  const decorationColour = get("decoration", "colour");
  if (decorationColour) out.push(["textDecorationColor", decorationColour]);
  const decorationStyle = get("decoration", "style");
  if (decorationStyle) out.push(["textDecorationStyle", decorationStyle]);
  return out;
}

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
  // `basis-1/2`, `basis-64`, `basis-full`, `basis-auto`, `basis-[30%]`.
  m = /^basis-(.+)$/.exec(base);
  if (m) {
    const value = spacing(m[1]!) ?? fraction(m[1]!) ?? (m[1] === "auto" ? "auto" : arbitrary(m[1]!));
    return value === undefined ? undefined : { style: [["flexBasis", value]], rank: 0 };
  }
  m = /^origin-(.+)$/.exec(base);
  if (m) {
    const value = ORIGINS[m[1]!] ?? arbitrary(m[1]!);
    return value === undefined ? undefined : { style: [["transformOrigin", value]], rank: 0 };
  }
  const keyword = KEYWORD_UTILITIES[base];
  if (keyword) return { style: keyword, rank: 0 };
  // `line-clamp-3`: at most that many lines, the last one ending in an ellipsis.
  m = /^line-clamp-(\d{1,2})$/.exec(base);
  if (m)
    return {
      style: [
        ["overflow", "hidden"],
        ["lineClamp", m[1]!],
      ],
      rank: 0,
    };
  // `size-10`: width and height (Tailwind 3.4 on), on the spacing scale or arbitrary.
  m = /^size-(.+)$/.exec(base);
  if (m) {
    const value = spacing(m[1]!) ?? (m[1] === "full" ? "100%" : arbitrary(m[1]!));
    return value === undefined
      ? undefined
      : {
          style: [
            ["width", value],
            ["height", value],
          ],
          rank: 0,
        };
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
