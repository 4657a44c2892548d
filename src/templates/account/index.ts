/**
 * Account templates: cards an account designs as data (HTML with inline CSS, Tailwind classes
 * and logic-less placeholders), never code. parseAccountTemplate checks a definition and
 * returns it normalized; accountTemplateDefinition turns it into a TemplateDefinition the
 * render pipeline draws like any built-in. The language is documented in docs/templates.md.
 */
import { LRUCache } from "lru-cache";
import { validationError, type FieldProblem } from "../../errors.ts";
import type { RenderContext, SatoriNode, TemplateDefinition, TemplateField } from "../types.ts";
import { renderTree } from "./compile.ts";
import { checkDefinitionShape } from "./definition.ts";
import { HTML_BOUNDS, type Orientation, orientationOf } from "./html-context.ts";
import { parseTemplateHtml, themeVariables, usesOrientation } from "./html.ts";
import { checkPaintBudget } from "./paint-cost.ts";
import type { TemplateNode } from "./tree.ts";

export interface AccountFieldSpec {
  name: string;
  type: "text" | "image_url" | "color";
  required: boolean;
  max_length?: number;
  description?: string;
}

/** A validated, normalized definition: plain JSON (stored as is, sent to render workers by structured clone). */
export interface AccountTemplateSpec {
  id: string;
  name: string;
  description: string;
  html: string;
  fields: AccountFieldSpec[];
  themes: { dark?: Record<string, string>; light?: Record<string, string> };
  /** The design canvas, default 1200×630, each 200–2400. */
  width: number;
  height: number;
  /** Named sizes (at most 8) the same HTML is drawn at; `size: "<name>"` in a request picks one. Absent when none. */
  sizes?: Record<string, { width: number; height: number }>;
  sample: Record<string, string>;
}

/** What drawing each definition parseAccountTemplate accepted costs (paint-cost.ts), for the studio. */
const costs = new WeakMap<AccountTemplateSpec, number>();

/**
 * The paint estimate of a definition parseAccountTemplate returned, in units of PAINT_BUDGET
 * (the costlier theme and orientation), or undefined for any other object.
 */
export function paintCostOf(spec: AccountTemplateSpec): number | undefined {
  return costs.get(spec);
}

/**
 * Validates a create/update/preview definition body. Throws ApiError("VALIDATION_ERROR")
 * listing every problem; problems in the HTML carry {field: "html", message, line, column}
 * (1-based). Does not check id uniqueness or clashes with built-in and operator ids.
 */
export function parseAccountTemplate(body: unknown): AccountTemplateSpec {
  const problems: FieldProblem[] = [];
  const shape = checkDefinitionShape(body, problems);
  if (typeof shape.html === "string") {
    const spec = { ...shape, html: shape.html };
    const trees = [parseTemplateHtml(spec, problems)];
    // `portrait:` and `landscape:` classes change the tree for cards of the other orientation: check that one too.
    if (usesOrientation(spec.html)) {
      const other: FieldProblem[] = [];
      trees.push(parseTemplateHtml(spec, other, orientationOf(spec) === "portrait" ? "landscape" : "portrait"));
      const seen = new Set(problems.map((p) => JSON.stringify(p)));
      for (const p of other) if (problems.length < HTML_BOUNDS.problems && !seen.has(JSON.stringify(p))) problems.push(p);
    }
    // Only here, not when a stored version is parsed again to render it (treeOf): each orientation's tree.
    let cost = 0;
    for (const parsed of trees) if (problems.length === 0) cost = Math.max(cost, checkPaintBudget(spec, parsed, problems));
    if (problems.length === 0) {
      costs.set(spec, cost);
      return spec;
    }
  }
  throw validationError(problems);
}

/**
 * Parsed trees, per spec object and by content, for each orientation of card: a render worker
 * receives a fresh copy of the spec with every job (structured clone), so the object alone
 * would never hit. A template without orientation classes has one tree for both.
 */
const parsedBySpec = new WeakMap<AccountTemplateSpec, Partial<Record<Orientation, TemplateNode[]>>>();
const PARSED_KEPT = 64;
const parsedByContent = new LRUCache<string, TemplateNode[]>({ max: PARSED_KEPT });

function treeOf(spec: AccountTemplateSpec, card: { width: number; height: number }): TemplateNode[] {
  const orientation = usesOrientation(spec.html) ? orientationOf(card) : orientationOf(spec);
  const bySpec = parsedBySpec.get(spec) ?? {};
  const known = bySpec[orientation];
  if (known) return known;
  const key = `${spec.id}:${orientation}:${Bun.hash(JSON.stringify([spec.html, spec.fields, spec.themes, spec.width, spec.height])).toString(36)}`;
  let root = parsedByContent.get(key);
  if (!root) {
    const problems: FieldProblem[] = [];
    root = parseTemplateHtml(spec, problems, orientation).root;
    // A stored spec was valid when stored; a later, stricter language refuses it here the same way.
    if (problems.length) throw validationError(problems);
    parsedByContent.set(key, root);
  }
  parsedBySpec.set(spec, { ...bySpec, [orientation]: root });
  return root;
}

/**
 * The spec as a template the render pipeline draws: fields as TemplateField, the design size
 * as `canvas`, and render() putting the values into the parsed tree with the requested
 * theme's variables, in the tree for the orientation of the card being drawn (ctx's size).
 * Never fetches: image fields arrive in ctx.images as data: URIs.
 */
export function accountTemplateDefinition(spec: AccountTemplateSpec): TemplateDefinition {
  const fields: TemplateField[] = spec.fields.map((f) => ({
    name: f.name,
    type: f.type,
    required: f.required,
    ...(f.max_length !== undefined ? { maxLength: f.max_length } : {}),
    ...(f.description !== undefined ? { description: f.description } : {}),
  }));
  return {
    id: spec.id,
    description: spec.description,
    fields,
    canvas: { width: spec.width, height: spec.height },
    ...(spec.sizes ? { sizes: spec.sizes } : {}),
    render(values: Record<string, string | undefined>, ctx: RenderContext): SatoriNode {
      return renderTree(treeOf(spec, ctx), values, ctx, themeVariables(spec.themes)[ctx.theme]);
    },
  };
}
