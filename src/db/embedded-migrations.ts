/**
 * drizzle-kit migrations, embedded in the binary. drizzle's stock migrator reads files from disk,
 * which a `bun build --compile` binary does not have, so the SQL and journal are imported as text.
 * When `bun run db:generate` adds a migration, add its file here (test/unit/migrations.test.ts
 * fails until every journal entry has its SQL).
 */
import journal from "../../migrations/meta/_journal.json";
import m0000 from "../../migrations/0000_init.sql" with { type: "text" };
import m0001 from "../../migrations/0001_webhooks_jobs.sql" with { type: "text" };
import m0002 from "../../migrations/0002_email_alerts_sessions.sql" with { type: "text" };

export const migrationJournal: { entries: { tag: string; when: number; breakpoints: boolean }[] } = journal;

export const migrationSql: Record<string, string> = {
  "0000_init": m0000,
  "0001_webhooks_jobs": m0001,
  "0002_email_alerts_sessions": m0002,
};
