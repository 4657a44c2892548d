/**
 * Utilities satori's Tailwind engine lacks that several classes make together into one
 * declaration, written as Tailwind 4 writes them: a gradient (direction and stops), a transform
 * (`rotate-*`, `scale-*`, `translate-*`, `skew-*`), a filter (`blur-*`, `drop-shadow-*`, …), a
 * ring, a text decoration's style and colour. Each class sets its part (`partClass`); the
 * declarations are written once every class of the element is read (`composite`), in
 * Tailwind's order whatever the order of the classes. tailwind.ts decides which part wins.
 */
import { amount, arbitrary, fraction, negate, spacing } from "./tailwind-values.ts";

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
export function composite(parts: Map<string, string>): Array<[string, string]> {
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
