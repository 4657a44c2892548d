/**
 * Opens the SQLite database with the pragmas the service depends on and applies the embedded
 * migrations. bun:sqlite is synchronous, so a transaction is never interleaved with other work
 * in this process; WAL plus a busy timeout lets the CLI and a running server share the file.
 */
import { Database } from "bun:sqlite";
import { createHash } from "node:crypto";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { drizzle, type BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import * as schema from "./schema/index.ts";
import { migrationJournal, migrationSql } from "./embedded-migrations.ts";

export type Db = BunSQLiteDatabase<typeof schema> & { $client: Database };
/** What a `db.transaction(tx => …)` callback receives; core functions accept either. */
export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];
export type DbOrTx = Db | Tx;

export function openDatabase(path: string): Db {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const sqlite = new Database(path, { create: true, strict: true });
  sqlite.exec("PRAGMA journal_mode = WAL;");
  sqlite.exec("PRAGMA busy_timeout = 5000;");
  sqlite.exec("PRAGMA synchronous = NORMAL;");
  sqlite.exec("PRAGMA foreign_keys = ON;");
  const db = drizzle({ client: sqlite, schema }) as Db;
  migrate(db);
  return db;
}

export function embeddedMigrations() {
  return migrationJournal.entries.map((entry) => {
    const sql = migrationSql[entry.tag];
    if (sql === undefined) throw new Error(`migration ${entry.tag} is in the journal but not embedded (src/db/embedded-migrations.ts)`);
    return {
      sql: sql.split("--> statement-breakpoint"),
      bps: entry.breakpoints,
      folderMillis: entry.when,
      hash: createHash("sha256").update(sql).digest("hex"),
    };
  });
}

function migrate(db: Db): void {
  // Same bookkeeping table as drizzle's file migrator, so either can run against one database.
  (db as any).dialect.migrate(embeddedMigrations(), (db as any).session, {});
}
