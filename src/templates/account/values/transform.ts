/**
 * Transforms: the CSS transform property (at most eight translate, scale, rotate and skew
 * functions, bounded) and an SVG transform attribute, each read for how much it scales.
 */
import { CSS_BOUNDS } from "./bounds.ts";
import { clipValue, type Grammar, significant, stringify, words } from "./nodes.ts";
import { type Dimension, dimension, toPx } from "./units.ts";

const TRANSFORMS = new Set(["translate", "translatex", "translatey", "scale", "scalex", "scaley", "rotate", "skew", "skewx", "skewy"]);

/** One transform function: its lowercase name and its arguments. */
export interface TransformFunction {
  name: string;
  args: Dimension[];
}

export interface Transform {
  kind: "transform";
  functions: TransformFunction[];
}

export const transform: Grammar<Transform> = (value, nodes, report) => {
  if (value.trim().toLowerCase() === "none") return { kind: "transform", functions: [] };
  const fns = significant(nodes);
  if (fns.length > CSS_BOUNDS.transformFunctions) return void report(`has ${fns.length} transform functions; at most ${CSS_BOUNDS.transformFunctions}`);
  const out: TransformFunction[] = [];
  for (const fn of fns) {
    if (fn.type !== "function" || !TRANSFORMS.has(fn.value.toLowerCase())) return void report(`"${clipValue(stringify(fn))}" is not a supported transform`);
    const name = fn.value.toLowerCase();
    const args: Dimension[] = [];
    for (const word of words(fn.nodes)) {
      const d = dimension(word);
      if (!d) return void report(`"${word}" is not a number`);
      if (name.startsWith("scale") && (d.unit === "" ? Math.abs(d.number) : Math.abs(d.number) / 100) > CSS_BOUNDS.scale) {
        return void report(`scale is bounded to ${CSS_BOUNDS.scale}`);
      }
      if (name.startsWith("skew") && d.unit === "deg" && Math.abs(d.number) > 89) return void report("skew is bounded to 89deg");
      const px = toPx(d);
      if (name.startsWith("translate") && px !== undefined && Math.abs(px) > CSS_BOUNDS.lengthPx)
        return void report(`translate is bounded to ${CSS_BOUNDS.lengthPx}px`);
      args.push(d);
    }
    out.push({ name, args });
  }
  return { kind: "transform", functions: out };
};

/** The largest factor a transform scales a box by (1 when it scales nothing, or shrinks it). */
export function transformScale(value: Transform | undefined): number {
  let factor = 1;
  for (const fn of value?.functions ?? []) {
    if (!fn.name.startsWith("scale")) continue;
    factor *= Math.max(1, ...fn.args.map((d) => Math.abs(d.number) / (d.unit === "%" ? 100 : 1)));
  }
  return factor;
}

/** The same for an SVG transform attribute (scale() and matrix(), whose first four numbers are linear). */
export function svgTransformScale(value: string | undefined): number {
  if (!value) return 1;
  let factor = 1;
  for (const m of value.matchAll(/(scale|matrix)\(([^)]*)\)/gi)) {
    const numbers = m[2]!
      .split(/[\s,]+/)
      .filter(Boolean)
      .map((n) => Math.abs(Number(n)));
    const linear = m[1]!.toLowerCase() === "matrix" ? numbers.slice(0, 4) : numbers;
    factor *= Math.max(1, ...linear.filter(Number.isFinite));
  }
  return factor;
}
