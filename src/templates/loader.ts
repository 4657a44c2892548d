/**
 * Templates from OG_TEMPLATES_DIR (docs/templates.md): every top-level `.tsx`/`.ts` file is imported at
 * start-up; its default export must be a TemplateDefinition. A file that fails (syntax error,
 * throws on import, wrong shape, an id already taken, a render that throws on a minimal input)
 * is reported with its path and reason and skipped; the others load.
 *
 * The JSX problem: a compiled binary has no node_modules, so a template's `ogsmith/jsx-runtime`
 * import (or `react/jsx-runtime`, what Bun's transpiler emits when no tsconfig or pragma says
 * otherwise) would not resolve. A Bun runtime plugin serves those specifiers, and `ogsmith`
 * itself (the text-fitting kit), as virtual modules backed by the embedded runtime. Bun
 * applies runtime plugins to modules imported after registration, in `bun run` and in
 * `bun build --compile` executables alike (verified with a compiled binary, see
 * test/e2e/templates-dir.test.ts). See templates/README.md for the authoring contract.
 */
import { readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Logger } from "../logger.ts";
import { COMMON_FIELDS } from "../media/card.ts";
import * as runtime from "./jsx-runtime.ts";
import * as kit from "./kit.ts";
import { BUILT_IN_TEMPLATES } from "./registry.ts";
import type { FieldType, RenderContext, TemplateDefinition, TemplateField } from "./types.ts";

export const TEMPLATE_ID = /^[a-z][a-z0-9_-]{0,39}$/;
const FIELD_NAME = /^[a-z][a-z0-9_]{0,63}$/;
const FIELD_TYPES: readonly FieldType[] = ["text", "image_url", "color"];
/** Generous ceilings for a field's own maxLength (an image_url field's bounds its http(s) URLs; a data: image is bounded by what it decodes to). */
const MAX_FIELD_LENGTH: Record<FieldType, number> = { text: 2000, image_url: 2048, color: 64 };

export interface TemplateLoadError {
  file: string;
  reason: string;
}

export interface LoadedTemplates {
  loaded: TemplateDefinition[];
  errors: TemplateLoadError[];
}

/** Classic-runtime factory for authors who prefer `h(type, props, ...children)` to JSX. */
export function h(type: Parameters<typeof runtime.jsx>[0], props: Record<string, unknown> | null, ...children: unknown[]) {
  const all = { ...props };
  if (children.length) all.children = children.length === 1 ? children[0] : children;
  return runtime.jsx(type, all);
}

const RUNTIME_MODULE = { jsx: runtime.jsx, jsxs: runtime.jsxs, jsxDEV: runtime.jsxDEV, Fragment: runtime.Fragment };
const OGSMITH_MODULE = { ...kit, h, Fragment: runtime.Fragment, jsx: runtime.jsx };

let runtimeInstalled = false;

/** Makes `ogsmith`, `ogsmith/jsx-runtime` and `react/jsx-runtime` importable by templates on disk. Idempotent per thread. */
export function installTemplateRuntime(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  Bun.plugin({
    name: "ogsmith-template-runtime",
    setup(build) {
      for (const specifier of ["ogsmith/jsx-runtime", "ogsmith/jsx-dev-runtime", "react/jsx-runtime", "react/jsx-dev-runtime"]) {
        build.module(specifier, () => ({ exports: RUNTIME_MODULE, loader: "object" }));
      }
      build.module("ogsmith", () => ({ exports: OGSMITH_MODULE, loader: "object" }));
    },
  });
}

/** Why `value` is not a usable TemplateDefinition, or undefined when it is. */
export function checkTemplateShape(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null) return "the default export must be a template object ({ id, description, fields, render })";
  const t = value as Record<string, unknown>;
  if (typeof t.id !== "string" || !TEMPLATE_ID.test(t.id)) {
    return `id must be a string matching ${TEMPLATE_ID} (lowercase letter, then up to 39 of a-z 0-9 _ -), got ${JSON.stringify(t.id)}`;
  }
  if (t.description !== undefined && typeof t.description !== "string") return "description must be a string";
  if (typeof t.render !== "function") return "render must be a function (fields, ctx) => element";
  if (!Array.isArray(t.fields)) return "fields must be an array of { name, type, required?, maxLength?, description? }";
  const seen = new Set<string>();
  for (const [i, raw] of t.fields.entries()) {
    const where = `fields[${i}]`;
    if (typeof raw !== "object" || raw === null) return `${where} must be an object`;
    const f = raw as Record<string, unknown>;
    if (typeof f.name !== "string" || !FIELD_NAME.test(f.name)) return `${where}.name must match ${FIELD_NAME}, got ${JSON.stringify(f.name)}`;
    // `size` (a size set's name) is reserved for account templates only: an operator's `size` field stays a field.
    if (f.name !== "size" && (COMMON_FIELDS as readonly string[]).includes(f.name))
      return `${where}.name "${f.name}" is reserved (every template accepts ${COMMON_FIELDS.join(", ")})`;
    if (seen.has(f.name)) return `${where}.name "${f.name}" appears twice`;
    seen.add(f.name);
    if (!FIELD_TYPES.includes(f.type as FieldType)) return `${where}.type must be one of ${FIELD_TYPES.join(", ")}, got ${JSON.stringify(f.type)}`;
    if (f.required !== undefined && typeof f.required !== "boolean") return `${where}.required must be a boolean`;
    const ceiling = MAX_FIELD_LENGTH[f.type as FieldType];
    if (f.maxLength !== undefined && (!Number.isInteger(f.maxLength) || (f.maxLength as number) < 1 || (f.maxLength as number) > ceiling)) {
      return `${where}.maxLength must be a whole number from 1 to ${ceiling}`;
    }
    if (f.description !== undefined && typeof f.description !== "string") return `${where}.description must be a string`;
  }
  return undefined;
}

/**
 * Calls `render` once with every required text field set and no images, so a template that
 * cannot produce an element tree fails at start-up instead of on every request.
 */
function trialRender(template: TemplateDefinition): string | undefined {
  const fields: Record<string, string> = {};
  for (const f of template.fields) if (f.required && f.type === "text") fields[f.name] = "Sample";
  const ctx: RenderContext = { width: 1200, height: 630, theme: "dark", images: {} };
  let tree: unknown;
  try {
    tree = template.render(fields, ctx);
  } catch (error) {
    return `render threw on a minimal input: ${messageOf(error)}`;
  }
  if (typeof tree !== "object" || tree === null || !("type" in tree) || !("props" in tree)) {
    return "render must return an element ({ type, props }), e.g. JSX";
  }
  return undefined;
}

function messageOf(error: unknown): string {
  if (error instanceof AggregateError && error.errors?.length) return error.errors.map(messageOf).join("; ");
  if (error && typeof error === "object") {
    const e = error as { message?: unknown; position?: { line?: number; column?: number } | null };
    const message = typeof e.message === "string" && e.message ? e.message : String(error);
    // Bun's BuildMessage carries the location of a syntax error.
    return e.position?.line ? `${message} (line ${e.position.line}, column ${e.position.column ?? 0})` : message;
  }
  return String(error);
}

/** Top-level `.ts`/`.tsx` files (not `.d.ts`), sorted so load order and id clashes are deterministic. */
function templateFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((name) => /\.(tsx|ts)$/.test(name) && !name.endsWith(".d.ts") && !name.startsWith("."))
    .sort()
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isFile());
}

/**
 * Imports every template in `dir`. `taken` are ids already registered (by default the
 * built-ins): a file using one of them is refused rather than silently replacing a built-in.
 */
export async function loadTemplatesFromDir(
  dir: string,
  logger: Logger,
  taken: Iterable<string> = BUILT_IN_TEMPLATES.map((t) => t.id),
): Promise<LoadedTemplates> {
  installTemplateRuntime();
  const ids = new Map<string, string>([...taken].map((id) => [id, "a built-in template"]));
  const result: LoadedTemplates = { loaded: [], errors: [] };
  const fail = (file: string, reason: string) => {
    result.errors.push({ file, reason });
    logger.warn("template skipped", { file, reason });
  };

  for (const file of templateFiles(resolve(dir))) {
    let mod: Record<string, unknown>;
    try {
      mod = await import(file);
    } catch (error) {
      fail(file, `import failed: ${messageOf(error)}`);
      continue;
    }
    const template = mod.default;
    const problem = checkTemplateShape(template);
    if (problem) {
      fail(file, problem);
      continue;
    }
    const definition = template as TemplateDefinition;
    const owner = ids.get(definition.id);
    if (owner) {
      fail(file, `id "${definition.id}" is already used by ${owner}`);
      continue;
    }
    const trial = trialRender(definition);
    if (trial) {
      fail(file, trial);
      continue;
    }
    ids.set(definition.id, file);
    // Copy the fields so later edits to the module's objects cannot change the validated schema.
    result.loaded.push({
      id: definition.id,
      description: definition.description ?? "",
      fields: definition.fields.map((f): TemplateField => ({ ...f })),
      render: definition.render.bind(definition),
    });
    logger.info("template loaded", { file, id: definition.id });
  }
  return result;
}
