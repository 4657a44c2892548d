import { expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase, embeddedMigrations } from "../../../src/db/client.ts";
import { migrationJournal, migrationSql } from "../../../src/db/embedded-migrations.ts";
import { REPO_ROOT } from "../../support/process.ts";

test("every migration file under migrations/ is in the journal and embedded", () => {
  const files = readdirSync(`${REPO_ROOT}/migrations`).filter((f) => f.endsWith(".sql")).map((f) => f.replace(/\.sql$/, "")).sort();
  expect(migrationJournal.entries.map((e) => e.tag).sort()).toEqual(files);
  expect(Object.keys(migrationSql).sort()).toEqual(files);
  expect(embeddedMigrations()).toHaveLength(files.length);
});

test("migrations apply to a fresh database, in WAL mode with a busy timeout, and re-running them is a no-op", () => {
  const dir = mkdtempSync(join(tmpdir(), "ogsmith-mig-"));
  const db = openDatabase(join(dir, "nested", "m.db"));
  expect((db.$client.query("PRAGMA journal_mode").get() as any).journal_mode).toBe("wal");
  const tables = db.$client.query("SELECT name FROM sqlite_master WHERE type='table'").all().map((r: any) => r.name);
  expect(tables).toEqual(expect.arrayContaining(["accounts", "api_keys", "usage_periods", "events", "__drizzle_migrations"]));
  expect((db.$client.query("PRAGMA busy_timeout").get() as any).timeout).toBe(5000);
  expect((db.$client.query("PRAGMA foreign_keys").get() as any).foreign_keys).toBe(1);
  db.$client.close();
  const again = openDatabase(join(dir, "nested", "m.db"));
  expect((again.$client.query("SELECT count(*) AS n FROM __drizzle_migrations").get() as any).n).toBe(migrationJournal.entries.length);
  again.$client.close();
  rmSync(dir, { recursive: true, force: true });
});
