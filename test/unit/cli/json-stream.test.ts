/**
 * The streaming batch reader (src/cli/json-stream.ts): arrays and JSON lines split into items
 * whatever the chunk boundaries (down to one byte, inside strings and multi-byte characters),
 * and broken input named by item.
 */
import { describe, expect, test } from "bun:test";
import { BatchSyntaxError, readBatchItems, type BatchShape } from "../../../src/cli/json-stream.ts";

async function read(text: string, chunkSize: number): Promise<{ items: unknown[]; shape?: BatchShape }> {
  const bytes = new TextEncoder().encode(text);
  async function* chunks() {
    for (let i = 0; i < bytes.length; i += chunkSize) yield bytes.subarray(i, i + chunkSize);
  }
  let shape: BatchShape | undefined;
  const items: unknown[] = [];
  for await (const item of readBatchItems(chunks(), (s) => (shape = s))) {
    expect(item.index).toBe(items.length);
    items.push(item.value);
  }
  return { items, shape };
}

async function failure(text: string): Promise<string> {
  const error = await read(text, 2).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(BatchSyntaxError);
  return (error as Error).message;
}

describe("readBatchItems", () => {
  const tricky = [
    { title: 'commas, ] brackets } and "quotes" \\ in strings', filename: "a/b" },
    42,
    "not an object",
    [1, [2, { x: null }]],
    { title: "Привет 👋 世界" },
    null,
  ];

  for (const size of [1, 3, 64, 1 << 20]) {
    test(`a JSON array, in chunks of ${size} bytes`, async () => {
      const { items, shape } = await read(`\n  ${JSON.stringify(tricky, null, size === 3 ? 2 : undefined)}  \n`, size);
      expect(shape).toBe("array");
      expect(items).toEqual(tricky);
    });

    test(`JSON lines, in chunks of ${size} bytes (blank lines and CRLF ignored)`, async () => {
      const text = tricky.map((v) => JSON.stringify(v)).join("\r\n") + "\n\n";
      const { items, shape } = await read(text, size);
      expect(shape).toBe("lines");
      expect(items).toEqual(tricky);
    });
  }

  test("an empty array is no items; a last line without a newline still counts", async () => {
    expect((await read(" [ ] ", 1)).items).toEqual([]);
    expect((await read('{"a":1}\n{"b":2}', 4)).items).toEqual([{ a: 1 }, { b: 2 }]);
  });

  test("broken input names the item where it broke", async () => {
    expect(await failure('[{"title":"a"},{"title": tru}]')).toMatch(/^item 1: /);
    expect(await failure("[1,,2]")).toBe("item 1: nothing between commas (a stray comma?)");
    expect(await failure("[1,2,]")).toBe("item 2: nothing between commas (a stray comma?)");
    expect(await failure('[{"title":"a"}')).toContain("no closing ]");
    expect(await failure("[1] [2]")).toContain("after the closing ]");
    expect(await failure('{"title":"a"}\n{"title":')).toMatch(/^item 1: /);
    expect(await failure("   ")).toBe("the input is empty");
  });
});
