/**
 * drizzle-kit migrations embedded in the binary (imported as text) in the form drizzle's own
 * migration routine takes, for either dialect: the same bookkeeping (hash, folder time) as
 * drizzle's file migrator, so a database migrated either way is recognised by the other.
 */
import { createHash } from "node:crypto";

export interface MigrationJournal {
  entries: { tag: string; when: number; breakpoints: boolean }[];
}

/** `embeddedIn` names the file that must import a migration the journal lists but nobody embedded. */
export function toDrizzleMigrations(journal: MigrationJournal, sqlByTag: Record<string, string>, embeddedIn: string) {
  return journal.entries.map((entry) => {
    const sql = sqlByTag[entry.tag];
    if (sql === undefined) throw new Error(`migration ${entry.tag} is in the journal but not embedded (${embeddedIn})`);
    return {
      sql: sql.split("--> statement-breakpoint"),
      bps: entry.breakpoints,
      folderMillis: entry.when,
      hash: createHash("sha256").update(sql).digest("hex"),
    };
  });
}

export type DrizzleMigration = ReturnType<typeof toDrizzleMigrations>[number];

/**
 * The part of a drizzle database object its file migrators use (`dialect.migrate` with the
 * database's session), which drizzle does not export. Embedded migrations have no folder for
 * those migrators to read, so we call the routine they end in.
 */
interface MigratingDatabase {
  dialect: { migrate(migrations: DrizzleMigration[], session: unknown, config: object): unknown };
  session: unknown;
}

/** Runs `migrations` through the database's own dialect (sync for bun:sqlite, a promise for PostgreSQL). */
export function runDrizzleMigrations(db: object, migrations: DrizzleMigration[], config: object = {}): unknown {
  const { dialect, session } = db as MigratingDatabase;
  return dialect.migrate(migrations, session, config);
}
