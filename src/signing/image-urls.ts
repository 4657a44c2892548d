/**
 * Signs a public image URL on the server (POST /api/image-urls and the dashboard): a generate
 * body plus `signing_key_id` and optional `expires_in` → the absolute URL on OG_BASE_URL. The
 * body is validated as POST /api/generate would (every bad field listed at once), so a typo
 * fails here rather than in a crawler; nothing is rendered or counted. A URL of an account
 * template always carries its version (`v`).
 */
import type { Clock } from "../clock.ts";
import { ApiError, validationError, type FieldProblem } from "../errors.ts";
import { parseAccountRenderRequest } from "../render/account-request.ts";
import type { TemplateLookup } from "../render/request.ts";
import type { RenderRequest } from "../render/types.ts";
import type { AccountTemplateService } from "../templates/account-templates.ts";
import { buildSignedUrl, signableFromBody, SigningInputError, withExpiry } from "./index.ts";
import type { SigningKeyService } from "./keys.ts";

/** Ten years: the longest `expires_in`. */
export const MAX_EXPIRES_IN = 10 * 31_536_000;

export interface ImageUrlDeps {
  signingKeys: SigningKeyService;
  clock: Clock;
  baseUrl: string;
  templates: TemplateLookup;
  accountTemplates: Pick<AccountTemplateService, "resolve" | "ids" | "fontsFor">;
}

/** One URL per named size, in the order asked (`sizes` in the body). */
export interface SizedImageUrl {
  size: string;
  width: number;
  height: number;
  url: string;
}

export async function signImageUrl(deps: ImageUrlDeps, accountId: string, body: unknown): Promise<{ url: string } | { urls: SizedImageUrl[] }> {
  const input = (typeof body === "object" && body !== null && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
  const { sizes, ...single } = input;
  if (sizes === undefined || sizes === null) return signOne(deps, accountId, single);
  const problems: FieldProblem[] = [];
  if (!Array.isArray(sizes) || sizes.length === 0 || sizes.length > 8 || sizes.some((s) => typeof s !== "string")) {
    problems.push({ field: "sizes", message: "must be a list of 1 to 8 size names of the template" });
  } else if (new Set(sizes).size !== sizes.length) problems.push({ field: "sizes", message: "names a size twice" });
  if (single.size !== undefined && single.size !== null) problems.push({ field: "size", message: "give either size or sizes, not both" });
  if (problems.length > 0) throw validationError(problems);
  const urls: SizedImageUrl[] = [];
  for (const [i, size] of (sizes as string[]).entries()) {
    try {
      const signed = await signOne(deps, accountId, { ...single, size }, (request) =>
        urls.push({ size, width: request.width, height: request.height, url: "" }),
      );
      urls[i]!.url = signed.url;
    } catch (error) {
      // A size the template does not declare is named as `sizes.<i>`.
      if (error instanceof ApiError && error.code === "VALIDATION_ERROR") {
        throw validationError((error.details ?? []).map((d) => (d.field === "size" ? { ...d, field: `sizes.${i}` } : d)));
      }
      throw error;
    }
  }
  return { urls };
}

async function signOne(
  deps: ImageUrlDeps,
  accountId: string,
  input: Record<string, unknown>,
  validated?: (request: RenderRequest) => void,
): Promise<{ url: string }> {
  const { signing_key_id: keyId, expires_in: expiresIn, ...generate } = input;
  const problems: FieldProblem[] = [];
  if (typeof keyId !== "string" || keyId === "") problems.push({ field: "signing_key_id", message: "is required (an sk_… id from GET /api/signing-keys)" });
  if (
    expiresIn !== undefined &&
    expiresIn !== null &&
    (typeof expiresIn !== "number" || !Number.isInteger(expiresIn) || expiresIn < 1 || expiresIn > MAX_EXPIRES_IN)
  ) {
    problems.push({ field: "expires_in", message: `must be a whole number of seconds from 1 to ${MAX_EXPIRES_IN}` });
  }
  try {
    const request = await parseAccountRenderRequest(generate, {
      accountId,
      templates: deps.templates,
      accountTemplates: deps.accountTemplates,
      callerIsAccount: true,
      values: "url",
    });
    // An account template's URL always pins the version it was signed for (the latest unless
    // given), so what a page shows does not change when the template gets a new version.
    if (request.accountTemplate) generate.template_version = request.accountTemplate.version;
    validated?.(request);
  } catch (error) {
    // With problems of our own, the generate body's are listed beside them in one answer.
    if (!(error instanceof ApiError) || error.code !== "VALIDATION_ERROR" || problems.length === 0) throw error;
    problems.push(...(error.details ?? []));
  }
  if (problems.length > 0) throw validationError(problems);
  const key = await deps.signingKeys.get(accountId, keyId as string);
  let signable: ReturnType<typeof signableFromBody>;
  try {
    signable = signableFromBody(generate);
  } catch (error) {
    if (error instanceof SigningInputError) throw validationError([{ field: error.field, message: error.message.slice(error.field.length + 2) }]);
    throw error;
  }
  const params = typeof expiresIn === "number" ? withExpiry(signable.params, expiresIn, deps.clock.now()) : signable.params;
  return { url: buildSignedUrl({ baseUrl: deps.baseUrl, keyId: key.id, secret: key.secret, template: signable.template, ext: signable.ext, params }) };
}
