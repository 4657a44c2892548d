/**
 * Account templates in SQLite (see ../templates.ts). Runs inside the SqliteStore's plumbing: its
 * `read` and `write` (synchronous bodies, one IMMEDIATE transaction per write, the lock waits and
 * fault mapping of ./index.ts); SQLite's single writer makes the per-account limit and the next
 * version number exact.
 */
import { and, asc, count, eq, lte, sql } from "drizzle-orm";
import type { NewTemplateVersion, StoredTemplate, TemplateListing, TemplateStore, TemplateVersionInfo } from "../templates.ts";
import type { Db } from "./database.ts";
import { accountTemplates, accountTemplateVersions } from "./schema/index.ts";

export interface SqlitePlumbing {
  read<T>(body: () => T): Promise<T>;
  /** A write that touches neither accounts nor keys (the store's remembered key owners stay valid). */
  write<T>(body: () => T): Promise<T>;
}

interface VersionRow {
  version: number;
  digest: string;
  created_at: number;
}

interface TemplateRow {
  account_id: string;
  id: string;
  version: number;
  definition: string;
  digest: string;
  template_created_at: number;
  created_at: number;
}

const TEMPLATE_COLUMNS = "v.account_id, v.template_id AS id, v.version, v.definition, v.digest, t.created_at AS template_created_at, v.created_at";

const toStored = (row: TemplateRow): StoredTemplate => ({
  accountId: row.account_id,
  id: row.id,
  version: row.version,
  definition: row.definition,
  digest: row.digest,
  createdAt: row.template_created_at,
  updatedAt: row.created_at,
});

export class SqliteTemplateStore implements TemplateStore {
  constructor(
    private readonly db: Db,
    private readonly plumbing: SqlitePlumbing,
  ) {}

  create(template: NewTemplateVersion, maxPerAccount: number): Promise<StoredTemplate | "exists" | "limit_reached"> {
    return this.plumbing.write(() => {
      const { accountId, id, now } = template;
      if (this.db.select({ id: accountTemplates.id }).from(accountTemplates).where(and(eq(accountTemplates.accountId, accountId), eq(accountTemplates.id, id))).get()) return "exists" as const;
      if (this.countNow(accountId) >= maxPerAccount) return "limit_reached" as const;
      this.db.insert(accountTemplates).values({ accountId, id, latestVersion: 1, createdAt: now, updatedAt: now }).run();
      this.insertVersion(template, 1);
      return { accountId, id, version: 1, definition: template.definition, digest: template.digest, createdAt: now, updatedAt: now };
    });
  }

  update(template: NewTemplateVersion, keepVersions: number): Promise<StoredTemplate | undefined> {
    return this.plumbing.write(() => {
      const { accountId, id, now } = template;
      const row = this.db
        .update(accountTemplates)
        .set({ latestVersion: sql`${accountTemplates.latestVersion} + 1`, updatedAt: now })
        .where(and(eq(accountTemplates.accountId, accountId), eq(accountTemplates.id, id)))
        .returning({ version: accountTemplates.latestVersion, createdAt: accountTemplates.createdAt })
        .get();
      if (!row) return undefined;
      this.insertVersion(template, row.version);
      this.db
        .delete(accountTemplateVersions)
        .where(and(eq(accountTemplateVersions.accountId, accountId), eq(accountTemplateVersions.templateId, id), lte(accountTemplateVersions.version, row.version - keepVersions)))
        .run();
      return { accountId, id, version: row.version, definition: template.definition, digest: template.digest, createdAt: row.createdAt, updatedAt: now };
    });
  }

  get(accountId: string, id: string, version?: number): Promise<StoredTemplate | undefined> {
    return this.plumbing.read(() => {
      const row = this.db.$client
        .query<TemplateRow, [string, string, number | null]>(
          `SELECT ${TEMPLATE_COLUMNS} FROM account_templates t JOIN account_template_versions v ON v.account_id = t.account_id AND v.template_id = t.id
           WHERE t.account_id = ?1 AND t.id = ?2 AND v.version = coalesce(?3, t.latest_version)`,
        )
        .get(accountId, id, version ?? null);
      return row ? toStored(row) : undefined;
    });
  }

  head(accountId: string, id: string, version?: number): Promise<{ latest: number; found: TemplateVersionInfo | undefined } | undefined> {
    return this.plumbing.read(() => {
      const row = this.db.$client
        .query<{ latest: number; version: number | null; digest: string | null; created_at: number | null }, [string, string, number | null]>(
          `SELECT t.latest_version AS latest, v.version, v.digest, v.created_at FROM account_templates t
           LEFT JOIN account_template_versions v ON v.account_id = t.account_id AND v.template_id = t.id AND v.version = coalesce(?3, t.latest_version)
           WHERE t.account_id = ?1 AND t.id = ?2`,
        )
        .get(accountId, id, version ?? null);
      if (!row) return undefined;
      return { latest: row.latest, found: row.version === null ? undefined : { version: row.version, digest: row.digest!, createdAt: row.created_at! } };
    });
  }

  list(accountId: string): Promise<TemplateListing[]> {
    return this.plumbing.read(() =>
      this.db.$client
        .query<Omit<TemplateRow, "definition">, [string]>(
          `SELECT t.account_id, t.id, t.latest_version AS version, v.digest, t.created_at AS template_created_at, v.created_at
           FROM account_templates t JOIN account_template_versions v ON v.account_id = t.account_id AND v.template_id = t.id AND v.version = t.latest_version
           WHERE t.account_id = ?1 ORDER BY t.id`,
        )
        .all(accountId)
        .map((row) => ({ accountId: row.account_id, id: row.id, version: row.version, digest: row.digest, createdAt: row.template_created_at, updatedAt: row.created_at })),
    );
  }

  versions(accountId: string, id: string): Promise<TemplateVersionInfo[] | undefined> {
    return this.plumbing.read(() => {
      const exists = this.db.select({ id: accountTemplates.id }).from(accountTemplates).where(and(eq(accountTemplates.accountId, accountId), eq(accountTemplates.id, id))).get();
      if (!exists) return undefined;
      return this.db
        .select({ version: accountTemplateVersions.version, digest: accountTemplateVersions.digest, created_at: accountTemplateVersions.createdAt })
        .from(accountTemplateVersions)
        .where(and(eq(accountTemplateVersions.accountId, accountId), eq(accountTemplateVersions.templateId, id)))
        .orderBy(asc(accountTemplateVersions.version))
        .all()
        .map((row: VersionRow) => ({ version: row.version, digest: row.digest, createdAt: row.created_at }));
    });
  }

  delete(accountId: string, id: string): Promise<boolean> {
    // The versions go with the template (ON DELETE CASCADE).
    return this.plumbing.write(
      () => this.db.delete(accountTemplates).where(and(eq(accountTemplates.accountId, accountId), eq(accountTemplates.id, id))).returning({ id: accountTemplates.id }).all().length > 0,
    );
  }

  count(accountId: string): Promise<number> {
    return this.plumbing.read(() => this.countNow(accountId));
  }

  private countNow(accountId: string): number {
    return this.db.select({ n: count() }).from(accountTemplates).where(eq(accountTemplates.accountId, accountId)).get()!.n;
  }

  private insertVersion(template: NewTemplateVersion, version: number): void {
    this.db
      .insert(accountTemplateVersions)
      .values({ accountId: template.accountId, templateId: template.id, version, definition: template.definition, digest: template.digest, createdAt: template.now })
      .run();
  }
}
