/**
 * Turns a generation request body (HTTP or an item of `ogsmith render --batch`) into a
 * RenderRequest, or throws one VALIDATION_ERROR listing every bad field (limits in docs/templates.md).
 * The template decides which fields exist, so this is driven by the template's field schema
 * rather than one static body schema.
 */
import { ApiError, validationError, type FieldProblem } from "../errors.ts";
import { COLOR_FORMS, isCssColor } from "../templates/account/values/color.ts";
import type { TemplateDefinition, TemplateField } from "../templates/types.ts";
import { effectiveQuality, IMAGE_FORMATS } from "./output/encode.ts";
import { COMMON_FIELDS, defaultTextLength, MAX_IMAGE_BYTES, MAX_SIZE, MAX_URL_LENGTH, MIN_SIZE } from "../media/card.ts";
import { DEFAULT_HEIGHT, DEFAULT_WIDTH, type RenderRequest } from "./types.ts";

export interface TemplateLookup {
  get(id: string): TemplateDefinition | undefined;
  list(): TemplateDefinition[];
}

export { COMMON_FIELDS, MAX_IMAGE_BYTES, MAX_SIZE, MAX_URL_LENGTH, MIN_SIZE };
export const THEMES = ["dark", "light"] as const;
export const FORMATS = IMAGE_FORMATS;
/**
 * The longest data: value, in characters: the base64 of MAX_IMAGE_BYTES (6.67 MiB) with room for
 * the `data:image/…;base64,` header and line breaks in the payload. What bounds a data: image is
 * what it decodes to; this only stops a value that is mostly whitespace.
 */
export const MAX_DATA_URI_LENGTH = 7 * 1024 * 1024;
export const DEFAULT_TEMPLATE = "event";

/** How a request's values travel. In a signed URL's query (`url`), every value, a data: image included, is held to MAX_URL_LENGTH. */
export interface ParseOptions {
  values?: "body" | "url";
}

/**
 * The longest value a field takes, in characters (code points): what the catalog reports as
 * `max_length` and the OpenAPI schema as `maxLength`. An `image_url` field takes a data: image
 * up to MAX_DATA_URI_LENGTH (bounded by what it decodes to); its own `maxLength` bounds http(s)
 * URLs (urlLengthOf).
 */
export const maxLengthOf = (field: TemplateField): number =>
  field.type === "image_url"
    ? Math.max(MAX_DATA_URI_LENGTH, urlLengthOf(field))
    : (field.maxLength ?? (field.type === "color" ? 64 : defaultTextLength(field.name)));

/** The longest http(s) URL an `image_url` field takes: its own `maxLength`, at most MAX_URL_LENGTH. */
export const urlLengthOf = (field: TemplateField): number => field.maxLength ?? MAX_URL_LENGTH;

const DATA_IMAGE_URI = /^data:image\/[a-z0-9.+-]+;base64,[A-Za-z0-9+/=\s]+$/i;

function checkUrl(value: string): string | undefined {
  if (value.startsWith("data:")) return DATA_IMAGE_URI.test(value) ? undefined : "must be an http(s) URL or a data:image/…;base64 URI";
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "must be a valid URL";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return "must use http or https (or be a data:image/…;base64 URI)";
  if (url.username || url.password) return "must not contain credentials";
  return undefined;
}

/** The bytes a data: URI's base64 payload decodes to, whitespace ignored (counted, not decoded). */
export function decodedSizeOfDataUri(value: string): number {
  const payload = value.slice(value.indexOf(",") + 1).replace(/\s+/g, "");
  const padding = payload.endsWith("==") ? 2 : payload.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((payload.length * 3) / 4) - padding);
}

const mib = (bytes: number) => `${Number((bytes / (1024 * 1024)).toFixed(2))} MiB`;

/**
 * An `image_url` value's size: an http(s) URL (and any value in a signed URL) by its length, a
 * data: image in a body by what it decodes to. Undefined when it is within its bound.
 */
function imageValueTooLong(field: TemplateField, raw: string, options: ParseOptions): string | undefined {
  const dataUri = raw.startsWith("data:");
  if (!dataUri || options.values === "url") {
    const max = Math.min(urlLengthOf(field), MAX_URL_LENGTH);
    // Measured in UTF-16 units first: a value of millions of characters is not split into code points.
    if (raw.length <= max) return undefined;
    const length = [...raw].length;
    if (length <= max) return undefined;
    if (!dataUri) return `must be at most ${max} characters (got ${length})`;
    return `must be at most ${max} characters in a signed URL (got ${length}); a larger data: image (up to ${mib(MAX_IMAGE_BYTES)}) goes in the body of POST /api/generate`;
  }
  if (raw.length > MAX_DATA_URI_LENGTH) return `must be at most ${MAX_DATA_URI_LENGTH} characters as a data: image (got ${raw.length})`;
  const bytes = decodedSizeOfDataUri(raw);
  if (bytes > MAX_IMAGE_BYTES) return `must decode to at most ${mib(MAX_IMAGE_BYTES)} (${MAX_IMAGE_BYTES} bytes) as a data: image (got ${bytes} bytes)`;
  return undefined;
}

function checkField(field: TemplateField, raw: unknown, problems: FieldProblem[], options: ParseOptions): string | undefined {
  const absent = raw === undefined || raw === null || (raw === "" && !field.required);
  if (absent) {
    if (field.required) problems.push({ field: field.name, message: "is required" });
    return undefined;
  }
  if (typeof raw !== "string") {
    problems.push({ field: field.name, message: "must be a string" });
    return undefined;
  }
  if (field.type === "image_url") {
    const blank = field.required && raw.trim().length === 0 ? `must be 1 to ${urlLengthOf(field)} characters` : undefined;
    const problem = blank ?? imageValueTooLong(field, raw, options) ?? checkUrl(raw);
    if (problem) {
      problems.push({ field: field.name, message: problem });
      return undefined;
    }
    return raw;
  }
  const max = maxLengthOf(field);
  // Count characters as a person would (code points), so an emoji is one, not two.
  const length = [...raw].length;
  if (field.required && raw.trim().length === 0) {
    problems.push({ field: field.name, message: `must be 1 to ${max} characters` });
    return undefined;
  }
  if (length > max) {
    problems.push({ field: field.name, message: `must be at most ${max} characters (got ${length})` });
    return undefined;
  }
  if (field.type === "color" && !isCssColor(raw)) {
    // The value goes into an inline style: anything but one colour would be CSS injection.
    problems.push({ field: field.name, message: `must be ${COLOR_FORMS}` });
    return undefined;
  }
  return raw;
}

function checkSize(name: "width" | "height", raw: unknown, fallback: number, problems: FieldProblem[]): number {
  if (raw === undefined || raw === null) return fallback;
  if (typeof raw !== "number" || !Number.isInteger(raw) || raw < MIN_SIZE || raw > MAX_SIZE) {
    problems.push({ field: name, message: `must be a whole number from ${MIN_SIZE} to ${MAX_SIZE}` });
    return fallback;
  }
  return raw;
}

function checkQuality(raw: unknown, problems: FieldProblem[]): number | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== "number" || !Number.isInteger(raw) || raw < 1 || raw > 100) {
    problems.push({ field: "quality", message: "must be a whole number from 1 to 100" });
    return undefined;
  }
  return raw;
}

function checkEnum<T extends string>(name: string, raw: unknown, allowed: readonly T[], fallback: T, problems: FieldProblem[]): T {
  if (raw === undefined || raw === null) return fallback;
  if (typeof raw !== "string" || !allowed.includes(raw as T)) {
    problems.push({ field: name, message: `must be one of ${allowed.join(", ")}` });
    return fallback;
  }
  return raw as T;
}

/** The named size a request picks (`size`), or undefined with its problem recorded. */
function checkSizeName(template: TemplateDefinition, input: Record<string, unknown>, problems: FieldProblem[]): { width: number; height: number } | undefined {
  const names = Object.keys(template.sizes ?? {});
  const raw = input.size;
  const size = typeof raw === "string" && Object.hasOwn(template.sizes ?? {}, raw) ? template.sizes![raw] : undefined;
  if (!size) {
    problems.push({
      field: "size",
      message:
        names.length > 0
          ? `must be one of ${names.join(", ")} (the sizes the ${template.id} template declares)`
          : `the ${template.id} template declares no sizes; give width and height instead`,
    });
    return undefined;
  }
  if ((input.width !== undefined && input.width !== null) || (input.height !== undefined && input.height !== null)) {
    problems.push({ field: "size", message: "names a size of its own; leave width and height out" });
    return undefined;
  }
  return size;
}

/** 400 UNKNOWN_TEMPLATE for `id`, naming the templates the caller may use. */
export function unknownTemplate(id: string, known: string[]): ApiError {
  return new ApiError("UNKNOWN_TEMPLATE", `Unknown template "${id}". Known templates: ${known.join(", ")}.`, [
    { field: "template", message: `must be one of ${known.join(", ")}` },
  ]);
}

export function parseRenderRequest(body: unknown, templates: TemplateLookup, options: ParseOptions = {}): RenderRequest {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw validationError([{ field: "body", message: "must be a JSON object" }]);
  }
  const input = body as Record<string, unknown>;
  const templateId = input.template ?? DEFAULT_TEMPLATE;
  if (typeof templateId !== "string") throw validationError([{ field: "template", message: "must be a string" }]);
  const template = templates.get(templateId);
  if (!template)
    throw unknownTemplate(
      templateId,
      templates.list().map((t) => t.id),
    );

  const problems: FieldProblem[] = [];
  const theme = checkEnum("theme", input.theme, THEMES, "dark", problems);
  const format = checkEnum("format", input.format, FORMATS, "png", problems);
  let width = checkSize("width", input.width, DEFAULT_WIDTH, problems);
  let height = checkSize("height", input.height, DEFAULT_HEIGHT, problems);
  // A template with a field of its own named `size` (made before `size` was reserved) keeps it as a field.
  const sizeIsField = template.fields.some((f) => f.name === "size");
  if (!sizeIsField && input.size !== undefined && input.size !== null) {
    const picked = checkSizeName(template, input, problems);
    if (picked) ({ width, height } = picked);
  }
  const quality = checkQuality(input.quality, problems);

  const fields: Record<string, string | undefined> = {};
  for (const field of template.fields) {
    const value = checkField(field, input[field.name], problems, options);
    if (value !== undefined) fields[field.name] = value;
  }

  const known = new Set<string>([...COMMON_FIELDS, ...template.fields.map((f) => f.name)]);
  for (const name of Object.keys(input)) {
    if (known.has(name)) continue;
    const owner = templates.list().find((t) => t.id !== template.id && t.fields.some((f) => f.name === name));
    problems.push({
      field: name,
      message: owner ? `is a field of the ${owner.id} template, not ${template.id}` : `is not a field of the ${template.id} template`,
    });
  }

  if (problems.length) throw validationError(problems);
  // PNG is lossless: a quality sent with it is accepted and ignored, so it cannot split the cache.
  return { template: template.id, definition: template, theme, fields, width, height, format, quality: effectiveQuality(format, quality) };
}
