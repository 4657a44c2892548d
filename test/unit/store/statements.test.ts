import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../../../src/store/sqlite/database.ts";
import { StatementCache } from "../../../src/store/sqlite/statements.ts";

const dir = mkdtempSync(join(tmpdir(), "ogsmith-statements-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("one compiled statement per text, kept however many texts are in use", () => {
  const db = openDatabase(join(dir, "many.db"));
  const cache = new StatementCache(db);
  // bun:sqlite's own cache keeps 20 texts and drops the oldest; the store runs more than that.
  const texts = Array.from({ length: 60 }, (_, i) => `SELECT ${i} AS n`);
  const first = texts.map((text) => cache.get(text));
  for (let round = 0; round < 3; round++) {
    texts.forEach((text, i) => {
      const statement = cache.get(text);
      expect(statement).toBe(first[i]!);
      expect(statement.get()).toEqual({ n: i });
    });
  }
  expect(cache.size).toBe(60);
  db.$client.close(true);
});

test("closing the connection finalizes the cached statements", () => {
  const db = openDatabase(join(dir, "closed.db"));
  const cache = new StatementCache(db);
  const statement = cache.get("SELECT 1 AS one");
  expect(statement.get()).toEqual({ one: 1 });
  db.$client.close(true);
  expect(() => statement.get()).toThrow("Database has closed");
});
