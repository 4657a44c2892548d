/**
 * The classes expanded here rather than by satori's Tailwind engine, because it leaves them out
 * or draws them otherwise than Tailwind: `gap-*` (it has none), `leading-*` and `tracking-*` (it
 * refuses the relative ones without a `text-*` size on the same element, and turns them into px
 * of that size where Tailwind means the element's own font size), border widths (it has no
 * `border-x`/`border-y`), `size-*`, `basis-*`, `origin-*`, `line-clamp-*`, arbitrary fonts, and
 * the keyword utilities of one fixed meaning it lacks (`truncate`, `object-cover`, …).
 */
import { arbitrary, fraction, spacing } from "./tailwind-values.ts";

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

export interface OwnClass {
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
