/**
 * The non-HTML half of an account template's definition: id, name, description, fields,
 * themes, canvas and sample values. Each problem is collected (not thrown) so one 400 lists
 * them all, together with the problems found in the HTML.
 */
import type { FieldProblem } from "../../errors.ts";
import { COMMON_FIELDS, MAX_IMAGE_BYTES, MAX_SIZE, MAX_URL_LENGTH, MIN_SIZE } from "../../media/card.ts";
import { TEMPLATE_ID } from "../loader.ts";
import { COLOR_FORMS, isCssColor } from "./values/color.ts";
import type { AccountFieldSpec, AccountTemplateSpec } from "./spec.ts";

export const LIMITS = {
  fields: 30,
  nameLength: 100,
  descriptionLength: 500,
  fieldDescriptionLength: 300,
  themeVariables: 50,
  themeValueLength: 200,
  sampleValueLength: 4096,
  /**
   * Ceilings for a field's own max_length, per type. An image_url field's max_length bounds an
   * http(s) URL (at most MAX_URL_LENGTH); a data: image is bounded by what it decodes to
   * (MAX_IMAGE_BYTES), whatever the field's max_length.
   */
  maxLength: { text: 2000, image_url: MAX_URL_LENGTH, color: 64 },
} as const;

const FIELD_NAME = /^[a-z][a-z0-9_]{0,63}$/;
const THEME_VARIABLE = /^[a-zA-Z][a-zA-Z0-9_-]{0,63}$/;
/** Names reserved for the request itself: a template field of that name could never be set. */
const RESERVED = new Set<string>([...COMMON_FIELDS, "template_version"]);
const FIELD_TYPES = ["text", "image_url", "color"] as const;
const DEFAULT_CANVAS = { width: 1200, height: 630 };
/** A size set's names: `size: "square"` in a request picks one. */
export const SIZE_NAME = /^[a-z][a-z0-9_-]{0,19}$/;
export const MAX_SIZES = 8;

/**
 * Control characters (C0, C1 except tab/newline) and the bidi overrides and isolates that can
 * make a name read differently from what it is, in a terminal, an email or a page.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const UNSAFE_TEXT = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/g;

export function cleanText(value: string): string {
  return value.replace(UNSAFE_TEXT, "");
}

/** Everything but `html`, checked; `html` is returned raw for the language to parse. */
export function checkDefinitionShape(body: unknown, problems: FieldProblem[]): Omit<AccountTemplateSpec, "html"> & { html: unknown } {
  const input = typeof body === "object" && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
  if (!input) {
    problems.push({ field: "body", message: "must be a JSON object (a template definition)" });
    return { id: "", name: "", description: "", html: "", fields: [], themes: {}, width: DEFAULT_CANVAS.width, height: DEFAULT_CANVAS.height, sample: {} };
  }
  const known = new Set(["id", "name", "description", "html", "fields", "themes", "width", "height", "sizes", "sample"]);
  for (const key of Object.keys(input)) {
    // What GET returns (version, source, dates) is accepted back, so a fetched file round-trips.
    if (!known.has(key) && !["version", "source", "created_at", "updated_at"].includes(key))
      problems.push({ field: key, message: "is not part of a template definition" });
  }

  let id = "";
  if (typeof input.id !== "string" || !TEMPLATE_ID.test(input.id)) {
    problems.push({ field: "id", message: "must match /^[a-z][a-z0-9_-]{0,39}$/ (a lowercase letter, then up to 39 of a-z 0-9 _ -)" });
  } else id = input.id;

  const name = optionalText(input, "name", LIMITS.nameLength, problems) ?? id;
  const description = optionalText(input, "description", LIMITS.descriptionLength, problems) ?? "";
  const fields = checkFields(input.fields, problems);
  const themes = checkThemes(input.themes, problems);
  const width = checkCanvas(input, "width", problems);
  const height = checkCanvas(input, "height", problems);
  const sizes = checkSizes(input.sizes, problems);
  const sample = checkSample(input.sample, fields, problems);
  if (typeof input.html !== "string") problems.push({ field: "html", message: "must be a string of HTML" });
  // `sizes` only when declared: a template without them keeps the definition (and digest) it had.
  return { id, name, description, html: input.html, fields, themes, width, height, ...(sizes ? { sizes } : {}), sample };
}

function optionalText(input: Record<string, unknown>, key: string, max: number, problems: FieldProblem[]): string | undefined {
  const raw = input[key];
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== "string") {
    problems.push({ field: key, message: "must be a string" });
    return undefined;
  }
  const clean = cleanText(raw).trim();
  if ([...clean].length > max) {
    problems.push({ field: key, message: `must be at most ${max} characters` });
    return undefined;
  }
  return clean;
}

function checkFields(raw: unknown, problems: FieldProblem[]): AccountFieldSpec[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) {
    problems.push({ field: "fields", message: "must be an array of {name, type, required?, max_length?, description?}" });
    return [];
  }
  if (raw.length > LIMITS.fields) problems.push({ field: "fields", message: `must have at most ${LIMITS.fields} fields (got ${raw.length})` });
  const fields: AccountFieldSpec[] = [];
  const seen = new Set<string>();
  for (const [i, item] of raw.slice(0, LIMITS.fields).entries()) {
    const where = `fields.${i}`;
    if (typeof item !== "object" || item === null || Array.isArray(item)) {
      problems.push({ field: where, message: "must be an object {name, type, required?, max_length?, description?}" });
      continue;
    }
    const f = item as Record<string, unknown>;
    const before = problems.length;
    for (const key of Object.keys(f)) {
      if (!["name", "type", "required", "max_length", "description"].includes(key))
        problems.push({ field: `${where}.${key}`, message: "is not a field property" });
    }
    if (typeof f.name !== "string" || !FIELD_NAME.test(f.name)) {
      problems.push({ field: `${where}.name`, message: "must match /^[a-z][a-z0-9_]{0,63}$/" });
    } else if (RESERVED.has(f.name)) {
      problems.push({ field: `${where}.name`, message: `"${f.name}" is reserved (every request takes ${[...RESERVED].join(", ")})` });
    } else if (seen.has(f.name)) {
      problems.push({ field: `${where}.name`, message: `"${f.name}" appears twice` });
    }
    if (!FIELD_TYPES.includes(f.type as (typeof FIELD_TYPES)[number]))
      problems.push({ field: `${where}.type`, message: `must be one of ${FIELD_TYPES.join(", ")}` });
    if (f.required !== undefined && typeof f.required !== "boolean") problems.push({ field: `${where}.required`, message: "must be a boolean" });
    const type = f.type as AccountFieldSpec["type"];
    const ceiling = LIMITS.maxLength[type] ?? 2000;
    if (f.max_length !== undefined && (typeof f.max_length !== "number" || !Number.isInteger(f.max_length) || f.max_length < 1 || f.max_length > ceiling)) {
      const note =
        type === "image_url" ? ` (the longest http(s) URL; a data: image is bounded by what it decodes to, ${MAX_IMAGE_BYTES / (1024 * 1024)} MiB)` : "";
      problems.push({ field: `${where}.max_length`, message: `must be a whole number from 1 to ${ceiling}${note}` });
    }
    if (f.description !== undefined && (typeof f.description !== "string" || [...f.description].length > LIMITS.fieldDescriptionLength)) {
      problems.push({ field: `${where}.description`, message: `must be a string of at most ${LIMITS.fieldDescriptionLength} characters` });
    }
    if (problems.length > before) continue;
    const name = f.name as string;
    seen.add(name);
    const field: AccountFieldSpec = { name, type, required: f.required === true };
    if (f.max_length !== undefined) field.max_length = f.max_length as number;
    if (f.description !== undefined) field.description = cleanText(f.description as string);
    fields.push(field);
  }
  return fields;
}

function checkThemes(raw: unknown, problems: FieldProblem[]): AccountTemplateSpec["themes"] {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== "object" || Array.isArray(raw)) {
    problems.push({ field: "themes", message: "must be an object {dark?: {name: value}, light?: {name: value}}" });
    return {};
  }
  const themes: AccountTemplateSpec["themes"] = {};
  for (const [theme, set] of Object.entries(raw as Record<string, unknown>)) {
    if (theme !== "dark" && theme !== "light") {
      problems.push({ field: `themes.${theme}`, message: "is not a theme (dark, light)" });
      continue;
    }
    if (typeof set !== "object" || set === null || Array.isArray(set)) {
      problems.push({ field: `themes.${theme}`, message: "must be an object {name: value} (names without the leading --)" });
      continue;
    }
    const entries = Object.entries(set as Record<string, unknown>);
    if (entries.length > LIMITS.themeVariables) problems.push({ field: `themes.${theme}`, message: `must have at most ${LIMITS.themeVariables} variables` });
    const out: Record<string, string> = {};
    for (const [name, value] of entries.slice(0, LIMITS.themeVariables)) {
      const where = `themes.${theme}.${name}`;
      if (!THEME_VARIABLE.test(name))
        problems.push({ field: where, message: "a variable name is a letter then up to 63 of letters, digits, _ and - (without the leading --)" });
      else if (typeof value !== "string" || value.length === 0 || value.length > LIMITS.themeValueLength) {
        problems.push({ field: where, message: `must be a CSS value of 1 to ${LIMITS.themeValueLength} characters` });
      } else if (/[;{}<>\\]|\/\*|\{\{/.test(value)) {
        problems.push({ field: where, message: "must be one CSS value (no ; { } < > \\, comments or placeholders)" });
      } else out[name] = value;
    }
    themes[theme] = out;
  }
  return themes;
}

function checkCanvas(input: Record<string, unknown>, key: "width" | "height", problems: FieldProblem[]): number {
  const raw = input[key];
  if (raw === undefined || raw === null) return DEFAULT_CANVAS[key];
  if (typeof raw !== "number" || !Number.isInteger(raw) || raw < MIN_SIZE || raw > MAX_SIZE) {
    problems.push({ field: key, message: `must be a whole number from ${MIN_SIZE} to ${MAX_SIZE}` });
    return DEFAULT_CANVAS[key];
  }
  return raw;
}

/** `{name: {width, height}}`: at most 8 named sizes the same HTML is drawn at. */
function checkSizes(raw: unknown, problems: FieldProblem[]): Record<string, { width: number; height: number }> | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== "object" || Array.isArray(raw)) {
    problems.push({ field: "sizes", message: "must be an object {name: {width, height}}" });
    return undefined;
  }
  const entries = Object.entries(raw as Record<string, unknown>);
  if (entries.length > MAX_SIZES) problems.push({ field: "sizes", message: `must have at most ${MAX_SIZES} sizes (got ${entries.length})` });
  const sizes: Record<string, { width: number; height: number }> = {};
  for (const [name, value] of entries.slice(0, MAX_SIZES)) {
    const where = `sizes.${name}`;
    if (!SIZE_NAME.test(name)) {
      problems.push({ field: where, message: "a size name must match /^[a-z][a-z0-9_-]{0,19}$/" });
      continue;
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      problems.push({ field: where, message: "must be an object {width, height}" });
      continue;
    }
    const size = value as Record<string, unknown>;
    const before = problems.length;
    for (const key of Object.keys(size))
      if (key !== "width" && key !== "height") problems.push({ field: `${where}.${key}`, message: "is not part of a size (width, height)" });
    for (const key of ["width", "height"] as const) {
      const n = size[key];
      if (typeof n !== "number" || !Number.isInteger(n) || n < MIN_SIZE || n > MAX_SIZE)
        problems.push({ field: `${where}.${key}`, message: `must be a whole number from ${MIN_SIZE} to ${MAX_SIZE}` });
    }
    if (problems.length === before) sizes[name] = { width: size.width as number, height: size.height as number };
  }
  return Object.keys(sizes).length > 0 ? sizes : undefined;
}

function checkSample(raw: unknown, fields: AccountFieldSpec[], problems: FieldProblem[]): Record<string, string> {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== "object" || Array.isArray(raw)) {
    problems.push({ field: "sample", message: "must be an object {field: value}" });
    return {};
  }
  const types = new Map(fields.map((f) => [f.name, f.type]));
  const sample: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw as Record<string, unknown>)) {
    if (!types.has(name)) problems.push({ field: `sample.${name}`, message: "is not one of the template's fields" });
    else if (typeof value !== "string" || value.length > LIMITS.sampleValueLength) {
      problems.push({ field: `sample.${name}`, message: `must be a string of at most ${LIMITS.sampleValueLength} characters` });
    } else if (types.get(name) === "color" && value !== "" && !isCssColor(value)) {
      problems.push({ field: `sample.${name}`, message: `must be ${COLOR_FORMS}` });
    } else sample[name] = value;
  }
  return sample;
}
