/**
 * JSON bodies for every route: the content type must be JSON (415), the body within the route's
 * limit (413, also for chunked bodies with no Content-Length: the stream is read with a cap), and
 * it must parse (400 INVALID_JSON). An empty body is `undefined`, for routes whose body is optional.
 *
 * The limits, by route (docs/api.md says why):
 * - 8 MiB for the routes that draw a body's images (POST /api/generate and the previews): one
 *   data: image may be as large as an image the service would fetch (5 MiB, 6.7 MiB as base64),
 *   and every image of the body together stays within this total.
 * - 1 MiB for the other template routes (`/api/templates…`): a definition carries its HTML (up
 *   to 256 KiB) and may embed images as data: URIs.
 * - 5 MiB of file (and the form around it) for a font upload (`POST /api/fonts`, and the
 *   dashboard's), multipart/form-data.
 * - 5 MiB for a batch (`POST /api/batches`, up to 1,000 generate bodies).
 * - 64 KiB everywhere else, POST /api/image-urls included: the values it signs go into a URL,
 *   2,048 characters each.
 */
import { ApiError } from "../errors.ts";

export const MAX_BODY_BYTES = 64 * 1024;
export const MAX_TEMPLATE_BODY_BYTES = 1024 * 1024;
/** A font file of 5 MiB with room for the form around it (the file's own bound is checked on its size: 413 either way). */
export const MAX_FONT_BODY_BYTES = 5 * 1024 * 1024 + 64 * 1024;

/** Paths whose POST is a multipart/form-data font upload. */
const FONT_UPLOADS = ["/api/fonts", "/dashboard/api/fonts"];

/** One data: image as large as a fetched one may be (5 MiB, 6.7 MiB as base64), with the rest of the body. */
export const MAX_IMAGE_BODY_BYTES = 8 * 1024 * 1024;
/** POST /api/batches: up to 1,000 generate bodies. */
export const MAX_BATCH_BODY_BYTES = 5 * 1024 * 1024;

const tooLarge = (limit: number) =>
  new ApiError("PAYLOAD_TOO_LARGE", `Request body is larger than ${limit >= 1024 * 1024 ? `${limit / (1024 * 1024)} MiB` : `${limit / 1024} KiB`}.`);

/** The routes whose bodies carry images to draw (the dashboard's previews send the same bodies as the API's). */
const IMAGE_BODY_ROUTES = ["/api/generate", "/api/templates/preview", "/dashboard/api/preview", "/dashboard/api/account-templates/preview"];

/** The body limit of a request: a font upload's, 8 MiB on the routes that draw a body's images, 1 MiB under /api/templates, 64 KiB everywhere else. */
export function bodyLimitOf(url: string): number {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  const path = start < 0 ? "/" : url.slice(start);
  if (FONT_UPLOADS.some((prefix) => under(path, prefix))) return MAX_FONT_BODY_BYTES;
  if (IMAGE_BODY_ROUTES.some((route) => under(path, route))) return MAX_IMAGE_BODY_BYTES;
  if (path === "/api/batches" || path.startsWith("/api/batches?")) return MAX_BATCH_BODY_BYTES;
  return under(path, "/api/templates") || under(path, "/dashboard/api/account-templates") ? MAX_TEMPLATE_BODY_BYTES : MAX_BODY_BYTES;
}

/** `path` is `prefix` itself or below it (the dashboard's editor sends the same definitions). */
const under = (path: string, prefix: string) => path.startsWith(prefix) && (path.length === prefix.length || "/?".includes(path[prefix.length]!));

async function readCapped(request: Request, limit: number): Promise<Uint8Array> {
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  if (declared > limit) throw tooLarge(limit);
  if (!request.body) return new Uint8Array();
  if (Number.isInteger(declared) && declared >= 0 && !request.headers.has("transfer-encoding")) {
    // A declared length within the cap: the server frames the body by it, so it is read whole
    // in one step (a stream reader per request cost more than the parse). Checked again after
    // reading for a Request built in-process, whose header need not match its body.
    const bytes = new Uint8Array(await request.arrayBuffer());
    if (bytes.byteLength > limit) throw tooLarge(limit);
    return bytes;
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/**
 * A route's body: a font upload's multipart form (its fields as an object, the file a File), or
 * JSON (`parseJsonBody`) everywhere else.
 */
export async function parseRequestBody(request: Request): Promise<unknown> {
  if (request.method !== "POST") return parseJsonBody(request);
  const start = request.url.indexOf("/", request.url.indexOf("//") + 2);
  const path = (start < 0 ? "/" : request.url.slice(start)).split("?")[0]!;
  if (!FONT_UPLOADS.includes(path.replace(/\/$/, ""))) return parseJsonBody(request);
  const contentType = request.headers.get("content-type") ?? "";
  if (contentType.split(";")[0]?.trim().toLowerCase() !== "multipart/form-data") {
    throw new ApiError("UNSUPPORTED_MEDIA_TYPE", "A font is uploaded as multipart/form-data, with the file in the part named file.");
  }
  const bytes = await readCapped(request, MAX_FONT_BODY_BYTES);
  let form: FormData;
  try {
    form = await new Response(bytes as Uint8Array<ArrayBuffer>, { headers: { "content-type": contentType } }).formData();
  } catch (error) {
    throw new ApiError("VALIDATION_ERROR", "The body is not a readable multipart/form-data form.", [
      { field: "body", message: `is not multipart/form-data (${error instanceof Error ? error.message : "unreadable"})` },
    ]);
  }
  const fields: Record<string, unknown> = {};
  for (const [name, value] of form.entries()) fields[name] = value;
  return fields;
}

export async function parseJsonBody(request: Request): Promise<unknown> {
  if (request.method === "GET" || request.method === "HEAD") return undefined;
  const contentType = request.headers.get("content-type");
  const bytes = await readCapped(request, bodyLimitOf(request.url));
  if (bytes.byteLength === 0) return undefined;
  const mediaType = contentType?.split(";")[0]?.trim().toLowerCase();
  if (mediaType !== "application/json" && !mediaType?.endsWith("+json")) {
    throw new ApiError("UNSUPPORTED_MEDIA_TYPE", "Request bodies must be sent with Content-Type: application/json.");
  }
  try {
    return JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch (error) {
    throw new ApiError("INVALID_JSON", `Request body is not valid JSON: ${error instanceof Error ? error.message : "parse error"}`);
  }
}
