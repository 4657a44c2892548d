/**
 * Account templates in SQLite (../ports/templates.ts). SQLite's single writer makes the
 * per-account limit and the next version number exact.
 */
import type { NewTemplateVersion, StoredTemplate, TemplateListing, TemplateStore, TemplateVersionInfo } from "../ports/templates.ts";
import { LEAVES_KEYS, type SqliteConnection } from "./connection.ts";

/** A stored version with its template's creation time (`createdAt`) and its own (`updatedAt`). */
const STORED = `v.account_id AS accountId, v.template_id AS id, v.version, v.definition, v.digest, t.created_at AS createdAt, v.created_at AS updatedAt`;
const JOIN_VERSION = "FROM account_templates t JOIN account_template_versions v ON v.account_id = t.account_id AND v.template_id = t.id";

export class SqliteTemplateStore implements TemplateStore {
  constructor(private readonly c: SqliteConnection) {}

  create(template: NewTemplateVersion, maxPerAccount: number): Promise<StoredTemplate | "exists" | "limit_reached"> {
    return this.c.write(() => {
      const { accountId, id, now } = template;
      if (this.c.sql("SELECT 1 AS found FROM account_templates WHERE account_id = ? AND id = ?").get(accountId, id)) return "exists" as const;
      if (this.#count(accountId) >= maxPerAccount) return "limit_reached" as const;
      this.c.sql("INSERT INTO account_templates (account_id, id, latest_version, created_at, updated_at) VALUES (?, ?, 1, ?, ?)").run(accountId, id, now, now);
      this.#insertVersion(template, 1);
      return { accountId, id, version: 1, definition: template.definition, digest: template.digest, createdAt: now, updatedAt: now };
    }, LEAVES_KEYS);
  }

  update(template: NewTemplateVersion, keepVersions: number): Promise<StoredTemplate | undefined> {
    return this.c.write(() => {
      const { accountId, id, now } = template;
      const row = this.c
        .sql(
          "UPDATE account_templates SET latest_version = latest_version + 1, updated_at = ? WHERE account_id = ? AND id = ? RETURNING latest_version AS version, created_at AS createdAt",
        )
        .get(now, accountId, id) as { version: number; createdAt: number } | null;
      if (!row) return undefined;
      this.#insertVersion(template, row.version);
      this.c
        .sql("DELETE FROM account_template_versions WHERE account_id = ? AND template_id = ? AND version <= ?")
        .run(accountId, id, row.version - keepVersions);
      return { accountId, id, version: row.version, definition: template.definition, digest: template.digest, createdAt: row.createdAt, updatedAt: now };
    }, LEAVES_KEYS);
  }

  get(accountId: string, id: string, version?: number): Promise<StoredTemplate | undefined> {
    return this.c.read(
      () =>
        (this.c
          .sql(`SELECT ${STORED} ${JOIN_VERSION} WHERE t.account_id = ?1 AND t.id = ?2 AND v.version = coalesce(?3, t.latest_version)`)
          .get(accountId, id, version ?? null) as StoredTemplate | null) ?? undefined,
    );
  }

  head(accountId: string, id: string, version?: number): Promise<{ latest: number; found: TemplateVersionInfo | undefined } | undefined> {
    return this.c.read(() => {
      const row = this.c
        .sql(
          `SELECT t.latest_version AS latest, v.version, v.digest, v.created_at AS createdAt FROM account_templates t
           LEFT JOIN account_template_versions v ON v.account_id = t.account_id AND v.template_id = t.id AND v.version = coalesce(?3, t.latest_version)
           WHERE t.account_id = ?1 AND t.id = ?2`,
        )
        .get(accountId, id, version ?? null) as { latest: number; version: number | null; digest: string | null; createdAt: number | null } | null;
      if (!row) return undefined;
      return { latest: row.latest, found: row.version === null ? undefined : { version: row.version, digest: row.digest!, createdAt: row.createdAt! } };
    });
  }

  list(accountId: string): Promise<TemplateListing[]> {
    return this.c.read(
      () =>
        this.c
          .sql(
            `SELECT t.account_id AS accountId, t.id, t.latest_version AS version, v.digest, t.created_at AS createdAt, v.created_at AS updatedAt
             ${JOIN_VERSION} AND v.version = t.latest_version WHERE t.account_id = ? ORDER BY t.id`,
          )
          .all(accountId) as TemplateListing[],
    );
  }

  versions(accountId: string, id: string): Promise<TemplateVersionInfo[] | undefined> {
    return this.c.read(() => {
      if (!this.c.sql("SELECT 1 AS found FROM account_templates WHERE account_id = ? AND id = ?").get(accountId, id)) return undefined;
      return this.c
        .sql("SELECT version, digest, created_at AS createdAt FROM account_template_versions WHERE account_id = ? AND template_id = ? ORDER BY version")
        .all(accountId, id) as TemplateVersionInfo[];
    });
  }

  delete(accountId: string, id: string): Promise<boolean> {
    // The versions go with the template (ON DELETE CASCADE).
    return this.c.write(() => this.c.sql("DELETE FROM account_templates WHERE account_id = ? AND id = ?").run(accountId, id).changes > 0, LEAVES_KEYS);
  }

  count(accountId: string): Promise<number> {
    return this.c.read(() => this.#count(accountId));
  }

  #count(accountId: string): number {
    return (this.c.sql("SELECT count(*) AS n FROM account_templates WHERE account_id = ?").get(accountId) as { n: number }).n;
  }

  #insertVersion(template: NewTemplateVersion, version: number): void {
    this.c
      .sql("INSERT INTO account_template_versions (account_id, template_id, version, definition, digest, created_at) VALUES (?, ?, ?, ?, ?, ?)")
      .run(template.accountId, template.id, version, template.definition, template.digest, template.now);
  }
}
