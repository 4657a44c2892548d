/**
 * A render request as an account sends it (POST /api/generate, a signed URL, POST
 * /api/image-urls): `template` may name one of the account's own templates, and
 * `template_version` pins one of its versions (the latest without it). The account's own
 * template wins over an operator template of the same id; built-in ids never reach the store
 * (an account cannot take them), so the built-ins' path stays as it was.
 *
 * Everything else is `parseRenderRequest`'s validation, with the account template's fields.
 */
import { ApiError, validationError, type FieldProblem } from "../errors.ts";
import { accountTemplateDefinition } from "../templates/account/index.ts";
import { type AccountTemplateService, isBuiltInId } from "../templates/account-templates.ts";
import type { TemplateDefinition } from "../templates/types.ts";
import { DEFAULT_TEMPLATE, type ParseOptions, parseRenderRequest, type TemplateLookup, unknownTemplate } from "./request.ts";
import type { RenderRequest } from "./types.ts";

/** The body field that pins a version (`v` in a signed URL's query). */
export const TEMPLATE_VERSION = "template_version";
/** Versions are numbered from 1; an update past the kept ones removes the oldest. */
const MAX_VERSION = 2_147_483_647;

export interface AccountRenderContext {
  accountId: string;
  templates: TemplateLookup;
  accountTemplates: Pick<AccountTemplateService, "resolve" | "ids" | "fontsFor">;
  /**
   * The caller is the account itself (its API key or session): the answer for a template it does
   * not have lists its own templates beside the global ones. A signed URL's viewer is anyone,
   * so there it lists the global ones only.
   */
  callerIsAccount: boolean;
  /**
   * `url` when the values travel in a signed URL's query (the URL itself, or POST /api/image-urls
   * that signs one): every value, a data: image included, is held to MAX_URL_LENGTH.
   */
  values?: ParseOptions["values"];
}

/** Validates the request for this account; 400 UNKNOWN_TEMPLATE for a template the account cannot use (another account's included). */
export async function parseAccountRenderRequest(body: unknown, context: AccountRenderContext): Promise<RenderRequest> {
  return { ...(await parseForAccount(body, context)), requester: context.accountId };
}

async function parseForAccount(body: unknown, context: AccountRenderContext): Promise<RenderRequest> {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return parseRenderRequest(body, context.templates, { values: context.values });
  const { [TEMPLATE_VERSION]: rawVersion, ...rest } = body as Record<string, unknown>;
  const problems: FieldProblem[] = [];
  const version = checkVersion(rawVersion, problems);
  const id = rest.template ?? DEFAULT_TEMPLATE;

  if (typeof id === "string" && !isBuiltInId(id)) {
    const resolved = await context.accountTemplates.resolve(context.accountId, id, version);
    if (resolved === "no_version") {
      problems.push({ field: TEMPLATE_VERSION, message: `template ${id} has no version ${version} (GET /api/templates/${id}/versions lists those kept)` });
      throw validationError(problems);
    }
    if (resolved !== undefined) {
      const definition = accountTemplateDefinition(resolved.spec);
      const request = withProblems(problems, () => parseRenderRequest(rest, overlay(context.templates, definition), { values: context.values }));
      // A family the account no longer has a font of (deleted) is a 400 naming it.
      const { fonts } = await context.accountTemplates.fontsFor(context.accountId, resolved.spec);
      return {
        ...request,
        accountTemplate: { accountId: context.accountId, version: resolved.version, spec: resolved.spec, revision: resolved.digest },
        ...(fonts ? { fonts } : {}),
      };
    }
  }
  // A built-in or operator template (or an unknown id: parseRenderRequest says UNKNOWN_TEMPLATE).
  const request = await unknownListsOwn(context, String(id), () => parseRenderRequest(rest, context.templates, { values: context.values }));
  if (version !== undefined) problems.push({ field: TEMPLATE_VERSION, message: `only account templates have versions; ${request.template} has none` });
  if (problems.length) throw validationError(problems);
  return request;
}

/** Runs `parse`; an UNKNOWN_TEMPLATE from it names the account's own templates too, when the caller is the account. */
async function unknownListsOwn(context: AccountRenderContext, id: string, parse: () => RenderRequest): Promise<RenderRequest> {
  try {
    return parse();
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== "UNKNOWN_TEMPLATE" || !context.callerIsAccount) throw error;
    const own = await context.accountTemplates.ids(context.accountId);
    if (own.length === 0) throw error;
    const global = context.templates.list().map((t) => t.id);
    throw unknownTemplate(id, [...global, ...own.filter((ownId) => !global.includes(ownId))]);
  }
}

function checkVersion(raw: unknown, problems: FieldProblem[]): number | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== "number" || !Number.isInteger(raw) || raw < 1 || raw > MAX_VERSION) {
    problems.push({ field: TEMPLATE_VERSION, message: "must be a whole number from 1 (a version of the template)" });
    return undefined;
  }
  return raw;
}

/** Runs the field validation; its problems join ours in one answer (every bad field listed at once). */
function withProblems(problems: FieldProblem[], validate: () => RenderRequest): RenderRequest {
  try {
    const request = validate();
    if (problems.length) throw validationError(problems);
    return request;
  } catch (error) {
    if (error instanceof ApiError && error.code === "VALIDATION_ERROR" && problems.length)
      throw validationError([...problems, ...(error.details ?? [])].filter(unique));
    throw error;
  }
}

const unique = (problem: FieldProblem, index: number, all: FieldProblem[]) =>
  all.findIndex((p) => p.field === problem.field && p.message === problem.message) === index;

/** The global templates with the account's own one in front (it wins for its id). */
function overlay(templates: TemplateLookup, own: TemplateDefinition): TemplateLookup {
  return {
    get: (id) => (id === own.id ? own : templates.get(id)),
    list: () => [own, ...templates.list().filter((t) => t.id !== own.id)],
  };
}
