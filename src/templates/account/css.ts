/**
 * The CSS an account template may use: the properties satori draws, each with the values it
 * takes, and bounds on the ones a value can make expensive (blur and shadow radii, shadow
 * count, gradient stops, font size, transforms). Checked after theme variables are put in
 * and after Tailwind classes are expanded, so every route to a style meets the same rules.
 * docs/templates.md lists the same table for template authors; keep the two together.
 */
import valueParser, { type Node as ValueNode } from "postcss-value-parser";
import { isCssColor } from "./color.ts";

export const CSS_BOUNDS = {
  /** Characters in one declaration's value. */
  valueLength: 2000,
  /** Any length, anywhere (px, or its equivalent for absolute units). */
  lengthPx: 10_000,
  fontSizePx: 400,
  fontSizeEm: 10,
  blurPx: 64,
  shadowBlurPx: 100,
  shadowSpreadPx: 100,
  shadows: 4,
  gradients: 4,
  gradientStops: 16,
  filterFunctions: 4,
  transformFunctions: 8,
  scale: 10,
  lineHeight: 10,
  letterSpacingPx: 100,
  borderWidthPx: 200,
  textStrokePx: 20,
  backgroundSizeMinPx: 2,
  polygonPoints: 64,
  lineClamp: 20,
  /** Declarations that draw through a filter (shadows, blur, filter functions) in one template: each costs a pass over its area. */
  effects: 64,
} as const;

/** Properties whose every use is drawn through a filter. */
export const EFFECT_PROPERTIES = new Set(["boxShadow", "textShadow", "filter"]);

type Check = (value: string, nodes: ValueNode[], report: (message: string) => void) => void;

const LENGTH_UNITS: Record<string, number> = { px: 1, pt: 4 / 3, pc: 16, in: 96, cm: 96 / 2.54, mm: 96 / 25.4, q: 96 / 101.6 };
const RELATIVE_UNITS = new Set(["em", "rem", "%", "vw", "vh", "vmin", "vmax", "ch", "ex"]);

/** A number with its unit, or undefined for a word that is not one. */
function dimension(word: string): { number: number; unit: string } | undefined {
  const parsed = valueParser.unit(word);
  if (!parsed) return undefined;
  const number = Number(parsed.number);
  return Number.isFinite(number) ? { number, unit: parsed.unit.toLowerCase() } : undefined;
}

/** px for absolute lengths (and unitless 0); undefined for relative units. */
function toPx(d: { number: number; unit: string }): number | undefined {
  if (d.unit === "" && d.number === 0) return 0;
  const factor = LENGTH_UNITS[d.unit];
  return factor === undefined ? undefined : d.number * factor;
}

function words(nodes: ValueNode[]): string[] {
  const out: string[] = [];
  valueParser.walk(nodes, (node) => {
    if (node.type === "word") out.push(node.value);
  });
  return out;
}

/** Top-level comma-separated groups of a node list (layers, shadows, stops). */
function commaGroups(nodes: ValueNode[]): ValueNode[][] {
  const groups: ValueNode[][] = [[]];
  for (const node of nodes) {
    if (node.type === "div" && node.value === ",") groups.push([]);
    else groups[groups.length - 1]!.push(node);
  }
  return groups;
}

const significant = (nodes: ValueNode[]) => nodes.filter((n) => n.type !== "space" && n.type !== "comment");

// ---------------------------------------------------------------------------------------------
// Value shapes.

const keywords =
  (...allowed: string[]): Check =>
  (value, _nodes, report) => {
    if (!allowed.includes(value.trim().toLowerCase())) report(`takes one of ${allowed.join(", ")}`);
  };

function lengthBound(maxPx: number, { allowNegative = true, allowAuto = false, allowRelative = true, count = 4 } = {}): Check {
  return (_value, nodes, report) => {
    const parts = significant(nodes);
    if (parts.length === 0 || parts.length > count) return report(`takes ${count === 1 ? "one length" : `1 to ${count} lengths`}`);
    for (const node of parts) {
      if (node.type !== "word") return report(`takes lengths, not ${valueParser.stringify(node)}`);
      if (allowAuto && node.value.toLowerCase() === "auto") continue;
      const d = dimension(node.value);
      if (!d) return report(`"${node.value}" is not a length`);
      if (!allowNegative && d.number < 0) return report("must not be negative");
      const px = toPx(d);
      if (px === undefined) {
        if (!allowRelative || !RELATIVE_UNITS.has(d.unit)) return report(`"${node.value}" must be in px${allowRelative ? ", em, rem, % or vw/vh" : ""}`);
        const relativeMax = d.unit === "%" ? 1000 : d.unit === "em" || d.unit === "rem" ? maxPx / 16 : d.unit === "ch" || d.unit === "ex" ? maxPx / 8 : 1000;
        if (Math.abs(d.number) > relativeMax) return report(`"${node.value}" is beyond the bound of ${relativeMax}${d.unit}`);
      } else if (Math.abs(px) > maxPx) return report(`"${node.value}" is beyond the bound of ${maxPx}px`);
    }
  };
}

function numberBound(min: number, max: number, { integer = false, percent = false } = {}): Check {
  return (value, _nodes, report) => {
    const v = value.trim();
    const d = dimension(v);
    if (!d || (d.unit !== "" && !(percent && d.unit === "%"))) return report(`takes a number from ${min} to ${max}`);
    const n = d.unit === "%" ? d.number / 100 : d.number;
    if (n < min || n > max || (integer && !Number.isInteger(n))) report(`takes ${integer ? "a whole number" : "a number"} from ${min} to ${max}`);
  };
}

const colorValue: Check = (value, _nodes, report) => {
  if (!isCssColor(value) && value.trim().toLowerCase() !== "currentcolor") report(`"${clipValue(value)}" is not a colour`);
};

/** A shadow list (box-shadow, text-shadow): count and radii bounded. */
function shadows(allowInsetSpread: boolean): Check {
  return (value, nodes, report) => {
    if (value.trim().toLowerCase() === "none") return;
    const groups = commaGroups(nodes);
    if (groups.length > CSS_BOUNDS.shadows) return report(`has ${groups.length} shadows; at most ${CSS_BOUNDS.shadows}`);
    for (const group of groups) {
      const lengths: number[] = [];
      let colour = 0;
      for (const node of significant(group)) {
        if (node.type === "function") {
          if (!isCssColor(valueParser.stringify(node))) return report(`"${clipValue(valueParser.stringify(node))}" is not a colour`);
          colour++;
          continue;
        }
        if (node.type !== "word") return report("is not a shadow");
        if (node.value.toLowerCase() === "inset" && allowInsetSpread) continue;
        const d = dimension(node.value);
        if (d) {
          const px = toPx(d);
          if (px === undefined) return report(`shadow lengths must be in px ("${node.value}")`);
          lengths.push(px);
        } else if (isCssColor(node.value) || node.value.toLowerCase() === "currentcolor") colour++;
        else return report(`"${node.value}" is not part of a shadow`);
      }
      if (lengths.length < 2 || lengths.length > (allowInsetSpread ? 4 : 3) || colour > 1) return report("is not a shadow (x y [blur] [spread] colour)");
      const [x, y, blur = 0, spread = 0] = lengths as [number, number, number?, number?];
      if (Math.abs(x) > 1000 || Math.abs(y) > 1000) return report("shadow offsets are bounded to 1000px");
      if (blur < 0 || blur > CSS_BOUNDS.shadowBlurPx) return report(`shadow blur radius must be 0 to ${CSS_BOUNDS.shadowBlurPx}px`);
      if (Math.abs(spread) > CSS_BOUNDS.shadowSpreadPx) return report(`shadow spread must be within ±${CSS_BOUNDS.shadowSpreadPx}px`);
    }
  };
}

const GRADIENTS = new Set(["linear-gradient", "radial-gradient", "repeating-linear-gradient", "repeating-radial-gradient"]);

/** background-image / mask-image: gradients (bounded stops) and data: images only. */
const imageLayers: Check = (value, nodes, report) => {
  if (value.trim().toLowerCase() === "none") return;
  const layers = commaGroups(nodes);
  if (layers.length > CSS_BOUNDS.gradients) return report(`has ${layers.length} layers; at most ${CSS_BOUNDS.gradients}`);
  for (const layer of layers) {
    const parts = significant(layer);
    if (parts.length !== 1 || parts[0]!.type !== "function") return report("takes gradients or url(data:…) images, separated by commas");
    const fn = parts[0]!;
    const name = fn.value.toLowerCase();
    if (name === "url") continue; // checked with every url() (checkUrls)
    if (!GRADIENTS.has(name)) return report(`${fn.value}() is not supported here (gradients and url(data:…) only)`);
    const stops = commaGroups(fn.nodes).length - 1;
    if (stops > CSS_BOUNDS.gradientStops) return report(`a gradient has ${stops} colour stops; at most ${CSS_BOUNDS.gradientStops}`);
    for (const word of words(fn.nodes)) {
      const d = dimension(word);
      if (d) {
        const px = toPx(d);
        if (px !== undefined && Math.abs(px) > CSS_BOUNDS.lengthPx) return report(`"${word}" is beyond the bound of ${CSS_BOUNDS.lengthPx}px`);
      }
    }
  }
};

const backgroundSize: Check = (value, nodes, report) => {
  for (const layer of commaGroups(nodes)) {
    const parts = significant(layer);
    if (parts.length < 1 || parts.length > 2) return report("takes cover, contain, or one or two sizes per layer");
    for (const node of parts) {
      const w = node.type === "word" ? node.value.toLowerCase() : "";
      if (["auto", "cover", "contain"].includes(w)) continue;
      const d = dimension(w);
      if (!d) return report(`"${valueParser.stringify(node)}" is not a size`);
      const px = toPx(d);
      if (px !== undefined && (px < CSS_BOUNDS.backgroundSizeMinPx || px > CSS_BOUNDS.lengthPx)) {
        return report(`a background tile must be ${CSS_BOUNDS.backgroundSizeMinPx} to ${CSS_BOUNDS.lengthPx}px`);
      }
      if (d.unit === "%" && (d.number < 1 || d.number > 1000)) return report("a background size in % must be 1% to 1000%");
      if (px === undefined && d.unit !== "%" && !RELATIVE_UNITS.has(d.unit)) return report(`"${w}" is not a size`);
    }
  }
  void value;
};

const positionWords = new Set(["left", "right", "top", "bottom", "center"]);
const position: Check = (_value, nodes, report) => {
  for (const layer of commaGroups(nodes)) {
    const parts = significant(layer);
    if (parts.length < 1 || parts.length > 4) return report("is not a position");
    for (const node of parts) {
      if (node.type !== "word") return report("is not a position");
      if (positionWords.has(node.value.toLowerCase())) continue;
      const d = dimension(node.value);
      if (!d || (toPx(d) === undefined && !RELATIVE_UNITS.has(d.unit))) return report(`"${node.value}" is not a position`);
      const px = toPx(d);
      if (px !== undefined && Math.abs(px) > CSS_BOUNDS.lengthPx) return report(`"${node.value}" is beyond the bound of ${CSS_BOUNDS.lengthPx}px`);
    }
  }
};

const FILTERS = new Set(["blur", "brightness", "contrast", "grayscale", "hue-rotate", "invert", "opacity", "saturate", "sepia", "drop-shadow"]);
const filter: Check = (value, nodes, report) => {
  if (value.trim().toLowerCase() === "none") return;
  const fns = significant(nodes);
  if (fns.length > CSS_BOUNDS.filterFunctions) return report(`has ${fns.length} filter functions; at most ${CSS_BOUNDS.filterFunctions}`);
  for (const fn of fns) {
    if (fn.type !== "function" || !FILTERS.has(fn.value.toLowerCase())) return report(`"${clipValue(valueParser.stringify(fn))}" is not a supported filter`);
    const name = fn.value.toLowerCase();
    if (name === "blur") {
      const d = dimension(valueParser.stringify(fn.nodes).trim() || "0");
      const px = d && toPx(d);
      if (px === undefined || px < 0 || px > CSS_BOUNDS.blurPx) return report(`blur radius must be 0 to ${CSS_BOUNDS.blurPx}px`);
    } else if (name === "drop-shadow") {
      let problem: string | undefined;
      shadows(false)(valueParser.stringify(fn.nodes), fn.nodes, (m) => {
        problem ??= m;
      });
      if (problem) return report(`drop-shadow: ${problem}`);
      const lengths = words(fn.nodes).map(dimension).filter((d): d is NonNullable<typeof d> => d !== undefined);
      const blur = lengths[2] ? toPx(lengths[2]) : 0;
      if (blur !== undefined && blur > CSS_BOUNDS.blurPx) return report(`drop-shadow blur must be 0 to ${CSS_BOUNDS.blurPx}px`);
    } else {
      const d = dimension(valueParser.stringify(fn.nodes).trim() || "1");
      if (!d || Math.abs(d.number) > (d.unit === "%" ? 1000 : name === "hue-rotate" ? 3600 : 10)) return report(`${name}() takes a bounded amount`);
    }
  }
};

const TRANSFORMS = new Set(["translate", "translatex", "translatey", "scale", "scalex", "scaley", "rotate", "skew", "skewx", "skewy"]);
const transform: Check = (value, nodes, report) => {
  if (value.trim().toLowerCase() === "none") return;
  const fns = significant(nodes);
  if (fns.length > CSS_BOUNDS.transformFunctions) return report(`has ${fns.length} transform functions; at most ${CSS_BOUNDS.transformFunctions}`);
  for (const fn of fns) {
    if (fn.type !== "function" || !TRANSFORMS.has(fn.value.toLowerCase())) return report(`"${clipValue(valueParser.stringify(fn))}" is not a supported transform`);
    const name = fn.value.toLowerCase();
    for (const word of words(fn.nodes)) {
      const d = dimension(word);
      if (!d) return report(`"${word}" is not a number`);
      if (name.startsWith("scale") && (d.unit === "" ? Math.abs(d.number) : Math.abs(d.number) / 100) > CSS_BOUNDS.scale) {
        return report(`scale is bounded to ${CSS_BOUNDS.scale}`);
      }
      if (name.startsWith("skew") && d.unit === "deg" && Math.abs(d.number) > 89) return report("skew is bounded to 89deg");
      const px = toPx(d);
      if (name.startsWith("translate") && px !== undefined && Math.abs(px) > CSS_BOUNDS.lengthPx) return report(`translate is bounded to ${CSS_BOUNDS.lengthPx}px`);
    }
  }
};

const CLIP_SHAPES = new Set(["inset", "circle", "ellipse", "polygon"]);
const clipPath: Check = (value, nodes, report) => {
  if (value.trim().toLowerCase() === "none") return;
  const parts = significant(nodes);
  if (parts.length !== 1 || parts[0]!.type !== "function" || !CLIP_SHAPES.has(parts[0]!.value.toLowerCase())) {
    return report("takes inset(), circle(), ellipse() or polygon()");
  }
  const fn = parts[0]!;
  if (fn.value.toLowerCase() === "polygon" && commaGroups(fn.nodes).length > CSS_BOUNDS.polygonPoints) {
    return report(`a polygon has at most ${CSS_BOUNDS.polygonPoints} points`);
  }
};

const fontWeight: Check = (value, _nodes, report) => {
  const v = value.trim().toLowerCase();
  if (["normal", "bold", "lighter", "bolder"].includes(v)) return;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 100 || n > 900) report("takes normal, bold or a weight from 100 to 900");
};

const fontSize: Check = (_value, nodes, report) => {
  const parts = significant(nodes);
  const d = parts.length === 1 && parts[0]!.type === "word" ? dimension(parts[0]!.value) : undefined;
  if (!d) return report("takes one size");
  const px = toPx(d);
  if (px !== undefined) {
    if (px <= 0 || px > CSS_BOUNDS.fontSizePx) report(`must be above 0 and at most ${CSS_BOUNDS.fontSizePx}px`);
  } else if (d.unit === "em" || d.unit === "rem") {
    if (d.number <= 0 || d.number > CSS_BOUNDS.fontSizeEm) report(`must be above 0 and at most ${CSS_BOUNDS.fontSizeEm}${d.unit}`);
  } else if (d.unit === "%") {
    if (d.number <= 0 || d.number > CSS_BOUNDS.fontSizeEm * 100) report(`must be above 0 and at most ${CSS_BOUNDS.fontSizeEm * 100}%`);
  } else report(`"${valueParser.stringify(nodes)}" must be in px, em, rem or %`);
};

const lineHeight: Check = (value, nodes, report) => {
  if (value.trim().toLowerCase() === "normal") return;
  const d = dimension(value.trim());
  if (d && d.unit === "") {
    if (d.number < 0 || d.number > CSS_BOUNDS.lineHeight) report(`a unitless line height is 0 to ${CSS_BOUNDS.lineHeight}`);
    return;
  }
  lengthBound(CSS_BOUNDS.fontSizePx * CSS_BOUNDS.lineHeight, { allowNegative: false, count: 1 })(value, nodes, report);
};

/** border, border-top, …: width style colour in any order. */
const borderShorthand: Check = (_value, nodes, report) => {
  const parts = significant(nodes);
  if (parts.length < 1 || parts.length > 3) return report("takes a width, a style and a colour");
  for (const node of parts) {
    const text = valueParser.stringify(node);
    if (BORDER_STYLES.includes(text.toLowerCase()) || isCssColor(text) || text.toLowerCase() === "currentcolor") continue;
    const d = node.type === "word" ? dimension(node.value) : undefined;
    const px = d && toPx(d);
    if (px === undefined || px < 0 || px > CSS_BOUNDS.borderWidthPx) return report(`"${clipValue(text)}" is not a border width (0 to ${CSS_BOUNDS.borderWidthPx}px), style or colour`);
  }
};
const BORDER_STYLES = ["none", "solid", "dashed", "dotted", "double", "hidden"];

/** background shorthand: a colour, image layers, or both (position/size/repeat words allowed). */
const background: Check = (value, nodes, report) => {
  if (isCssColor(value) || value.trim().toLowerCase() === "none") return;
  const gradients = commaGroups(nodes).map((layer) => significant(layer).filter((n) => n.type === "function" && !/^(rgba?|hsla?)$/i.test(n.value)));
  if (gradients.some((g) => g.length > 1)) return report("takes one image per layer");
  const images = gradients.flat();
  if (images.length) imageLayers(images.map((n) => valueParser.stringify(n)).join(", "), valueParser(images.map((n) => valueParser.stringify(n)).join(", ")).nodes, report);
  for (const word of words(nodes.filter((n) => n.type !== "function"))) {
    const w = word.toLowerCase();
    if (isCssColor(w) || positionWords.has(w) || ["no-repeat", "repeat", "repeat-x", "repeat-y", "cover", "contain", "auto", "/"].includes(w)) continue;
    const d = dimension(w);
    if (!d) return report(`"${word}" is not part of a background`);
  }
};

const textStroke: Check = (_value, nodes, report) => {
  for (const node of significant(nodes)) {
    const text = valueParser.stringify(node);
    if (isCssColor(text)) continue;
    const d = node.type === "word" ? dimension(node.value) : undefined;
    const px = d && toPx(d);
    if (px === undefined || px < 0 || px > CSS_BOUNDS.textStrokePx) return report(`takes a width (0 to ${CSS_BOUNDS.textStrokePx}px) and a colour`);
  }
};

const anyFontFamily: Check = (value, _nodes, report) => {
  // Names only: the fonts are the ones the server bundles or its operator installs.
  if (!/^[\w\s"',-]{1,200}$/.test(value)) report("takes font family names (letters, digits, spaces, quotes, commas)");
};

const L = CSS_BOUNDS.lengthPx;
const size1 = lengthBound(L, { allowAuto: true, count: 1 });
const size1NonNeg = lengthBound(L, { allowAuto: true, allowNegative: false, count: 1 });
const radius = lengthBound(L, { allowNegative: false, count: 8 });
const borderWidth = lengthBound(CSS_BOUNDS.borderWidthPx, { allowNegative: false, allowRelative: false });
const borderWidth1 = lengthBound(CSS_BOUNDS.borderWidthPx, { allowNegative: false, allowRelative: false, count: 1 });
const borderStyle = keywords(...BORDER_STYLES);
const align = keywords("flex-start", "flex-end", "center", "stretch", "baseline", "space-between", "space-around", "space-evenly", "start", "end", "normal", "auto");

/** camelCase property (as satori takes it) → its check. Anything not here is refused. */
export const PROPERTIES: Record<string, Check> = {
  display: keywords("flex", "none", "block", "contents"),
  position: keywords("relative", "absolute", "static"),
  top: size1, right: size1, bottom: size1, left: size1,
  width: size1NonNeg, height: size1NonNeg, minWidth: size1NonNeg, minHeight: size1NonNeg, maxWidth: size1NonNeg, maxHeight: size1NonNeg,
  margin: lengthBound(L, { allowAuto: true }),
  marginTop: size1, marginRight: size1, marginBottom: size1, marginLeft: size1,
  padding: lengthBound(L, { allowNegative: false }),
  paddingTop: size1NonNeg, paddingRight: size1NonNeg, paddingBottom: size1NonNeg, paddingLeft: size1NonNeg,
  flex: (value, nodes, report) => {
    const v = value.trim().toLowerCase();
    if (["none", "auto", "initial"].includes(v)) return;
    for (const word of words(nodes)) {
      const d = dimension(word);
      if (!d && word !== "auto") return report("takes grow, shrink and basis");
      if (d && d.unit === "" && (d.number < 0 || d.number > 1000)) return report("grow and shrink are 0 to 1000");
    }
  },
  flexDirection: keywords("row", "column", "row-reverse", "column-reverse"),
  flexWrap: keywords("wrap", "nowrap", "wrap-reverse"),
  flexGrow: numberBound(0, 1000), flexShrink: numberBound(0, 1000), flexBasis: size1NonNeg,
  alignItems: align, alignContent: align, alignSelf: align, justifyContent: align,
  gap: lengthBound(L, { allowNegative: false, count: 2 }), rowGap: size1NonNeg, columnGap: size1NonNeg,
  overflow: keywords("visible", "hidden"),
  boxSizing: keywords("border-box", "content-box"),
  color: colorValue,
  opacity: numberBound(0, 1, { percent: true }),
  backgroundColor: colorValue,
  backgroundImage: imageLayers,
  background,
  backgroundSize,
  backgroundPosition: position,
  backgroundRepeat: (_value, nodes, report) => {
    for (const word of words(nodes)) if (!["repeat", "no-repeat", "repeat-x", "repeat-y", "space", "round"].includes(word.toLowerCase())) return report(`"${word}" is not a repeat`);
  },
  backgroundClip: keywords("border-box", "padding-box", "content-box", "text"),
  border: borderShorthand, borderTop: borderShorthand, borderRight: borderShorthand, borderBottom: borderShorthand, borderLeft: borderShorthand,
  borderWidth, borderTopWidth: borderWidth1, borderRightWidth: borderWidth1, borderBottomWidth: borderWidth1, borderLeftWidth: borderWidth1,
  borderStyle, borderTopStyle: borderStyle, borderRightStyle: borderStyle, borderBottomStyle: borderStyle, borderLeftStyle: borderStyle,
  borderColor: colorValue, borderTopColor: colorValue, borderRightColor: colorValue, borderBottomColor: colorValue, borderLeftColor: colorValue,
  borderRadius: radius, borderTopLeftRadius: radius, borderTopRightRadius: radius, borderBottomLeftRadius: radius, borderBottomRightRadius: radius,
  boxShadow: shadows(true),
  textShadow: shadows(false),
  filter,
  transform,
  transformOrigin: position,
  clipPath,
  maskImage: imageLayers, WebkitMaskImage: imageLayers,
  maskSize: backgroundSize, WebkitMaskSize: backgroundSize,
  maskPosition: position, WebkitMaskPosition: position,
  maskRepeat: (_v, nodes, report) => {
    for (const word of words(nodes)) if (!["repeat", "no-repeat", "repeat-x", "repeat-y"].includes(word.toLowerCase())) return report(`"${word}" is not a repeat`);
  },
  objectFit: keywords("contain", "cover", "fill", "none", "scale-down"),
  objectPosition: position,
  fontFamily: anyFontFamily,
  fontSize,
  fontWeight,
  fontStyle: keywords("normal", "italic"),
  lineHeight,
  letterSpacing: lengthBound(CSS_BOUNDS.letterSpacingPx, { count: 1 }),
  textAlign: keywords("left", "right", "center", "justify", "start", "end"),
  textTransform: keywords("none", "uppercase", "lowercase", "capitalize"),
  textDecoration: (_value, nodes, report) => {
    for (const node of significant(nodes)) {
      const text = valueParser.stringify(node).toLowerCase();
      if (["none", "underline", "line-through", "overline", "solid", "double", "dotted", "dashed", "wavy"].includes(text) || isCssColor(text)) continue;
      return report(`"${text}" is not a text decoration`);
    }
  },
  textDecorationLine: keywords("none", "underline", "line-through", "overline"),
  textDecorationStyle: keywords("solid", "double", "dotted", "dashed", "wavy"),
  textDecorationColor: colorValue,
  textOverflow: keywords("clip", "ellipsis"),
  textWrap: keywords("wrap", "nowrap", "balance", "pretty"),
  whiteSpace: keywords("normal", "nowrap", "pre", "pre-wrap", "pre-line"),
  wordBreak: keywords("normal", "break-all", "break-word", "keep-all"),
  direction: keywords("ltr", "rtl"),
  lineClamp: numberBound(1, CSS_BOUNDS.lineClamp, { integer: true }),
  WebkitLineClamp: numberBound(1, CSS_BOUNDS.lineClamp, { integer: true }),
  WebkitTextStroke: textStroke,
  WebkitTextStrokeWidth: lengthBound(CSS_BOUNDS.textStrokePx, { allowNegative: false, allowRelative: false, count: 1 }),
  WebkitTextStrokeColor: colorValue,
  WebkitBackgroundClip: keywords("border-box", "padding-box", "content-box", "text"),
  zIndex: numberBound(-1000, 1000, { integer: true }),
};

/** Properties a whole-value `{{color}}` placeholder may stand in. */
export const COLOR_PROPERTIES = new Set(["color", "backgroundColor", "background", "borderColor", "borderTopColor", "borderRightColor", "borderBottomColor", "borderLeftColor", "textDecorationColor", "WebkitTextStrokeColor"]);

export function camelCaseProperty(name: string): string {
  const lower = name.trim().toLowerCase();
  const vendor = lower.startsWith("-webkit-") ? "Webkit" : "";
  const rest = vendor ? lower.slice("-webkit-".length) : lower;
  return vendor + rest.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase()).replace(/^[a-z]/, (c) => (vendor ? c.toUpperCase() : c));
}

/** `backgroundColor` → `background-color`; `WebkitTextStroke` → `-webkit-text-stroke` (its capital W is the leading dash). */
export function kebabCaseProperty(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/**
 * Why `value` is not acceptable for `property` (camelCase), or undefined. `value` has theme
 * variables already put in. Every url() must be a data: image (`checkDataUri` decides about SVG).
 */
export function checkDeclaration(property: string, value: string, checkDataUri: (uri: string) => string | undefined): string | undefined {
  const check = PROPERTIES[property];
  if (!check) return `CSS property "${kebabCaseProperty(property)}" is not supported`;
  if (value.length > CSS_BOUNDS.valueLength) return `the value of "${kebabCaseProperty(property)}" is longer than ${CSS_BOUNDS.valueLength} characters`;
  // data: URIs legitimately hold ; and other punctuation: look outside url() only.
  const outsideUrls = value.replace(/url\(\s*(["']?)[^)]*?\1\s*\)/gi, "url()");
  if (/[<>{};\\]|\/\*|@import|expression\s*\(|javascript:/i.test(outsideUrls)) return `the value of "${kebabCaseProperty(property)}" contains characters or words CSS values here may not (< > { } ; \\ comments, @import, expression(), javascript:)`;
  const nodes = valueParser(value).nodes;
  let problem: string | undefined;
  valueParser.walk(nodes, (node) => {
    if (problem || node.type !== "function") return;
    const name = node.value.toLowerCase();
    if (name === "url") {
      const target = node.nodes.map((n) => (n.type === "string" ? n.value : valueParser.stringify(n))).join("").trim();
      if (/^https?:/i.test(target) || target.startsWith("//")) problem = `url() takes a data: URI, not "${clipValue(target)}" (declare an image_url field and use <img src="{{field}}">)`;
      else if (!/^data:image\//i.test(target)) problem = `url() takes a data:image URI only, not "${clipValue(target)}"`;
      else problem = checkDataUri(target);
      return false;
    }
    if (name === "var") problem = `${valueParser.stringify(node)} names no theme variable`;
    else if (name === "calc" || name === "env" || name === "attr" || name === "image-set" || name === "element" || name === "cross-fade") {
      problem = `${name}() is not supported`;
    }
    return undefined;
  });
  if (problem) return `${kebabCaseProperty(property)}: ${problem}`;
  let reported: string | undefined;
  check(value, nodes, (message) => {
    reported ??= message;
  });
  return reported && `${kebabCaseProperty(property)}: ${reported}`;
}

export function clipValue(text: string, max = 60): string {
  const oneLine = text.replace(/\s+/g, " ").trim();
  return oneLine.length > max ? `${oneLine.slice(0, max - 1)}…` : oneLine;
}

/**
 * Splits a style attribute into declarations, keeping each one's offset in the attribute
 * value. A `;` inside parentheses or quotes (a data: URI) does not end a declaration.
 */
export function splitDeclarations(text: string): Array<{ property: string; value: string; offset: number }> {
  const out: Array<{ property: string; value: string; offset: number }> = [];
  let depth = 0;
  let quote = "";
  let start = 0;
  const flush = (end: number) => {
    const raw = text.slice(start, end);
    if (raw.trim()) {
      const colon = raw.indexOf(":");
      const lead = raw.length - raw.trimStart().length;
      out.push(colon < 0 ? { property: raw.trim(), value: "", offset: start + lead } : { property: raw.slice(0, colon).trim(), value: raw.slice(colon + 1).trim(), offset: start + lead });
    }
    start = end + 1;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === quote) quote = "";
    } else if (c === '"' || c === "'") quote = c;
    else if (c === "(") depth++;
    else if (c === ")") depth = Math.max(0, depth - 1);
    else if (c === ";" && depth === 0) flush(i);
  }
  flush(text.length);
  return out;
}
