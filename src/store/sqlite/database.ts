/**
 * Opens the SQLite database with the pragmas the store depends on and applies the embedded
 * migrations. WAL lets the operator CLI and a running server share the file.
 *
 * The busy timeout is short on purpose: bun:sqlite waits for a lock synchronously, on the
 * event loop, so a long timeout would freeze every request while another process (a backup,
 * an operator's transaction) holds the write lock. The store retries asynchronously instead
 * (see ./index.ts). Migrations run with a longer timeout, once, before the server listens.
 */
import { Database } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { drizzle, type BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import * as schema from "./schema/index.ts";
import { migrationJournal, migrationSql } from "./migrations.ts";
import { runDrizzleMigrations, toDrizzleMigrations } from "../embedded-migrations.ts";

export type Db = BunSQLiteDatabase<typeof schema> & { $client: Database };

/** Milliseconds one synchronous statement may wait for a lock before SQLITE_BUSY. */
export const BUSY_TIMEOUT_MS = 25;
/** The wait allowed while migrating at start-up (nothing is being served yet). */
const MIGRATION_BUSY_TIMEOUT_MS = 5_000;

export function openDatabase(path: string): Db {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const sqlite = new Database(path, { create: true, strict: true });
  sqlite.exec(`PRAGMA busy_timeout = ${MIGRATION_BUSY_TIMEOUT_MS};`);
  sqlite.exec("PRAGMA journal_mode = WAL;");
  sqlite.exec("PRAGMA synchronous = NORMAL;");
  sqlite.exec("PRAGMA foreign_keys = ON;");
  const db = drizzle({ client: sqlite, schema }) as Db;
  migrate(db);
  sqlite.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS};`);
  return db;
}

export function embeddedMigrations() {
  return toDrizzleMigrations(migrationJournal, migrationSql, "src/store/sqlite/migrations.ts");
}

function migrate(db: Db): void {
  // Same bookkeeping table as drizzle's file migrator, so either can run against one database.
  runDrizzleMigrations(db, embeddedMigrations());
}
