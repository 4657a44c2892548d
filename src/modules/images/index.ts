/**
 * Public image URLs: `GET|HEAD /i/{key_id}/{signature}/{template}.{ext}?{query}` (no API key;
 * the URL is signed with the account's signing key) and `POST /api/image-urls`, which signs one
 * on the server. Checks, in order: key id known and its account active → signature → `exp` →
 * validation exactly as POST /api/generate → cache → rate limit and quota, only for an image not
 * yet counted this month → render. A distinct image (its content address) counts once per
 * account per calendar month; the store decides that in the transaction that confirms the unit.
 */
import { type Context, Elysia, t } from "elysia";
import { imageBody } from "../../http/image-body.ts";
import { subscriptionBlock } from "../../accounts/access.ts";
import { ApiError, validationError } from "../../errors.ts";
import { API_AUTH_ERRORS, documentedBody, errorResponses, mediaBody, ResourceId } from "../../http/error-schema.ts";
import { enforceRateLimit } from "../../http/rate-limit.ts";
import { authOf, requestState } from "../../http/request-context.ts";
import type { PreparedRender } from "../../render/renderer.ts";
import { parseAccountRenderRequest } from "../../render/account-request.ts";
import type { TemplateLookup } from "../../render/request.ts";
import type { Renderer, RenderResult } from "../../render/types.ts";
import type { Services } from "../../services.ts";
import { MAX_EXPIRES_IN, signImageUrl } from "../../signing/image-urls.ts";
import { generateBodySchema } from "../generate/model.ts";
import { bodyFromSignedUrl, checkExpiry, paramsFromSearch, parseSignedPath, verify } from "../../signing/index.ts";
import type { AccountRecord } from "../../store/types.ts";

/** Longest accepted request target (path and query) of any URL: 8 KiB. */
export const MAX_URL_BYTES = 8 * 1024;

/** A year: the longest `max-age`. */
const YEAR_SECONDS = 31_536_000;
/**
 * An hour: the `max-age` of a URL that names an account template without pinning its version
 * (`v`): the image changes when the template gets a new version, and crawlers see it within this.
 */
const UNPINNED_SECONDS = 3_600;

export interface ImagesDeps {
  services: Pick<Services, "metering" | "signingKeys" | "limiter" | "clock" | "config" | "accountTemplates">;
  renderer: Renderer & { prepare?: (request: import("../../render/types.ts").RenderRequest) => Promise<PreparedRender> };
  templates: TemplateLookup;
}

const expired = () => new ApiError("URL_EXPIRED", "This image URL has expired (exp is in the past).");
const invalidSignature = () => new ApiError("INVALID_SIGNATURE", "Invalid signature: unknown signing key, or the URL is not what was signed.");

export function imagesModule({ services, renderer, templates }: ImagesDeps) {
  const { metering, signingKeys, limiter, clock, config, accountTemplates } = services;
  const prepare = (request: Parameters<NonNullable<ImagesDeps["renderer"]["prepare"]>>[0]): Promise<PreparedRender> =>
    renderer.prepare
      ? renderer.prepare(request)
      : // A renderer without content addresses (never the service's): render now, address by bytes.
        renderer
          .render(request)
          .then((result) => ({ contentAddress: result.contentAddress ?? Bun.hash(result.bytes).toString(16), render: async () => result }));

  /** (account, month, address) triples known to be counted: a hit then needs no store read. Only ever true facts. */
  const counted = new Set<string>();
  const remember = (key: string) => {
    if (counted.size >= 100_000) counted.clear();
    counted.add(key);
  };
  /** One counting attempt per (account, month, address) at a time; identical requests wait for it. */
  const counting = new Map<string, Promise<RenderResult>>();

  async function countOnce(
    account: AccountRecord,
    prepared: PreparedRender,
    template: string,
    requestId: string,
    headers: Record<string, unknown>,
  ): Promise<RenderResult> {
    const key = `${account.id}|${metering.currentPeriod()}|${prepared.contentAddress}`;
    if (counted.has(key)) return prepared.render();
    const shared = counting.get(key);
    if (shared) {
      await shared;
      return prepared.render();
    }
    const attempt = (async () => {
      if (await metering.isImageCounted(account.id, prepared.contentAddress)) return prepared.render();
      // Only a render that is not counted yet meets the rate limit and the quota.
      await enforceRateLimit(limiter, await signingKeys.rateLimitKeyOf(account.id), account, headers);
      const { result } = await metering.withImageUnit(account, prepared.contentAddress, async () => {
        const result = await prepared.render();
        return { result, facts: { requestId, template, width: result.width, height: result.height, generationTimeMs: result.generationTimeMs } };
      });
      return result;
    })();
    counting.set(key, attempt);
    try {
      const result = await attempt;
      remember(key);
      return result;
    } finally {
      counting.delete(key);
    }
  }

  /**
   * URLs whose signature was verified and whose query was validated, by request target: a
   * crawler's repeat skips the HMAC, the validation and the content address. Safe because a
   * key's secret never changes (a deleted key is refused before this is consulted) and `exp` is
   * checked on every request. URLs with fetched images are not kept: their address follows the
   * fetched bytes.
   */
  const verified = new Map<
    string,
    {
      keyId: string;
      template: string;
      prepared: PreparedRender;
      /** `exp` in Unix seconds, when the URL has one. */
      exp: number | undefined;
      /** Names an account template without `v`: its image follows the template's latest version. */
      unpinned: boolean;
    }
  >();

  async function serveSigned(request: Request, set: Context["set"]): Promise<Response> {
    const url = new URL(request.url);
    const path = parseSignedPath(url.pathname);
    if (!path) throw invalidSignature();
    const owner = await signingKeys.resolve(path.keyId);
    if (!owner) throw invalidSignature();
    const blocked = subscriptionBlock(owner.account);
    if (blocked) throw blocked;
    const target = url.pathname + url.search;
    let entry = verified.get(target);
    if (!entry || entry.keyId !== owner.key.id) {
      const params = paramsFromSearch(url.search);
      if (!params || !verify(owner.key.secret, path.template, path.ext, params, path.signature)) throw invalidSignature();
      const expiry = checkExpiry(params, clock.now());
      if (expiry.state === "expired") throw expired();
      if (expiry.state === "invalid") throw validationError([{ field: "exp", message: "must be one Unix time in whole seconds" }]);
      const body = bodyFromSignedUrl(path.template, path.ext, params);
      const renderRequest = await parseAccountRenderRequest(body, {
        accountId: owner.account.id,
        templates,
        accountTemplates,
        callerIsAccount: false,
        values: "url",
      });
      const prepared = await prepare(renderRequest);
      entry = {
        keyId: owner.key.id,
        template: renderRequest.template,
        prepared,
        exp: expiry.state === "valid" ? Math.floor(clock.now() / 1000) + expiry.secondsLeft : undefined,
        unpinned: renderRequest.accountTemplate !== undefined && body.template_version === undefined,
      };
      const imageFields = renderRequest.definition.fields.filter((field) => field.type === "image_url" && renderRequest.fields[field.name]);
      // An account template is looked up on every request: a new version or a deletion applies
      // at once, on every instance.
      if (imageFields.length === 0 && !renderRequest.accountTemplate) {
        if (verified.size >= 10_000) verified.clear();
        verified.set(target, entry);
      }
    }
    signingKeys.touch(owner.key.id);
    requestState(request).auth = { account: owner.account, keyId: owner.key.id, keyPrefix: owner.key.id.slice(0, 7) };
    const secondsLeft = entry.exp === undefined ? undefined : entry.exp - Math.floor(clock.now() / 1000);
    if (secondsLeft !== undefined && secondsLeft <= 0) throw expired();

    const { prepared } = entry;
    const result = await countOnce(owner.account, prepared, entry.template, requestState(request).id, set.headers);

    // The bytes' own address (engine included), so a CDN never revalidates one engine's image as the other's.
    const etag = `"${result.contentAddress ?? prepared.contentAddress}"`;
    const longest = entry.unpinned ? UNPINNED_SECONDS : YEAR_SECONDS;
    const maxAge = secondsLeft === undefined ? longest : Math.min(secondsLeft, longest);
    const headers: Record<string, string> = {
      etag,
      "cache-control": entry.unpinned ? `public, max-age=${maxAge}` : `public, max-age=${maxAge}, immutable`,
      "x-content-type-options": "nosniff",
    };
    for (const [name, value] of Object.entries(set.headers)) if (value !== undefined && !(name in headers)) headers[name] = String(value);
    if (matchesEtag(request.headers.get("if-none-match"), etag)) return new Response(null, { status: 304, headers });
    headers["content-type"] = result.contentType;
    headers["content-length"] = String(result.bytes.byteLength);
    // HEAD too: the server sends the headers (Content-Length included) and drops the body.
    return new Response(imageBody(result.bytes), { status: 200, headers });
  }

  // The 200 is the image in its real media types; its headers and the 304 are named in
  // src/http/openapi.ts (responseHeaders), like every other route's.
  const signedResponses = {
    200: mediaBody(Object.assign(t.File({ description: "The image, in the format the URL's extension names." }), { maxLength: 64 * 1024 * 1024 }), [
      "image/png",
      "image/jpeg",
      "image/webp",
    ]),
    304: mediaBody(t.String({ maxLength: 0, description: "Not modified: If-None-Match matched the ETag." }), []),
    ...errorResponses(
      "INVALID_SIGNATURE",
      "SUBSCRIPTION_CANCELED",
      "PAYMENT_PAST_DUE",
      "URL_EXPIRED",
      "URI_TOO_LONG",
      "VALIDATION_ERROR",
      "UNKNOWN_TEMPLATE",
      "IMAGE_FETCH_FAILED",
      "RENDER_FAILED",
      "RATE_LIMIT_EXCEEDED",
      "QUOTA_EXCEEDED",
      "SERVER_BUSY",
      "SERVICE_UNAVAILABLE",
    ),
  };
  const signedDetail = {
    summary: "Fetch an image by its signed URL",
    description:
      "Public: no API key. `signature` is base64url (no padding) of HMAC-SHA256(signing secret, `/{template}.{ext}?` + the query sorted by name then value, each `encodeURIComponent(name)=encodeURIComponent(value)`, joined by `&`). Query: the template's fields plus `theme`, `width`, `height`, `quality`, optional `exp` (Unix seconds) and, for an account template, optional `v` (its version; without it the latest, answered with `Cache-Control: public, max-age=3600`). A distinct image counts once per account per calendar month; repeats, HEADs and 304s of a counted image are free and not rate limited. Every error is the JSON envelope with `Cache-Control: no-store`.",
    tags: ["Public image URLs"],
  };

  const generateBody = generateBodySchema(templates);
  const imageUrlBody = t.Object(
    {
      ...generateBody.properties,
      signing_key_id: ResourceId("sk", "The signing key that signs the URL."),
      expires_in: t.Optional(t.Integer({ minimum: 1, maximum: MAX_EXPIRES_IN, description: "Seconds; the URL answers 410 URL_EXPIRED afterwards." })),
      sizes: t.Optional(
        t.Array(t.String({ maxLength: 20, pattern: "^[a-z][a-z0-9_-]{0,19}$" }), {
          minItems: 1,
          maxItems: 8,
          uniqueItems: true,
          description: "Names of the template's sizes: the answer is `{urls: [{size, width, height, url}]}`, one signed URL per size in this order.",
        }),
      ),
    },
    {
      additionalProperties: generateBody.additionalProperties,
      maxProperties: 64,
      examples: [{ ...(generateBody.examples as object[])[0], signing_key_id: "sk_0a1b2c3d4e5f6g7h8i9j" }],
    },
  );

  return new Elysia({ name: "module.images" })
    .get("/i/:key_id/:signature/:file", ({ request, set }) => serveSigned(request, set), { response: signedResponses, detail: signedDetail })
    .head("/i/:key_id/:signature/:file", ({ request, set }) => serveSigned(request, set), {
      response: signedResponses,
      detail: { ...signedDetail, summary: "Headers of an image by its signed URL", description: "The same checks and headers as GET, without a body." },
    })
    .post(
      "/api/image-urls",
      ({ request, body }) => signImageUrl({ signingKeys, clock, baseUrl: config.baseUrl, templates, accountTemplates }, authOf(request).account.id, body),
      {
        response: {
          200: t.Union(
            [
              t.Object(
                { url: t.String({ maxLength: MAX_URL_BYTES, description: 'Absolute, on OG_BASE_URL; put it in <meta property="og:image">.' }) },
                { title: "ImageUrl" },
              ),
              t.Object(
                {
                  urls: t.Array(
                    t.Object(
                      {
                        size: t.String({ maxLength: 20, pattern: "^[a-z][a-z0-9_-]{0,19}$" }),
                        width: t.Integer({ minimum: 200, maximum: 2400 }),
                        height: t.Integer({ minimum: 200, maximum: 2400 }),
                        url: t.String({ maxLength: MAX_URL_BYTES }),
                      },
                      { title: "SizedImageUrl" },
                    ),
                    { maxItems: 8 },
                  ),
                },
                { title: "SizedImageUrls", description: "With `sizes`: one signed URL per size, in the order asked." },
              ),
            ],
            { description: "`{url}`, or `{urls}` when the body names `sizes`." },
          ),
          ...errorResponses(
            ...API_AUTH_ERRORS,
            "INVALID_JSON",
            "VALIDATION_ERROR",
            "UNKNOWN_TEMPLATE",
            "PAYLOAD_TOO_LARGE",
            "UNSUPPORTED_MEDIA_TYPE",
            "NOT_FOUND",
          ),
        },
        detail: {
          summary: "Sign an image URL",
          description:
            "A generate body plus `signing_key_id` and optional `expires_in` (seconds) → the signed public URL. The body is validated as POST /api/generate would; nothing is rendered or counted. A URL of an account template always carries `v`, the version signed (the latest unless `template_version` is given).",
          tags: ["Public image URLs"],
          // Validated by signImageUrl itself (as POST /api/generate validates), documented here.
          requestBody: documentedBody(imageUrlBody),
        },
      },
    );
}

/** `If-None-Match` holds our strong ETag (a list, `*`, or a weak form of it all match). */
function matchesEtag(header: string | null, etag: string): boolean {
  if (!header) return false;
  return header.split(",").some((candidate) => {
    const value = candidate.trim();
    return value === "*" || value === etag || value === `W/${etag}`;
  });
}
