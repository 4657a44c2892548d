import { Database } from "bun:sqlite";
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CommitWatch } from "../../../src/store/sqlite/commit-watch.ts";

const dir = mkdtempSync(join(tmpdir(), "ogsmith-watch-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function walDatabase(name: string): { path: string; own: Database; other: Database } {
  const path = join(dir, name);
  const own = new Database(path, { create: true });
  own.exec("PRAGMA journal_mode = WAL");
  own.exec("CREATE TABLE t (n INTEGER)");
  return { path, own, other: new Database(path) };
}

test("reports commits of other connections once, and neither this connection's commits nor quiet periods", () => {
  const { path, own, other } = walDatabase("watch.db");
  const watch = CommitWatch.open(own, path)!;
  expect(watch).toBeDefined();
  // The watch keeps the file mapped on its own: a collection must not take the mapping away.
  Bun.gc(true);
  // The first look has nothing to compare with.
  expect(watch.committedElsewhere()).toBe(true);
  expect(watch.committedElsewhere()).toBe(false);

  other.exec("INSERT INTO t VALUES (1)");
  expect(watch.committedElsewhere()).toBe(true);
  expect(watch.committedElsewhere()).toBe(false);

  own.exec("INSERT INTO t VALUES (2)");
  expect(watch.committedElsewhere()).toBe(false);
  other.query("SELECT count(*) FROM t").get();
  expect(watch.committedElsewhere()).toBe(false);

  // A checkpoint that restarts the log, then a commit elsewhere into the fresh log.
  own.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  expect(watch.committedElsewhere()).toBe(false);
  other.exec("INSERT INTO t VALUES (3)");
  expect(watch.committedElsewhere()).toBe(true);
  own.close();
  other.close();
});

test("a commit by another process is seen", () => {
  const { path, own, other } = walDatabase("process.db");
  other.close();
  const watch = CommitWatch.open(own, path)!;
  watch.committedElsewhere();
  const child = Bun.spawnSync([
    process.execPath,
    "-e",
    `const { Database } = require("bun:sqlite"); new Database(${JSON.stringify(path)}).exec("INSERT INTO t VALUES (9)");`,
  ]);
  expect(child.exitCode).toBe(0);
  expect(watch.committedElsewhere()).toBe(true);
  expect(own.query("SELECT count(*) AS n FROM t").get()).toEqual({ n: 1 });
  own.close();
});

test("no watch where there is no shared WAL index", () => {
  const memory = new Database(":memory:");
  expect(CommitWatch.open(memory, ":memory:")).toBeUndefined();
  const path = join(dir, "rollback.db");
  const rollback = new Database(path, { create: true });
  rollback.exec("CREATE TABLE t (n INTEGER)");
  expect(CommitWatch.open(rollback, path)).toBeUndefined();
});
