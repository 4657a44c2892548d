/**
 * How many elements an SVG draws once its references are followed. A `<use>` draws its target
 * again, and an element that names a mask, clip path, pattern or filter by `url(#id)` draws (or
 * runs) that content for itself. So a few dozen elements can draw millions: ten `<use>` of a
 * group of ten `<use>` of a group of … Measured here, three such levels over one full-card
 * rectangle (1,000 draws) took 18 s to rasterize at 1200×1200, and every level multiplies that by
 * ten; a rasterizer cannot be stopped mid-draw. So the count is bounded before anything is drawn,
 * for a template's SVG and for a fetched one alike.
 */

/** An SVG element as far as its references go. */
export interface SvgReferenceNode {
  /** The element's local name. */
  tag: string;
  id?: string;
  /** The ids it refers to: `href="#id"`, and `url(#id)` in its attributes. */
  refs: string[];
  children: SvgReferenceNode[];
  /** What the element draws by itself, in elements: 1, or a nested SVG image's own count. */
  self?: number;
}

const GRADIENTS = new Set(["linearGradient", "radialGradient"]);

/** The ids an element's attributes refer to inside the document. */
export function referencesOf(attributes: Iterable<[name: string, value: string]>): string[] {
  const refs: string[] = [];
  for (const [name, value] of attributes) {
    const v = value.trim();
    if (/^(xlink:)?href$/.test(name) && v.startsWith("#")) refs.push(v.slice(1));
    for (const m of v.matchAll(/url\(\s*(["']?)#([^)"'\s]+)\1\s*\)/gi)) refs.push(m[2]!);
  }
  return refs;
}

/**
 * Elements drawn by `root` with every reference followed: Infinity when a reference leads back
 * to an element that is drawing it (a `<use>` of its own group), which would never end.
 */
export function drawnElements(root: SvgReferenceNode): number {
  const byId = new Map<string, SvgReferenceNode>();
  const index = (node: SvgReferenceNode) => {
    // As in a browser, the first element with an id is the one a reference finds.
    if (node.id && !byId.has(node.id)) byId.set(node.id, node);
    for (const child of node.children) index(child);
  };
  index(root);
  const counted = new Map<SvgReferenceNode, number>();
  const drawing = new Set<SvgReferenceNode>();
  const count = (node: SvgReferenceNode): number => {
    const known = counted.get(node);
    if (known !== undefined) return known;
    if (drawing.has(node)) return Number.POSITIVE_INFINITY;
    drawing.add(node);
    let total = node.self ?? 1;
    for (const child of node.children) total += count(child);
    for (const id of node.refs) {
      const target = byId.get(id);
      // A gradient is a paint, looked up, not drawn again: its stops are not elements drawn.
      if (target && !GRADIENTS.has(target.tag)) total += count(target);
    }
    drawing.delete(node);
    counted.set(node, total);
    return total;
  };
  return count(root);
}

/** The problem with an SVG that draws `drawn` elements, or undefined when it is within `bound`. */
export function expansionProblem(drawn: number, bound: number): string | undefined {
  if (drawn === Number.POSITIVE_INFINITY) return "an SVG element refers to itself (a <use> or url(#…) that leads back to an element drawing it)";
  if (drawn > bound)
    return `an SVG draws at most ${bound.toLocaleString("en-US")} elements once its <use> and url(#…) references are followed; this one draws ${drawn >= 1e9 ? "over a billion" : Math.round(drawn).toLocaleString("en-US")}`;
  return undefined;
}
