import { expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUSY_TIMEOUT_MS, embeddedMigrations, openDatabase } from "../../../src/store/sqlite/database.ts";
import { migrationJournal, migrationSql } from "../../../src/store/sqlite/migrations.ts";
import { REPO_ROOT } from "../../support/process.ts";

test("every migration file under migrations/sqlite/ is in the journal and embedded", () => {
  const files = readdirSync(`${REPO_ROOT}/migrations/sqlite`)
    .filter((f) => f.endsWith(".sql"))
    .map((f) => f.replace(/\.sql$/, ""))
    .sort();
  expect(migrationJournal.entries.map((e) => e.tag).sort()).toEqual(files);
  expect(Object.keys(migrationSql).sort()).toEqual(files);
  expect(embeddedMigrations()).toHaveLength(files.length);
});

test("migrations apply to a fresh database, in WAL mode with a short busy timeout, and re-running them is a no-op", () => {
  const dir = mkdtempSync(join(tmpdir(), "ogsmith-mig-"));
  const db = openDatabase(join(dir, "nested", "m.db"));
  expect((db.$client.query("PRAGMA journal_mode").get() as any).journal_mode).toBe("wal");
  const tables = db.$client
    .query("SELECT name FROM sqlite_master WHERE type='table'")
    .all()
    .map((r: any) => r.name);
  expect(tables).toEqual(expect.arrayContaining(["accounts", "api_keys", "usage_periods", "events", "store_probe", "__drizzle_migrations"]));
  // Short: a lock held elsewhere must not freeze the event loop (the store retries asynchronously).
  expect((db.$client.query("PRAGMA busy_timeout").get() as any).timeout).toBe(BUSY_TIMEOUT_MS);
  expect(BUSY_TIMEOUT_MS).toBeLessThanOrEqual(50);
  expect((db.$client.query("PRAGMA foreign_keys").get() as any).foreign_keys).toBe(1);
  db.$client.close();
  const again = openDatabase(join(dir, "nested", "m.db"));
  expect((again.$client.query("SELECT count(*) AS n FROM __drizzle_migrations").get() as any).n).toBe(migrationJournal.entries.length);
  again.$client.close();
  rmSync(dir, { recursive: true, force: true });
});

test("a database written by the earlier layout (migrations 0000–0002 only) opens and gains the new ones", () => {
  const dir = mkdtempSync(join(tmpdir(), "ogsmith-mig-old-"));
  try {
    const path = join(dir, "old.db");
    // Build the old state: apply only the first three migrations, the way the previous binary did.
    const sqlite = new Database(path, { create: true });
    sqlite.exec("CREATE TABLE __drizzle_migrations (id INTEGER PRIMARY KEY AUTOINCREMENT, hash text NOT NULL, created_at numeric)");
    for (const m of embeddedMigrations().slice(0, 3)) {
      for (const statement of m.sql) if (statement.trim()) sqlite.exec(statement);
      sqlite.run("INSERT INTO __drizzle_migrations (hash, created_at) VALUES (?, ?)", [m.hash, m.folderMillis]);
    }
    sqlite.run("INSERT INTO accounts (id, email, plan, status, created_at, updated_at) VALUES ('acc_old', 'o@example.com', 'free', 'active', 1, 1)");
    sqlite.close();
    const db = openDatabase(path);
    expect((db.$client.query("SELECT count(*) AS n FROM __drizzle_migrations").get() as any).n).toBe(migrationJournal.entries.length);
    expect((db.$client.query("SELECT email FROM accounts WHERE id = 'acc_old'").get() as any).email).toBe("o@example.com");
    db.$client.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
