/**
 * Reads a batch of request bodies one at a time from a byte stream, without holding the whole
 * input: either a JSON array (`[{…}, {…}]`) or JSON lines (one value per line). Each element's
 * text is cut out by a small scanner that tracks only strings and nesting depth, then parsed on
 * its own with JSON.parse, so memory stays at one element however long the batch is.
 *
 * The first non-blank character decides: `[` is an array, anything else JSON lines. Errors are
 * thrown as BatchSyntaxError naming the item index where the input stopped making sense.
 */

export class BatchSyntaxError extends Error {}

/** Marks an array element with no text (`[1,,2]`, `[1,]`), which JSON forbids. */
const EMPTY = "\u0000";

export type BatchShape = "array" | "lines";

export interface BatchItem {
  index: number;
  value: unknown;
}

function parseItem(text: string, index: number): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new BatchSyntaxError(`item ${index}: ${(error as Error).message}`);
  }
}

/**
 * Yields each element of the batch in order. `onShape` is told the shape once it is known
 * (before the first item).
 */
export async function* readBatchItems(chunks: AsyncIterable<Uint8Array | string>, onShape?: (shape: BatchShape) => void): AsyncGenerator<BatchItem> {
  const decoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: false });
  let shape: BatchShape | undefined;
  let index = 0;
  // Array mode: depth 0 before `[`, 1 inside it; `closed` after its `]`.
  let depth = 0;
  let inString = false;
  let escaped = false;
  let closed = false;
  let piece = "";
  // Lines mode: the unfinished last line.
  let line = "";

  const texts: string[] = [];
  const take = function* (): Generator<BatchItem> {
    for (const text of texts.splice(0)) {
      if (text === EMPTY) throw new BatchSyntaxError(`item ${index}: nothing between commas (a stray comma?)`);
      const trimmed = text.trim();
      if (!trimmed) continue;
      yield { index, value: parseItem(trimmed, index) };
      index++;
    }
  };

  const scanArray = (text: string) => {
    let start = 0;
    for (let i = 0; i < text.length; i++) {
      const ch = text.charCodeAt(i);
      if (inString) {
        if (escaped) escaped = false;
        else if (ch === 0x5c) escaped = true;
        else if (ch === 0x22) inString = false;
        continue;
      }
      if (closed) {
        if (ch !== 0x20 && ch !== 0x0a && ch !== 0x0d && ch !== 0x09) throw new BatchSyntaxError(`unexpected ${JSON.stringify(text[i])} after the closing ]`);
        continue;
      }
      if (ch === 0x22) inString = true;
      else if (ch === 0x5b || ch === 0x7b) {
        depth++;
        if (depth === 1) {
          // The opening `[` of the batch itself.
          start = i + 1;
        }
      } else if (ch === 0x5d || ch === 0x7d) {
        depth--;
        if (depth === 0) {
          if (ch !== 0x5d) throw new BatchSyntaxError(`item ${index}: unexpected }`);
          const last = piece + text.slice(start, i);
          piece = "";
          // `[]` and a trailing element; a trailing comma leaves an empty one, which JSON forbids.
          if (last.trim() || index > 0 || texts.length > 0) texts.push(last.trim() ? last : EMPTY);
          closed = true;
          start = i + 1;
        } else if (depth < 0) throw new BatchSyntaxError(`item ${index}: unexpected ${text[i]}`);
      } else if (ch === 0x2c && depth === 1) {
        texts.push((piece + text.slice(start, i)).trim() || EMPTY);
        piece = "";
        start = i + 1;
      } else if (depth === 0 && ch !== 0x20 && ch !== 0x0a && ch !== 0x0d && ch !== 0x09) {
        throw new BatchSyntaxError(`unexpected ${JSON.stringify(text[i])} before the opening [`);
      }
    }
    if (depth >= 1 && !closed) piece += text.slice(start);
  };

  for await (const chunk of chunks) {
    let text = typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true });
    if (!shape) {
      const first = text.search(/\S/);
      if (first < 0) continue;
      shape = text[first] === "[" ? "array" : "lines";
      onShape?.(shape);
    }
    if (shape === "array") {
      scanArray(text);
    } else {
      text = line + text;
      const lines = text.split("\n");
      line = lines.pop()!;
      texts.push(...lines);
    }
    yield* take();
  }
  const rest = decoder.decode();
  if (shape === "array") {
    if (rest) scanArray(rest);
    if (!closed) throw new BatchSyntaxError(`unexpected end of input in item ${index} (no closing ])`);
  } else {
    texts.push(line + rest);
  }
  if (!shape) throw new BatchSyntaxError("the input is empty");
  yield* take();
}
