/**
 * Public image URLs: `GET|HEAD /i/{key_id}/{signature}/{template}.{ext}?{query}` (no API key;
 * the URL is signed with the account's signing key) and `POST /api/image-urls`, which signs one
 * on the server. The checks, the cache of verified URLs and the counting (once per image per
 * account per calendar month) are the signed-image service's (src/signing/signed-images.ts);
 * this route turns its answer into the image's caching headers, or a 304.
 */
import { type Context, Elysia, t } from "elysia";
import { imageBody } from "../../http/image-body.ts";
import { API_AUTH_ERRORS, documentedBody, errorResponses, mediaBody, ResourceId } from "../../http/error-schema.ts";
import { enforceRateLimit } from "../../http/rate-limit.ts";
import { authOf, requestState } from "../../http/request-context.ts";
import type { TemplateLookup } from "../../render/request.ts";
import type { Services } from "../../services.ts";
import { MAX_EXPIRES_IN, signImageUrl } from "../../signing/image-urls.ts";
import { SignedImageService, type SignedImageRenderer } from "../../signing/signed-images.ts";
import { generateBodySchema } from "../generate/model.ts";

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
  renderer: SignedImageRenderer;
  templates: TemplateLookup;
}

export function imagesModule({ services, renderer, templates }: ImagesDeps) {
  const { metering, signingKeys, limiter, clock, config, accountTemplates } = services;
  const signedImages = new SignedImageService({ metering, signingKeys, accountTemplates, clock, renderer, templates });

  async function serveSigned(request: Request, set: Context["set"]): Promise<Response> {
    const image = await signedImages.admit(new URL(request.url));
    const state = requestState(request);
    state.auth = { account: image.account, keyId: image.keyId, keyPrefix: image.keyId.slice(0, 7) };
    const result = await signedImages.deliver(image, {
      requestId: state.id,
      meetRateLimit: (rateLimitKey, account) => enforceRateLimit(limiter, rateLimitKey, account, set.headers),
    });

    // The bytes' own address (engine included), so a CDN never revalidates one engine's image as the other's.
    const etag = `"${result.contentAddress ?? image.prepared.contentAddress}"`;
    const longest = image.unpinned ? UNPINNED_SECONDS : YEAR_SECONDS;
    const maxAge = image.secondsLeft === undefined ? longest : Math.min(image.secondsLeft, longest);
    const headers: Record<string, string> = {
      etag,
      "cache-control": image.unpinned ? `public, max-age=${maxAge}` : `public, max-age=${maxAge}, immutable`,
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
