/**
 * Operator commands work on the server's database file. Run from another directory, the default
 * relative path names a file that does not exist, and opening it would silently create an empty
 * database whose new accounts and keys the running server never sees. So a missing file is
 * refused, loudly, unless the operator says `--create`.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { DEFAULT_DB_PATH } from "../config.ts";
import { UsageError } from "./output.ts";

/** Returns `args` without `--create`; throws when the database file is missing and `--create` is absent. */
export function requireDatabase(dbPath: string, args: string[]): string[] {
  const create = args.includes("--create");
  const rest = args.filter((arg) => arg !== "--create");
  if (dbPath === ":memory:" || create || existsSync(dbPath)) return rest;
  throw new UsageError(
    [
      `no database at ${resolve(dbPath)} (from ${dbPath === DEFAULT_DB_PATH ? "the default OG_DB_PATH" : "OG_DB_PATH or --db"}).`,
      "Operator commands change the server's database: run them where the server runs, or pass --db PATH (or set OG_DB_PATH).",
      "To start a new, empty database at this path, add --create.",
    ].join("\n"),
  );
}
