/**
 * The SQLite migrations (drizzle-kit, migrations/sqlite/), embedded in the binary: drizzle's
 * stock migrator reads files from disk, which a `bun build --compile` binary does not have, so
 * the SQL and journal are imported as text. When a migration is generated, add its file here
 * (test/unit/migrations.test.ts fails until every journal entry has its SQL).
 */
import journal from "../../../migrations/sqlite/meta/_journal.json";
import m0000 from "../../../migrations/sqlite/0000_init.sql" with { type: "text" };
import m0001 from "../../../migrations/sqlite/0001_webhooks_jobs.sql" with { type: "text" };
import m0002 from "../../../migrations/sqlite/0002_email_alerts_sessions.sql" with { type: "text" };
import m0003 from "../../../migrations/sqlite/0003_store_probe.sql" with { type: "text" };
import m0004 from "../../../migrations/sqlite/0004_signing_keys.sql" with { type: "text" };
import m0005 from "../../../migrations/sqlite/0005_account_templates.sql" with { type: "text" };
import m0006 from "../../../migrations/sqlite/0006_account_fonts.sql" with { type: "text" };
import m0007 from "../../../migrations/sqlite/0007_batches.sql" with { type: "text" };
import type { MigrationJournal } from "../embedded-migrations.ts";

export const migrationJournal: MigrationJournal = journal;

export const migrationSql: Record<string, string> = {
  "0000_init": m0000,
  "0001_webhooks_jobs": m0001,
  "0002_email_alerts_sessions": m0002,
  "0003_store_probe": m0003,
  "0004_signing_keys": m0004,
  "0005_account_templates": m0005,
  "0006_account_fonts": m0006,
  "0007_batches": m0007,
};
