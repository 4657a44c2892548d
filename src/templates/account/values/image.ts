/**
 * Image layers (background-image, mask-image, the images of the background shorthand): gradients
 * with bounded stops, and data: images; with the sizes and positions that place them.
 */
import { isCssColor } from "./color.ts";
import { CSS_BOUNDS } from "./bounds.ts";
import { commaGroups, type Grammar, type Report, significant, stringify, type ValueNode, words } from "./nodes.ts";
import { dimension, RELATIVE_UNITS, toPx } from "./units.ts";

const GRADIENTS = new Set(["linear-gradient", "radial-gradient", "repeating-linear-gradient", "repeating-radial-gradient"]);

/** One layer: a gradient (its function's name and stop count) or a url() image. */
export type ImageLayer = { kind: "gradient"; name: string; stops: number } | { kind: "url" };

export interface Images {
  kind: "images";
  layers: ImageLayer[];
}

/** The background shorthand: its image layers (a colour is its text). */
export interface Background {
  kind: "background";
  layers: ImageLayer[];
}

/** A value this language checks but nothing reads past the check (positions, sizes, repeats). */
export interface Checked {
  kind: "checked";
}
export const CHECKED: Checked = { kind: "checked" };

function imageLayerList(layers: ValueNode[][], report: Report): ImageLayer[] | undefined {
  if (layers.length > CSS_BOUNDS.gradients) return void report(`has ${layers.length} layers; at most ${CSS_BOUNDS.gradients}`);
  const out: ImageLayer[] = [];
  for (const layer of layers) {
    const parts = significant(layer);
    if (parts.length !== 1 || parts[0]!.type !== "function") return void report("takes gradients or url(data:…) images, separated by commas");
    const fn = parts[0]!;
    const name = fn.value.toLowerCase();
    if (name === "url") {
      out.push({ kind: "url" }); // checked with every url() (css-declarations.ts)
      continue;
    }
    if (!GRADIENTS.has(name)) return void report(`${fn.value}() is not supported here (gradients and url(data:…) only)`);
    const stops = commaGroups(fn.nodes).length - 1;
    if (stops > CSS_BOUNDS.gradientStops) return void report(`a gradient has ${stops} colour stops; at most ${CSS_BOUNDS.gradientStops}`);
    for (const word of words(fn.nodes)) {
      const d = dimension(word);
      if (d) {
        const px = toPx(d);
        if (px !== undefined && Math.abs(px) > CSS_BOUNDS.lengthPx) return void report(`"${word}" is beyond the bound of ${CSS_BOUNDS.lengthPx}px`);
      }
    }
    out.push({ kind: "gradient", name, stops });
  }
  return out;
}

/** background-image / mask-image: gradients (bounded stops) and data: images only. */
export const images: Grammar<Images> = (value, nodes, report) => {
  if (value.trim().toLowerCase() === "none") return { kind: "images", layers: [] };
  const layers = imageLayerList(commaGroups(nodes), report);
  return layers && { kind: "images", layers };
};

export const positionWords = new Set(["left", "right", "top", "bottom", "center"]);
const BACKGROUND_WORDS = new Set(["no-repeat", "repeat", "repeat-x", "repeat-y", "cover", "contain", "auto", "/"]);

/** background shorthand: a colour, image layers, or both (position/size/repeat words allowed). */
export const background: Grammar<Background> = (value, nodes, report) => {
  if (isCssColor(value) || value.trim().toLowerCase() === "none") return { kind: "background", layers: [] };
  const gradients = commaGroups(nodes).map((layer) => significant(layer).filter((n) => n.type === "function" && !/^(rgba?|hsla?)$/i.test(n.value)));
  if (gradients.some((g) => g.length > 1)) return void report("takes one image per layer");
  const found = gradients.flat();
  const layers = found.length
    ? imageLayerList(
        found.map((n) => [n]),
        report,
      )
    : [];
  if (!layers) return undefined;
  for (const word of words(nodes.filter((n) => n.type !== "function"))) {
    const w = word.toLowerCase();
    if (isCssColor(w) || positionWords.has(w) || BACKGROUND_WORDS.has(w)) continue;
    if (!dimension(w)) return void report(`"${word}" is not part of a background`);
  }
  return { kind: "background", layers };
};

export const backgroundSize: Grammar<Checked> = (_value, nodes, report) => {
  for (const layer of commaGroups(nodes)) {
    const parts = significant(layer);
    if (parts.length < 1 || parts.length > 2) return void report("takes cover, contain, or one or two sizes per layer");
    for (const node of parts) {
      const w = node.type === "word" ? node.value.toLowerCase() : "";
      if (["auto", "cover", "contain"].includes(w)) continue;
      const d = dimension(w);
      if (!d) return void report(`"${stringify(node)}" is not a size`);
      const px = toPx(d);
      if (px !== undefined && (px < CSS_BOUNDS.backgroundSizeMinPx || px > CSS_BOUNDS.lengthPx)) {
        return void report(`a background tile must be ${CSS_BOUNDS.backgroundSizeMinPx} to ${CSS_BOUNDS.lengthPx}px`);
      }
      if (d.unit === "%" && (d.number < 1 || d.number > 1000)) return void report("a background size in % must be 1% to 1000%");
      if (px === undefined && d.unit !== "%" && !RELATIVE_UNITS.has(d.unit)) return void report(`"${w}" is not a size`);
    }
  }
  return CHECKED;
};

export const position: Grammar<Checked> = (_value, nodes, report) => {
  for (const layer of commaGroups(nodes)) {
    const parts = significant(layer);
    if (parts.length < 1 || parts.length > 4) return void report("is not a position");
    for (const node of parts) {
      if (node.type !== "word") return void report("is not a position");
      if (positionWords.has(node.value.toLowerCase())) continue;
      const d = dimension(node.value);
      if (!d || (toPx(d) === undefined && !RELATIVE_UNITS.has(d.unit))) return void report(`"${node.value}" is not a position`);
      const px = toPx(d);
      if (px !== undefined && Math.abs(px) > CSS_BOUNDS.lengthPx) return void report(`"${node.value}" is beyond the bound of ${CSS_BOUNDS.lengthPx}px`);
    }
  }
  return CHECKED;
};

/** A repeat list: each word one of `allowed`. */
export const repeats =
  (...allowed: string[]): Grammar<Checked> =>
  (_value, nodes, report) => {
    for (const word of words(nodes)) if (!allowed.includes(word.toLowerCase())) return void report(`"${word}" is not a repeat`);
    return CHECKED;
  };
