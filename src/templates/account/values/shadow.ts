/**
 * Shadow lists (box-shadow, text-shadow, and drop-shadow()'s one shadow): `x y [blur] [spread]
 * [colour]`, `inset` for a box's, comma-separated; lengths in absolute units only.
 */
import { isCssColor, isColorWord } from "./color.ts";
import { CSS_BOUNDS } from "./bounds.ts";
import { clipValue, commaGroups, type Grammar, significant, stringify } from "./nodes.ts";
import { dimension, toPx } from "./units.ts";

/** One shadow, in px. */
export interface Shadow {
  x: number;
  y: number;
  blur: number;
  spread: number;
  inset: boolean;
}

export interface Shadows {
  kind: "shadows";
  shadows: Shadow[];
}

/** `allowInsetSpread`: a box's shadow (inset, a spread); a text's has neither. */
export function shadows(allowInsetSpread: boolean): Grammar<Shadows> {
  return (value, nodes, report) => {
    if (value.trim().toLowerCase() === "none") return { kind: "shadows", shadows: [] };
    const groups = commaGroups(nodes);
    if (groups.length > CSS_BOUNDS.shadows) return void report(`has ${groups.length} shadows; at most ${CSS_BOUNDS.shadows}`);
    const out: Shadow[] = [];
    for (const group of groups) {
      const lengths: number[] = [];
      let colour = 0;
      let inset = false;
      for (const node of significant(group)) {
        if (node.type === "function") {
          if (!isCssColor(stringify(node))) return void report(`"${clipValue(stringify(node))}" is not a colour`);
          colour++;
          continue;
        }
        if (node.type !== "word") return void report("is not a shadow");
        if (node.value.toLowerCase() === "inset" && allowInsetSpread) {
          inset = true;
          continue;
        }
        const d = dimension(node.value);
        if (d) {
          const px = toPx(d);
          if (px === undefined) return void report(`shadow lengths must be in px ("${node.value}")`);
          lengths.push(px);
        } else if (isColorWord(node.value)) colour++;
        else return void report(`"${node.value}" is not part of a shadow`);
      }
      if (lengths.length < 2 || lengths.length > (allowInsetSpread ? 4 : 3) || colour > 1) return void report("is not a shadow (x y [blur] [spread] colour)");
      const [x, y, blur = 0, spread = 0] = lengths as [number, number, number?, number?];
      if (Math.abs(x) > 1000 || Math.abs(y) > 1000) return void report("shadow offsets are bounded to 1000px");
      if (blur < 0 || blur > CSS_BOUNDS.shadowBlurPx) return void report(`shadow blur radius must be 0 to ${CSS_BOUNDS.shadowBlurPx}px`);
      if (Math.abs(spread) > CSS_BOUNDS.shadowSpreadPx) return void report(`shadow spread must be within ±${CSS_BOUNDS.shadowSpreadPx}px`);
      out.push({ x, y, blur, spread, inset });
    }
    return { kind: "shadows", shadows: out };
  };
}
