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
