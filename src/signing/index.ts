/**
 * Signed image URLs: the pure part (no store, no clock of its own). A crawler fetches
 *
 *   {base}/i/{key_id}/{signature}/{template}.{ext}?{query}
 *
 * where `signature` = base64url (no padding) of HMAC-SHA256 keyed with the signing key's secret
 * (its UTF-8 bytes, `ogsk_` prefix included) over the canonical string
 *
 *   /{template}.{ext}?{name}={value}&…
 *
 * with every query parameter written `encodeURIComponent(name)=encodeURIComponent(value)`
 * (RFC 3986 unreserved characters plus `!'()*` stay as they are, space is `%20`, hex is upper
 * case), sorted by the encoded name and then the encoded value (plain ASCII byte order, the same
 * in every language), joined by `&`. No parameters leave the `?` with nothing after it.
 * The order and the encoding of a received query do not matter: the verifier decodes it and
 * builds the canonical string again. docs/signing.md shows the same in Node, Python, PHP and Go.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { validationError, type FieldProblem } from "../errors.ts";
import { randomAlphanumeric } from "../ids.ts";

export const URL_EXTENSIONS = ["png", "jpg", "webp"] as const;
export type UrlExtension = (typeof URL_EXTENSIONS)[number];

/** Query parameters as name → value, or as pairs (a received query may repeat a name). */
export type SignedParams = Record<string, string> | ReadonlyArray<readonly [string, string]>;

const pairsOf = (params: SignedParams): (readonly [string, string])[] =>
  Array.isArray(params) ? [...params] : Object.entries(params as Record<string, string>);

/** The query string of the canonical form (no leading `?`); also the query of a built URL. */
export function canonicalQuery(params: SignedParams): string {
  const encoded = pairsOf(params).map(([name, value]) => [encodeURIComponent(name), encodeURIComponent(value)] as const);
  // Encoded strings are ASCII, so `<` is byte order here: what Python's sorted(), PHP's strcmp
  // and Go's sort.Strings do on the same strings.
  encoded.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
  return encoded.map(([name, value]) => `${name}=${value}`).join("&");
}

/** `/{template}.{ext}?{sorted, encoded query}`: the string the signature covers. */
export function canonicalString(template: string, ext: string, params: SignedParams): string {
  return `/${template}.${ext}?${canonicalQuery(params)}`;
}

/** base64url, no padding, of HMAC-SHA256(secret, canonical string). */
export function sign(secret: string, template: string, ext: string, params: SignedParams): string {
  return createHmac("sha256", secret)
    .update(canonicalString(template, ext, params))
    .digest("base64url");
}

const SIGNATURE_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/**
 * True when `signature` is the signature of these parameters. Malformed signatures (wrong
 * length, characters outside base64url) are simply false; the comparison of well-formed ones
 * takes the same time wherever they differ.
 */
export function verify(secret: string, template: string, ext: string, params: SignedParams, signature: string): boolean {
  if (!SIGNATURE_PATTERN.test(signature)) return false;
  const given = Buffer.from(signature, "base64url");
  const expected = createHmac("sha256", secret)
    .update(canonicalString(template, ext, params))
    .digest();
  // 43 base64url characters carry 258 bits; the last 2 must be zero in a canonical encoding.
  if (given.length !== expected.length || given.toString("base64url") !== signature) return false;
  return timingSafeEqual(given, expected);
}

/** Parameters of a received query, decoded (`+` is a literal plus, as encodeURIComponent writes it). */
export function paramsFromSearch(search: string): [string, string][] | undefined {
  const query = search.startsWith("?") ? search.slice(1) : search;
  if (query === "") return [];
  const pairs: [string, string][] = [];
  for (const part of query.split("&")) {
    if (part === "") continue;
    const eq = part.indexOf("=");
    const rawName = eq < 0 ? part : part.slice(0, eq);
    const rawValue = eq < 0 ? "" : part.slice(eq + 1);
    try {
      pairs.push([decodeURIComponent(rawName), decodeURIComponent(rawValue)]);
    } catch {
      return undefined; // a malformed escape: not a URL anyone signed
    }
  }
  return pairs;
}

export interface SignedPath {
  keyId: string;
  signature: string;
  template: string;
  ext: UrlExtension;
}

/**
 * The parts of `/i/{key_id}/{signature}/{template}.{ext}` (a URL's pathname, still encoded), or
 * undefined when the path is not of that shape. The key id and signature are returned as
 * written; checking them is the caller's business (an unknown key and a bad signature must
 * answer alike).
 */
export function parseSignedPath(pathname: string): SignedPath | undefined {
  const match = /^\/i\/([^/]+)\/([^/]+)\/([A-Za-z0-9_-]{1,64})\.(png|jpg|webp)$/.exec(pathname);
  if (!match) return undefined;
  return { keyId: match[1]!, signature: match[2]!, template: match[3]!, ext: match[4] as UrlExtension };
}

// ---- Expiry -----------------------------------------------------------------------------------

/** Adds `exp` (Unix seconds) `seconds` after `nowMs`; the caller's clock decides "now". */
export function withExpiry(params: Record<string, string>, seconds: number, nowMs: number): Record<string, string> {
  if (!Number.isInteger(seconds) || seconds < 1) throw new RangeError(`expiry must be a positive whole number of seconds, got ${seconds}`);
  return { ...params, exp: String(Math.floor(nowMs / 1000) + seconds) };
}

export type ExpiryCheck = { state: "none" } | { state: "valid"; secondsLeft: number } | { state: "expired" } | { state: "invalid" };

/**
 * What `exp` says at `nowMs`: absent, valid (with the seconds left, for max-age), expired
 * (at or after exp), or not a Unix time in whole seconds.
 */
export function checkExpiry(params: SignedParams, nowMs: number): ExpiryCheck {
  const values = pairsOf(params)
    .filter(([name]) => name === "exp")
    .map(([, value]) => value);
  if (values.length === 0) return { state: "none" };
  if (values.length > 1 || !/^\d{1,12}$/.test(values[0]!)) return { state: "invalid" };
  const left = Number(values[0]) - Math.floor(nowMs / 1000);
  return left > 0 ? { state: "valid", secondsLeft: left } : { state: "expired" };
}

const DURATION_UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };

/** "90", "90s", "15m", "12h", "7d", "2w" → seconds; undefined when it is none of those. */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d{1,9})([smhdw]?)$/.exec(text.trim());
  if (!match) return undefined;
  const seconds = Number(match[1]) * DURATION_UNITS[match[2] || "s"]!;
  return seconds >= 1 ? seconds : undefined;
}

// ---- From a request body to a URL --------------------------------------------------------------

export interface SignableImage {
  template: string;
  ext: UrlExtension;
  /** Everything else, as query strings (numbers written in decimal). */
  params: Record<string, string>;
}

export class SigningInputError extends Error {
  override name = "SigningInputError";
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
  }
}

const FORMAT_TO_EXT: Record<string, UrlExtension> = { png: "png", jpeg: "jpg", jpg: "jpg", webp: "webp" };

/** An account template's version: `template_version` in a request body, `v` in a URL's query (signed like any field). */
export const VERSION_BODY = "template_version";
export const VERSION_QUERY = "v";

/**
 * Splits a POST /api/generate body into the URL's parts: `template` (default event) goes in the
 * path, `format` becomes the extension (`jpeg` → `jpg`), `template_version` the query's `v`,
 * every other field a query parameter.
 * Only the shape is checked here (strings and numbers); the server validates the values when
 * the URL is fetched, exactly as for POST.
 */
export function signableFromBody(body: unknown, format?: string): SignableImage {
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw new SigningInputError("body", "must be a JSON object");
  const { template = "event", format: bodyFormat, ...rest } = body as Record<string, unknown>;
  if (typeof template !== "string" || !/^[A-Za-z0-9_-]{1,64}$/.test(template))
    throw new SigningInputError("template", "must be a template id (letters, digits, - and _)");
  const chosen = format ?? bodyFormat ?? "png";
  const ext = typeof chosen === "string" ? FORMAT_TO_EXT[chosen] : undefined;
  if (!ext) throw new SigningInputError("format", "must be one of png, jpg (jpeg), webp");
  const params: Record<string, string> = {};
  for (const [bodyName, value] of Object.entries(rest)) {
    if (value === undefined || value === null || value === "") continue; // absent, as POST treats them
    if (bodyName === VERSION_QUERY) throw new SigningInputError(VERSION_QUERY, `is written ${VERSION_BODY} in a request body`);
    const name = bodyName === VERSION_BODY ? VERSION_QUERY : bodyName;
    // A lone surrogate has no UTF-8 form, so it cannot be percent-encoded into a URL.
    if (typeof value === "string") {
      if (!value.isWellFormed()) throw new SigningInputError(name, "must be valid Unicode text (it contains a lone surrogate)");
      params[name] = value;
    } else if (typeof value === "number" && Number.isFinite(value)) params[name] = String(value);
    else throw new SigningInputError(name, "must be a string or a number");
  }
  return { template, ext, params };
}

export interface SignedUrlInput {
  /** Where the service answers, e.g. https://og.example.com (a path prefix is kept). */
  baseUrl: string;
  keyId: string;
  secret: string;
  template: string;
  ext: UrlExtension;
  params: Record<string, string>;
}

/** The absolute signed URL; its query is the canonical query, so what is signed is what is sent. */
export function buildSignedUrl({ baseUrl, keyId, secret, template, ext, params }: SignedUrlInput): string {
  const signature = sign(secret, template, ext, params);
  const query = canonicalQuery(params);
  return `${baseUrl.replace(/\/+$/, "")}/i/${encodeURIComponent(keyId)}/${signature}/${encodeURIComponent(template)}.${ext}?${query}`;
}

const EXT_TO_FORMAT: Record<UrlExtension, string> = { png: "png", jpg: "jpeg", webp: "webp" };
/** Query parameters that are numbers in a POST body; in a URL they arrive as decimal strings. */
const NUMERIC_PARAMS = new Set(["width", "height", "quality"]);

/**
 * The POST /api/generate body a signed URL stands for (the inverse of signableFromBody), for
 * the same validation as POST: `template` and `format` come from the path, `width`, `height`
 * and `quality` written in decimal become numbers (anything else stays a string, so validation
 * names it), `v` becomes `template_version`, and `exp` is left out (the caller checks it before validating). A repeated name,
 * or `template`/`format` in the query, is a VALIDATION_ERROR naming it.
 */
export function bodyFromSignedUrl(template: string, ext: UrlExtension, params: SignedParams): Record<string, unknown> {
  const body: Record<string, unknown> = { template, format: EXT_TO_FORMAT[ext] };
  const problems: FieldProblem[] = [];
  const seen = new Set<string>();
  for (const [name, value] of pairsOf(params)) {
    if (seen.has(name)) {
      problems.push({ field: name, message: "must appear at most once in the query" });
      continue;
    }
    seen.add(name);
    if (name === "exp") continue;
    if (name === "template" || name === "format") {
      problems.push({ field: name, message: `is set by the URL path (/{template}.{ext}), not the query` });
      continue;
    }
    if (name === VERSION_BODY) {
      problems.push({ field: name, message: `is written ${VERSION_QUERY} in a URL's query` });
      continue;
    }
    if (name === VERSION_QUERY) {
      // Validated as POST's template_version: a number when written in decimal.
      body[VERSION_BODY] = /^\d{1,10}$/.test(value) ? Number(value) : value;
      continue;
    }
    body[name] = NUMERIC_PARAMS.has(name) && /^\d{1,6}$/.test(value) ? Number(value) : value;
  }
  if (problems.length) throw validationError(problems);
  return body;
}

// ---- Keys ---------------------------------------------------------------------------------------

export const SIGNING_KEY_ID_PATTERN = /^sk_[A-Za-z0-9]{20}$/;
export const SIGNING_SECRET_PATTERN = /^ogsk_[A-Za-z0-9_-]{43}$/;

/** `sk_` + 20 alphanumerics: public, appears in every URL. */
export const newSigningKeyId = (): string => `sk_${randomAlphanumeric(20)}`;

/** `ogsk_` + 43 base64url characters: 256 bits from the CSPRNG, shown once. */
export const newSigningSecret = (): string => `ogsk_${randomBytes(32).toString("base64url")}`;
