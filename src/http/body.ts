/**
 * JSON bodies for every route: the content type must be JSON (415), the body at most 64 KiB
 * (413, also for chunked bodies with no Content-Length: the stream is read with a cap), and it
 * must parse (400 INVALID_JSON). An empty body is `undefined`, for routes whose body is optional.
 * The template routes (`/api/templates…`, the preview included) take up to 1 MiB: a template
 * definition carries its HTML (up to 256 KiB) and may embed images as data: URIs. A batch
 * (`POST /api/batches`, up to 1,000 generate bodies) takes up to 5 MiB.
 */
import { ApiError } from "../errors.ts";

export const MAX_BODY_BYTES = 64 * 1024;
export const MAX_TEMPLATE_BODY_BYTES = 1024 * 1024;
/** POST /api/batches: up to 1,000 generate bodies. */
export const MAX_BATCH_BODY_BYTES = 5 * 1024 * 1024;

const tooLarge = (limit: number) =>
  new ApiError("PAYLOAD_TOO_LARGE", `Request body is larger than ${limit >= 1024 * 1024 ? `${limit / (1024 * 1024)} MiB` : `${limit / 1024} KiB`}.`);

/** The body limit of a request: 1 MiB under /api/templates, 64 KiB everywhere else. */
export function bodyLimitOf(url: string): number {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  const path = start < 0 ? "/" : url.slice(start);
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
