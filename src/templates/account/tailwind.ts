/**
 * Tailwind classes, expanded by satori's own Tailwind engine (the one behind its `tw` prop,
 * exported by our satori patch) into the style object satori would use, so the expanded
 * declarations go through the same CSS allow-list and bounds as inline styles, and what is
 * checked is what is drawn. satori's engine supports a subset of Tailwind (layout, spacing,
 * colours, typography, borders, radii, shadows, opacity); a class it does not know is refused
 * by name instead of being dropped silently.
 */
import { twStyles } from "satori/standalone";

/** Variants that mean something for a still image: breakpoints against the design canvas. */
const VARIANTS = new Set(["sm", "md", "lg", "xl", "2xl", "portrait", "landscape"]);
export const MAX_CLASSES = 100;

/** Properties satori's engine gives as plain numbers that are not lengths. */
const UNITLESS = new Set(["opacity", "flexGrow", "flexShrink", "fontWeight", "zIndex", "lineClamp", "aspectRatio", "flex"]);

export interface ExpandedClasses {
  style: Array<[property: string, value: string]>;
  problems: Array<{ token: string; offset: number; message: string }>;
}

function expand(classes: string, canvas: { width: number; height: number }): Record<string, unknown> {
  const tw = twStyles({ width: canvas.width, height: canvas.height });
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
  for (const match of tokens) {
    const token = match[0];
    const parts = token.split(":");
    const base = parts.pop()!;
    const variant = parts.find((p) => !VARIANTS.has(p));
    if (variant !== undefined) {
      problems.push({ token, offset: match.index, message: `Tailwind variant "${variant}:" in class "${token}" is not supported (an image has no hover, focus or dark mode; use themes)` });
      continue;
    }
    if (/url\(|https?:|data:/i.test(token)) {
      problems.push({ token, offset: match.index, message: `class "${token}": images in classes are not supported (use <img src="{{field}}">)` });
      continue;
    }
    // A breakpoint that does not match the canvas expands to nothing on purpose; its base must still exist.
    if (Object.keys(expand(base, canvas)).length === 0) {
      problems.push({ token, offset: match.index, message: `Tailwind class "${token}" is not supported by the renderer` });
      continue;
    }
    kept.push(token);
  }
  const expanded = kept.length ? expand(kept.join(" "), canvas) : {};
  // `shadow-red-500` colours the shadow of `shadow-lg`: satori puts it into boxShadow the same way.
  if (typeof expanded.shadowColor === "string") {
    if (typeof expanded.boxShadow === "string") expanded.boxShadow = expanded.boxShadow.replace(/rgba?\([^)]+\)/g, expanded.shadowColor);
    delete expanded.shadowColor;
  }
  const style: Array<[string, string]> = [];
  for (const [property, raw] of Object.entries(expanded)) {
    if (typeof raw === "number") style.push([property, UNITLESS.has(property) ? String(raw) : `${raw}px`]);
    else if (typeof raw === "string") style.push([property, raw]);
    else problems.push({ token: "", offset: 0, message: `class expands to ${property}, which is not supported` });
  }
  return { style, problems };
}
