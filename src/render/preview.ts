/**
 * Previews: what the template editor and the dashboard playground draw. They are for editing,
 * not a free rendering API (they are not counted toward the quota), so a preview is
 *
 * - at most PREVIEW_MAX_SIDE pixels on its longer side: a larger request is drawn scaled down
 *   (same layout, fewer pixels; layoutSize keeps the design canvas), and
 * - marked: "PREVIEW" repeated over the whole image (preview-mark.ts), so that no crop of a
 *   preview is a clean card, drawn into the card's own element tree so every engine and format
 *   carries it.
 */
import { ApiError, validationError, type FieldProblem } from "../errors.ts";
import { accountTemplateDefinition, type AccountTemplateSpec, paintCostOf, parseAccountTemplate } from "../templates/account/index.ts";
import { PAINT_BUDGET } from "../templates/account/paint-cost.ts";
import { parseRenderRequest } from "./request.ts";
import type { RenderRequest } from "./types.ts";

export { MARK_TILE, PREVIEW_MARK_TEXT, withPreviewMark } from "./preview-mark.ts";

export const PREVIEW_MAX_SIDE = 1500;

/** The size a preview of `width`×`height` is drawn at: the same proportions, capped. */
export function previewSize(width: number, height: number): { width: number; height: number } {
  const longer = Math.max(width, height);
  if (longer <= PREVIEW_MAX_SIDE) return { width, height };
  const scale = PREVIEW_MAX_SIDE / longer;
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}

/** A validated request turned into its preview: capped size, marked, kept apart from real renders in every cache. */
export function asPreview(request: RenderRequest): RenderRequest {
  return { ...request, ...previewSize(request.width, request.height), preview: true };
}

/** The header a preview's paint estimate travels in: `units=<n>; budget=<n>` (src/templates/account/paint-cost.ts). */
export const COST_HEADER = "x-template-cost";

/** The preview's X-Template-Cost: the definition's paint estimate, rounded to a unit, and the budget. */
export function costHeader(spec: AccountTemplateSpec): Record<string, string> {
  const cost = paintCostOf(spec);
  return cost === undefined ? {} : { [COST_HEADER]: `units=${Math.round(cost)}; budget=${PAINT_BUDGET.megapixels}` };
}

/** The top-level names of a template preview body (POST /api/templates/preview). */
export const PREVIEW_BODY_KEYS = ["template", "values", "theme", "width", "height", "format"] as const;

/**
 * Validates a template preview body, `{template: <definition>, values?, theme?, width?,
 * height?, format?}`, into a preview request: the definition exactly as create validates it
 * (the same 400, positions included), `values` (default: the definition's `sample`) as a
 * render of it validates its fields, named `values.<field>` in problems. Nothing is stored.
 */
export function parsePreviewRequest(body: unknown, accountId: string): RenderRequest {
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw validationError([{ field: "body", message: "must be a JSON object" }]);
  const input = body as Record<string, unknown>;
  const problems: FieldProblem[] = [];
  for (const name of Object.keys(input)) {
    if (!(PREVIEW_BODY_KEYS as readonly string[]).includes(name))
      problems.push({ field: name, message: `is not a preview parameter (${PREVIEW_BODY_KEYS.join(", ")})` });
  }
  if (input.template === undefined || input.template === null) problems.push({ field: "template", message: "is required: the template definition to preview" });
  const values = input.values ?? undefined;
  if (values !== undefined && (typeof values !== "object" || values === null || Array.isArray(values)))
    problems.push({ field: "values", message: "must be an object of field values" });
  if (problems.length) throw validationError(problems);

  // The definition's own problems are create's 400, as they are.
  const spec = parseAccountTemplate(input.template);
  const definition = accountTemplateDefinition(spec);
  const given = (values as Record<string, unknown> | undefined) ?? spec.sample;
  const names = new Set(spec.fields.map((field) => field.name));
  for (const name of Object.keys(given)) if (!names.has(name)) problems.push({ field: `values.${name}`, message: `is not a field of the ${spec.id} template` });

  let request: RenderRequest;
  try {
    const only = { get: (id: string) => (id === definition.id ? definition : undefined), list: () => [definition] };
    const fields = Object.fromEntries(Object.entries(given).filter(([name]) => names.has(name)));
    request = parseRenderRequest({ ...fields, template: spec.id, theme: input.theme, width: input.width, height: input.height, format: input.format }, only);
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== "VALIDATION_ERROR") throw error;
    const renamed = (error.details ?? []).map((problem) => (names.has(problem.field) ? { ...problem, field: `values.${problem.field}` } : problem));
    throw validationError([...problems, ...renamed]);
  }
  if (problems.length) throw validationError(problems);
  return asPreview({ ...request, accountTemplate: { accountId, version: 0, spec } });
}
