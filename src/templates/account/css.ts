/**
 * The CSS an account template may use: the properties satori draws, each with the grammar of
 * the values it takes (values/: one small grammar per kind of value, with the bounds on the
 * ones a value can make expensive). Each value is parsed once (css-declarations.ts reads a
 * style attribute through this table) into a typed value that the paint estimate reads and
 * whose text the renderer draws. Checked after theme variables are put in and after Tailwind
 * classes are expanded, so every route to a style meets the same rules. docs/templates.md lists
 * the same table for template authors; keep the two together.
 */
import { BORDER_STYLES, borderShorthand, type Stroke, textStroke } from "./values/border.ts";
import { CSS_BOUNDS } from "./values/bounds.ts";
import { type Color, color, isCssColor } from "./values/color.ts";
import { type Filter, filter } from "./values/filter.ts";
import { type FontFamily, fontFamily, fontSize, type FontWeight, fontWeight, type LineHeight, lineHeight } from "./values/font.ts";
import { type Background, background, backgroundSize, type Checked, CHECKED, type Images, images, position, repeats } from "./values/image.ts";
import { type Lengths, lengths } from "./values/length.ts";
import { commaGroups, type Grammar, significant, stringify, words } from "./values/nodes.ts";
import { type Shadows, shadows } from "./values/shadow.ts";
import { type Transform, transform } from "./values/transform.ts";
import { dimension } from "./values/units.ts";

export { CSS_BOUNDS } from "./values/bounds.ts";
export { clipValue } from "./values/nodes.ts";

/** Properties whose every use is drawn through a filter. */
export const EFFECT_PROPERTIES = new Set(["boxShadow", "textShadow", "filter"]);

export interface Keyword {
  kind: "keyword";
  /** Lowercase. */
  word: string;
}

export interface NumberValue {
  kind: "number";
  number: number;
}

/** clip-path: the shape's function name, or none. */
export interface ClipPath {
  kind: "clipPath";
  shape?: string;
}

/** A declaration's value, typed by its property's grammar. */
export type CssValue =
  | Keyword
  | NumberValue
  | Lengths
  | Color
  | Shadows
  | Images
  | Background
  | Filter
  | Transform
  | ClipPath
  | FontWeight
  | LineHeight
  | FontFamily
  | Stroke
  | Checked;

const keywords =
  (...allowed: string[]): Grammar<Keyword> =>
  (value, _nodes, report) => {
    const word = value.trim().toLowerCase();
    if (!allowed.includes(word)) return void report(`takes one of ${allowed.join(", ")}`);
    return { kind: "keyword", word };
  };

function numberBound(min: number, max: number, { integer = false, percent = false } = {}): Grammar<NumberValue> {
  return (value, _nodes, report) => {
    const v = value.trim();
    const d = dimension(v);
    if (!d || (d.unit !== "" && !(percent && d.unit === "%"))) return void report(`takes a number from ${min} to ${max}`);
    const n = d.unit === "%" ? d.number / 100 : d.number;
    if (n < min || n > max || (integer && !Number.isInteger(n))) return void report(`takes ${integer ? "a whole number" : "a number"} from ${min} to ${max}`);
    return { kind: "number", number: n };
  };
}

const CLIP_SHAPES = new Set(["inset", "circle", "ellipse", "polygon"]);
const clipPath: Grammar<ClipPath> = (value, nodes, report) => {
  if (value.trim().toLowerCase() === "none") return { kind: "clipPath" };
  const parts = significant(nodes);
  if (parts.length !== 1 || parts[0]!.type !== "function" || !CLIP_SHAPES.has(parts[0]!.value.toLowerCase())) {
    return void report("takes inset(), circle(), ellipse() or polygon()");
  }
  const fn = parts[0]!;
  if (fn.value.toLowerCase() === "polygon" && commaGroups(fn.nodes).length > CSS_BOUNDS.polygonPoints) {
    return void report(`a polygon has at most ${CSS_BOUNDS.polygonPoints} points`);
  }
  return { kind: "clipPath", shape: fn.value.toLowerCase() };
};

const flex: Grammar<Checked> = (value, nodes, report) => {
  const v = value.trim().toLowerCase();
  if (["none", "auto", "initial"].includes(v)) return CHECKED;
  for (const word of words(nodes)) {
    const d = dimension(word);
    if (!d && word !== "auto") return void report("takes grow, shrink and basis");
    if (d && d.unit === "" && (d.number < 0 || d.number > 1000)) return void report("grow and shrink are 0 to 1000");
  }
  return CHECKED;
};

const TEXT_DECORATIONS = ["none", "underline", "line-through", "overline", "solid", "double", "dotted", "dashed", "wavy"];
const textDecoration: Grammar<Checked> = (_value, nodes, report) => {
  for (const node of significant(nodes)) {
    const text = stringify(node).toLowerCase();
    if (TEXT_DECORATIONS.includes(text) || isCssColor(text)) continue;
    return void report(`"${text}" is not a text decoration`);
  }
  return CHECKED;
};

const L = CSS_BOUNDS.lengthPx;
const size1 = lengths(L, { allowAuto: true, count: 1 });
const size1NonNeg = lengths(L, { allowAuto: true, allowNegative: false, count: 1 });
const radius = lengths(L, { allowNegative: false, count: 8 });
const borderWidth = lengths(CSS_BOUNDS.borderWidthPx, { allowNegative: false, allowRelative: false });
const borderWidth1 = lengths(CSS_BOUNDS.borderWidthPx, { allowNegative: false, allowRelative: false, count: 1 });
const borderStyle = keywords(...BORDER_STYLES);
const align = keywords(
  "flex-start",
  "flex-end",
  "center",
  "stretch",
  "baseline",
  "space-between",
  "space-around",
  "space-evenly",
  "start",
  "end",
  "normal",
  "auto",
);

/** camelCase property (as satori takes it) → its grammar. Anything not here is refused. */
export const PROPERTIES: Record<string, Grammar<CssValue>> = {
  display: keywords("flex", "none", "block", "contents"),
  position: keywords("relative", "absolute", "static"),
  top: size1,
  right: size1,
  bottom: size1,
  left: size1,
  width: size1NonNeg,
  height: size1NonNeg,
  minWidth: size1NonNeg,
  minHeight: size1NonNeg,
  maxWidth: size1NonNeg,
  maxHeight: size1NonNeg,
  margin: lengths(L, { allowAuto: true }),
  marginTop: size1,
  marginRight: size1,
  marginBottom: size1,
  marginLeft: size1,
  padding: lengths(L, { allowNegative: false }),
  paddingTop: size1NonNeg,
  paddingRight: size1NonNeg,
  paddingBottom: size1NonNeg,
  paddingLeft: size1NonNeg,
  flex,
  flexDirection: keywords("row", "column", "row-reverse", "column-reverse"),
  flexWrap: keywords("wrap", "nowrap", "wrap-reverse"),
  flexGrow: numberBound(0, 1000),
  flexShrink: numberBound(0, 1000),
  flexBasis: size1NonNeg,
  alignItems: align,
  alignContent: align,
  alignSelf: align,
  justifyContent: align,
  gap: lengths(L, { allowNegative: false, count: 2 }),
  rowGap: size1NonNeg,
  columnGap: size1NonNeg,
  overflow: keywords("visible", "hidden"),
  boxSizing: keywords("border-box", "content-box"),
  color,
  opacity: numberBound(0, 1, { percent: true }),
  backgroundColor: color,
  backgroundImage: images,
  background,
  backgroundSize,
  backgroundPosition: position,
  backgroundRepeat: repeats("repeat", "no-repeat", "repeat-x", "repeat-y", "space", "round"),
  backgroundClip: keywords("border-box", "padding-box", "content-box", "text"),
  border: borderShorthand,
  borderTop: borderShorthand,
  borderRight: borderShorthand,
  borderBottom: borderShorthand,
  borderLeft: borderShorthand,
  borderWidth,
  borderTopWidth: borderWidth1,
  borderRightWidth: borderWidth1,
  borderBottomWidth: borderWidth1,
  borderLeftWidth: borderWidth1,
  borderStyle,
  borderTopStyle: borderStyle,
  borderRightStyle: borderStyle,
  borderBottomStyle: borderStyle,
  borderLeftStyle: borderStyle,
  borderColor: color,
  borderTopColor: color,
  borderRightColor: color,
  borderBottomColor: color,
  borderLeftColor: color,
  borderRadius: radius,
  borderTopLeftRadius: radius,
  borderTopRightRadius: radius,
  borderBottomLeftRadius: radius,
  borderBottomRightRadius: radius,
  boxShadow: shadows(true),
  textShadow: shadows(false),
  filter,
  transform,
  transformOrigin: position,
  clipPath,
  maskImage: images,
  WebkitMaskImage: images,
  maskSize: backgroundSize,
  WebkitMaskSize: backgroundSize,
  maskPosition: position,
  WebkitMaskPosition: position,
  maskRepeat: repeats("repeat", "no-repeat", "repeat-x", "repeat-y"),
  objectFit: keywords("contain", "cover", "fill", "none", "scale-down"),
  objectPosition: position,
  fontFamily,
  fontSize,
  fontWeight,
  fontStyle: keywords("normal", "italic"),
  lineHeight,
  letterSpacing: lengths(CSS_BOUNDS.letterSpacingPx, { count: 1 }),
  textAlign: keywords("left", "right", "center", "justify", "start", "end"),
  textTransform: keywords("none", "uppercase", "lowercase", "capitalize"),
  textDecoration,
  textDecorationLine: keywords("none", "underline", "line-through", "overline"),
  textDecorationStyle: keywords("solid", "double", "dotted", "dashed", "wavy"),
  textDecorationColor: color,
  textOverflow: keywords("clip", "ellipsis"),
  textWrap: keywords("wrap", "nowrap", "balance", "pretty"),
  whiteSpace: keywords("normal", "nowrap", "pre", "pre-wrap", "pre-line"),
  wordBreak: keywords("normal", "break-all", "break-word", "keep-all"),
  direction: keywords("ltr", "rtl"),
  lineClamp: numberBound(1, CSS_BOUNDS.lineClamp, { integer: true }),
  WebkitLineClamp: numberBound(1, CSS_BOUNDS.lineClamp, { integer: true }),
  WebkitTextStroke: textStroke,
  WebkitTextStrokeWidth: lengths(CSS_BOUNDS.textStrokePx, { allowNegative: false, allowRelative: false, count: 1 }),
  WebkitTextStrokeColor: color,
  WebkitBackgroundClip: keywords("border-box", "padding-box", "content-box", "text"),
  zIndex: numberBound(-1000, 1000, { integer: true }),
};

/** Properties a whole-value `{{color}}` placeholder may stand in. */
export const COLOR_PROPERTIES = new Set([
  "color",
  "backgroundColor",
  "background",
  "borderColor",
  "borderTopColor",
  "borderRightColor",
  "borderBottomColor",
  "borderLeftColor",
  "textDecorationColor",
  "WebkitTextStrokeColor",
]);
