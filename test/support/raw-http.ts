/**
 * HTTP over a raw TCP socket, for requests no HTTP client will send: no Host, malformed Host,
 * odd request targets, huge headers, bodies that lie about their size. The reply is parsed far
 * enough to assert on (status, headers, body) and the socket closed.
 */
import net from "node:net";

export interface RawResponse {
  /** 0 when the server closed the connection without answering. */
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The bytes received, for messages. */
  raw: string;
  /** The server closed the connection (after answering or instead of it). */
  closed: boolean;
}

/** The first complete response in `data`, if there is one yet. */
function parse(data: Buffer, noBody = false): { status: number; headers: Record<string, string>; body: string } | undefined {
  const end = data.indexOf("\r\n\r\n");
  if (end === -1) return undefined;
  const lines = data.subarray(0, end).toString("latin1").split("\r\n");
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? "")?.[1] ?? NaN);
  // An interim answer (100 Continue to `Expect:`) is not the response: look past it.
  if (status >= 100 && status < 200) return parse(data.subarray(end + 4), noBody);
  const headers: Record<string, string> = {};
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(":");
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const rest = data.subarray(end + 4);
  if (noBody || status === 204 || status === 304) return { status, headers, body: "" };
  if (headers["transfer-encoding"]?.toLowerCase() === "chunked") {
    const chunks: Buffer[] = [];
    let at = 0;
    for (;;) {
      const lineEnd = rest.indexOf("\r\n", at);
      if (lineEnd === -1) return undefined;
      const size = parseInt(rest.subarray(at, lineEnd).toString("latin1"), 16);
      if (Number.isNaN(size)) return undefined;
      if (size === 0) return { status, headers, body: Buffer.concat(chunks).toString("utf8") };
      if (rest.length < lineEnd + 2 + size + 2) return undefined;
      chunks.push(rest.subarray(lineEnd + 2, lineEnd + 2 + size));
      at = lineEnd + 2 + size + 2;
    }
  }
  const length = Number(headers["content-length"] ?? 0);
  if (rest.length < length) return undefined;
  return { status, headers, body: rest.subarray(0, length).toString("utf8") };
}

/**
 * Sends `data` (then `after`, if given, once the first part is written) and resolves with the
 * first response, or with status 0 when the server closes without one. `timeoutMs` bounds the
 * wait: a server that neither answers nor closes resolves with status 0 and `closed: false`.
 */
export function rawRequest(
  port: number,
  data: string | Uint8Array,
  /** `noBody`: the answer has a head only (the request was HEAD), whatever its Content-Length says. */
  options: { timeoutMs?: number; host?: string; after?: AsyncIterable<Uint8Array>; noBody?: boolean } = {},
): Promise<RawResponse> {
  return new Promise((resolve) => {
    const socket = net.connect(port, options.host ?? "127.0.0.1");
    let received = Buffer.alloc(0);
    let settled = false;
    const finish = (closed: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      const parsed = parse(received, options.noBody);
      resolve({
        status: parsed?.status ?? 0,
        headers: parsed?.headers ?? {},
        body: parsed?.body ?? "",
        raw: received.toString("latin1").slice(0, 2000),
        closed,
      });
    };
    const timer = setTimeout(() => finish(false), options.timeoutMs ?? 10_000);
    socket.on("data", (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (parse(received, options.noBody)) finish(false);
    });
    socket.on("close", () => finish(true));
    // A reset after the server answered and closed while we were still writing: keep what came.
    socket.on("error", () => finish(true));
    socket.write(data, async () => {
      if (!options.after) return;
      try {
        for await (const chunk of options.after) {
          if (settled) return;
          if (!socket.write(chunk)) await new Promise((r) => socket.once("drain", r));
        }
      } catch {
        // The server hung up mid-body; the response (if any) is what counts.
      }
    });
  });
}

/** `count` chunks of `size` bytes of `x`, as a chunked-encoding body stream (terminator included). */
export async function* chunkedBody(count: number, size: number): AsyncIterable<Uint8Array> {
  const chunk = Buffer.concat([Buffer.from(`${size.toString(16)}\r\n`), Buffer.alloc(size, "x"), Buffer.from("\r\n")]);
  for (let i = 0; i < count; i++) yield chunk;
  yield Buffer.from("0\r\n\r\n");
}

/** `total` bytes of `x` in 64 KiB pieces, for a body with a declared Content-Length. */
export async function* plainBody(total: number): AsyncIterable<Uint8Array> {
  const piece = Buffer.alloc(64 * 1024, "x");
  for (let sent = 0; sent < total; sent += piece.length) yield sent + piece.length <= total ? piece : piece.subarray(0, total - sent);
}
