/**
 * What `ogsmith render` does to each item, whether it came from --json or a --batch: the
 * batch-only `filename` split off, the output file named, a failure put in one line, progress
 * reported. Shared by render.ts and render-batch.ts.
 */
import { isAbsolute, relative } from "node:path";
import cliProgress from "cli-progress";
import { ApiError } from "../errors.ts";
import { EXTENSIONS, IMAGE_FORMATS, type ImageFormat } from "../render/output/encode.ts";

/** One line per problem: "title: is required; colour: is not a field of the event template". */
export function describeFailure(error: unknown): string {
  if (error instanceof ApiError) {
    const details = (error.details ?? []).map((d) => `${d.field}: ${d.message}`);
    return details.length ? details.join("; ") : error.message;
  }
  return error instanceof Error ? error.message : String(error);
}

/** Removes `filename` (a batch-only key) so validation sees exactly an API body. */
export function splitFilename(body: unknown): { body: unknown; filename: unknown } {
  if (typeof body !== "object" || body === null || Array.isArray(body) || !("filename" in body)) return { body, filename: undefined };
  const { filename, ...rest } = body as Record<string, unknown>;
  return { body: rest, filename };
}

/** Lowercase ASCII words joined by "-", at most 80 characters; "" when nothing is left (e.g. an all-Cyrillic title). */
export function slugify(text: string): string {
  return text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 80)
    .replace(/-+$/, "");
}

/**
 * The file an item is written to, relative to the output directory, or why it cannot be.
 * An explicit filename may name a sub-directory but never leave the output directory.
 */
export function outputName(filename: unknown, body: unknown, index: number): { name: string } | { error: string } {
  // The extension follows the body's format (an invalid format fails validation later anyway).
  const format = typeof body === "object" && body !== null ? (body as Record<string, unknown>).format : undefined;
  const ext = IMAGE_FORMATS.includes(format as ImageFormat) ? EXTENSIONS[format as ImageFormat] : "png";
  if (filename === undefined || filename === null) {
    const title = typeof body === "object" && body !== null ? (body as Record<string, unknown>).title : undefined;
    const slug = typeof title === "string" ? slugify(title) : "";
    return { name: `${slug || index}.${ext}` };
  }
  if (typeof filename !== "string" || filename.trim() === "") return { error: "filename: must be a non-empty string" };
  if (filename.includes("\0") || filename.includes("\\")) return { error: "filename: must not contain NUL or backslashes" };
  if (isAbsolute(filename)) return { error: "filename: must be relative to --out-dir" };
  if (filename.split("/").some((part) => part === ".." || part === "." || part === ""))
    return { error: "filename: must not contain '.', '..' or empty path segments" };
  if (filename.length > 255) return { error: "filename: must be at most 255 characters" };
  const extPattern = ext === "jpg" ? /\.jpe?g$/i : new RegExp(`\\.${ext}$`, "i");
  return { name: extPattern.test(filename) ? filename : `${filename}.${ext}` };
}

/** Relative to the working directory when under it, else absolute. */
export function displayPath(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel && !rel.startsWith("..") && !isAbsolute(rel) ? rel : path;
}

/**
 * Progress on stderr: a bar on a terminal, one plain line per item otherwise (CI logs, pipes).
 * `total` is unknown when the batch streams in from standard input: then plain lines, "[n/?]".
 */
export function createProgress(total: number | undefined) {
  if (process.stderr.isTTY && total !== undefined) {
    const bar = new cliProgress.SingleBar(
      {
        stream: process.stderr,
        format: "rendering [{bar}] {value}/{total} | {failed} failed | {eta_formatted} left",
        hideCursor: true,
        clearOnComplete: false,
      },
      cliProgress.Presets.shades_classic,
    );
    bar.start(total, 0, { failed: 0 });
    let failed = 0;
    return {
      ok: (_index: number, _file: string) => bar.increment(),
      fail: (_index: number, _reason: string) => bar.increment({ failed: ++failed }),
      stop: () => bar.stop(),
    };
  }
  let done = 0;
  const width = String(total ?? "").length;
  const prefix = () => `[${String(++done).padStart(width)}/${total ?? "?"}]`;
  return {
    ok: (index: number, file: string) => console.error(`${prefix()} #${index} ok ${file}`),
    fail: (index: number, reason: string) => console.error(`${prefix()} #${index} FAILED ${reason}`),
    stop: () => {},
  };
}
