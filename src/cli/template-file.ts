/**
 * `ogsmith render --template-file DEF.json`: an account template's definition (the file
 * `GET /api/templates/{id}` returns, or one written by hand) rendered offline. The file is
 * validated exactly as the API validates a create; bodies then name it by its id, or leave
 * `template` out to get it. No server, no account, no quota.
 */
import { readFileSync } from "node:fs";
import type { ApiError } from "../errors.ts";
import type { TemplateLookup } from "../render/request.ts";
import type { RenderRequest } from "../render/types.ts";
import { type AccountTemplateSpec, accountTemplateDefinition, parseAccountTemplate } from "../templates/account/index.ts";
import type { TemplateDefinition } from "../templates/types.ts";
import { UsageError } from "./output.ts";

/** Who an offline render is for: the render pool keys its per-account share by it. */
const OFFLINE_ACCOUNT = "offline";

export interface TemplateFile {
  path: string;
  spec: AccountTemplateSpec;
  definition: TemplateDefinition;
  /** SHA-256 of the validated definition: render workers compile it once for the whole batch. */
  revision: string;
}

/**
 * Reads and validates the file. An unreadable or non-JSON file is a usage error (exit 2); an
 * invalid definition throws its VALIDATION_ERROR (every problem, with positions).
 */
export function loadTemplateFile(path: string): TemplateFile {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new UsageError(`Cannot read --template-file ${path}: ${(error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--template-file ${path} is not valid JSON: ${(error as Error).message}`);
  }
  const spec = parseAccountTemplate(json);
  const revision = new Bun.CryptoHasher("sha256").update(JSON.stringify(spec)).digest("hex");
  return { path, spec, definition: accountTemplateDefinition(spec), revision };
}

/** One line per problem of an invalid file: "html: <script> is not allowed (line 2, column 3)". */
export function describeTemplateFileProblems(error: ApiError): string {
  const lines = (error.details ?? []).map((d) => {
    const at = d as { line?: number; column?: number };
    return `  ${d.field}: ${d.message}${at.line ? ` (line ${at.line}, column ${at.column})` : ""}`;
  });
  return lines.length ? lines.join("\n") : `  ${error.message}`;
}

/** The templates with the file's in front (it wins for its id, as an account's own template does). */
export function withTemplateFile(templates: TemplateLookup, file: TemplateFile): TemplateLookup {
  return {
    get: (id) => (id === file.spec.id ? file.definition : templates.get(id)),
    list: () => [file.definition, ...templates.list().filter((t) => t.id !== file.spec.id)],
  };
}

/**
 * A body without `template` names the file's. A body for the file's template that gives none of
 * its fields (`{}`, or only a size and a theme) gets the definition's `sample` values, as a
 * preview does: the card as its author meant it to be seen.
 */
export function defaultToTemplateFile(body: unknown, file: TemplateFile): unknown {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return body;
  const input = body as Record<string, unknown>;
  if ("template" in input && input.template !== file.spec.id) return input;
  const named = { ...input, template: file.spec.id };
  const givesValues = file.spec.fields.some((field) => field.name in input);
  return givesValues ? named : { ...file.spec.sample, ...named };
}

/** A validated request for the file's template carries its definition to the render workers. */
export function attachTemplateFile(request: RenderRequest, file: TemplateFile): RenderRequest {
  if (request.template !== file.spec.id) return request;
  return { ...request, accountTemplate: { accountId: OFFLINE_ACCOUNT, version: 0, spec: file.spec, revision: file.revision } };
}
