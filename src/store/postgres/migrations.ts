/**
 * The PostgreSQL migrations (drizzle-kit, migrations/postgres/), embedded in the binary like the
 * SQLite ones: imported as text and fed to drizzle's own migration routine, under a PostgreSQL
 * advisory lock so instances starting at once migrate once (the others wait, then find nothing
 * to do). When a migration is generated, add its file here.
 */
import journal from "../../../migrations/postgres/meta/_journal.json";
import m0000 from "../../../migrations/postgres/0000_init.sql" with { type: "text" };
import m0001 from "../../../migrations/postgres/0001_signing_keys.sql" with { type: "text" };
import m0002 from "../../../migrations/postgres/0002_unit_reservations.sql" with { type: "text" };
import m0003 from "../../../migrations/postgres/0003_account_templates.sql" with { type: "text" };
import m0004 from "../../../migrations/postgres/0004_account_fonts.sql" with { type: "text" };
import m0005 from "../../../migrations/postgres/0005_batches.sql" with { type: "text" };
import { toDrizzleMigrations, type MigrationJournal } from "../embedded-migrations.ts";

export const migrationJournal: MigrationJournal = journal;

export const migrationSql: Record<string, string> = {
  "0000_init": m0000,
  "0001_signing_keys": m0001,
  "0002_unit_reservations": m0002,
  "0003_account_templates": m0003,
  "0004_account_fonts": m0004,
  "0005_batches": m0005,
};

export function embeddedMigrations() {
  return toDrizzleMigrations(migrationJournal, migrationSql, "src/store/postgres/migrations.ts");
}
