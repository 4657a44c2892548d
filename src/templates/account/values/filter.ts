/**
 * The filter property: at most four functions, blur() and drop-shadow() with bounded radii, the
 * colour functions (brightness(), sepia()…) with bounded amounts.
 */
import { CSS_BOUNDS } from "./bounds.ts";
import { clipValue, type Grammar, significant, stringify } from "./nodes.ts";
import { type Shadow, shadows } from "./shadow.ts";
import { type Dimension, dimension, toPx } from "./units.ts";

const FILTERS = new Set(["blur", "brightness", "contrast", "grayscale", "hue-rotate", "invert", "opacity", "saturate", "sepia", "drop-shadow"]);

export type FilterFunction = { name: "blur"; blurPx: number } | { name: "drop-shadow"; shadows: Shadow[] } | { name: string; amount: Dimension };

export interface Filter {
  kind: "filter";
  functions: FilterFunction[];
}

export const filter: Grammar<Filter> = (value, nodes, report) => {
  if (value.trim().toLowerCase() === "none") return { kind: "filter", functions: [] };
  const fns = significant(nodes);
  if (fns.length > CSS_BOUNDS.filterFunctions) return void report(`has ${fns.length} filter functions; at most ${CSS_BOUNDS.filterFunctions}`);
  const out: FilterFunction[] = [];
  for (const fn of fns) {
    if (fn.type !== "function" || !FILTERS.has(fn.value.toLowerCase())) return void report(`"${clipValue(stringify(fn))}" is not a supported filter`);
    const name = fn.value.toLowerCase();
    if (name === "blur") {
      const d = dimension(stringify(fn.nodes).trim() || "0");
      const px = d && toPx(d);
      if (px === undefined || px < 0 || px > CSS_BOUNDS.blurPx) return void report(`blur radius must be 0 to ${CSS_BOUNDS.blurPx}px`);
      out.push({ name, blurPx: px });
    } else if (name === "drop-shadow") {
      let problem: string | undefined;
      const read = shadows(false)(stringify(fn.nodes), fn.nodes, (m) => {
        problem ??= m;
      });
      if (problem || !read) return void report(`drop-shadow: ${problem}`);
      // Every shadow's blur is bounded (`drop-shadow(none)` draws none).
      if (read.shadows.some((s) => s.blur > CSS_BOUNDS.blurPx)) return void report(`drop-shadow blur must be 0 to ${CSS_BOUNDS.blurPx}px`);
      out.push({ name, shadows: read.shadows });
    } else {
      const d = dimension(stringify(fn.nodes).trim() || "1");
      if (!d || Math.abs(d.number) > (d.unit === "%" ? 1000 : name === "hue-rotate" ? 3600 : 10)) return void report(`${name}() takes a bounded amount`);
      out.push({ name, amount: d });
    }
  }
  return { kind: "filter", functions: out };
};
