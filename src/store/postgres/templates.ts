/**
 * Account templates in PostgreSQL (../ports/templates.ts), shaped like ../sqlite/templates.ts.
 * Exact across instances: creating locks the account's row, so the per-account limit holds;
 * updating bumps `latest_version` with one UPDATE, whose row lock gives concurrent updates
 * distinct versions.
 */
import type { NewTemplateVersion, StoredTemplate, TemplateListing, TemplateStore, TemplateVersionInfo } from "../ports/templates.ts";
import type { PostgresConnection, Tx } from "./connection.ts";

/** A stored version with its template's creation time (`createdAt`) and its own (`updatedAt`). */
const STORED = `v.account_id as "accountId", v.template_id as id, v.version, v.definition, v.digest, t.created_at as "createdAt", v.created_at as "updatedAt"`;

export class PostgresTemplateStore implements TemplateStore {
  constructor(private readonly c: PostgresConnection) {}

  create(template: NewTemplateVersion, maxPerAccount: number): Promise<StoredTemplate | "exists" | "limit_reached"> {
    const { accountId, id, now } = template;
    return this.c.write(async (tx) => {
      // The account row lock serializes creations per account, so the limit holds across instances.
      await tx`select id from accounts where id = ${accountId} for update`;
      const [{ n, taken }] =
        (await tx`select count(*)::int as n, count(*) filter (where id = ${id})::int as taken from account_templates where account_id = ${accountId}`) as unknown as [
          { n: number; taken: number },
        ];
      if (taken > 0) return "exists" as const;
      if (n >= maxPerAccount) return "limit_reached" as const;
      await tx`insert into account_templates (account_id, id, latest_version, created_at, updated_at) values (${accountId}, ${id}, 1, ${now}, ${now})`;
      await insertVersion(tx, template, 1);
      return { accountId, id, version: 1, definition: template.definition, digest: template.digest, createdAt: now, updatedAt: now };
    });
  }

  update(template: NewTemplateVersion, keepVersions: number): Promise<StoredTemplate | undefined> {
    const { accountId, id, now } = template;
    return this.c.write(async (tx) => {
      const [row] = await tx`update account_templates set latest_version = latest_version + 1, updated_at = ${now}
        where account_id = ${accountId} and id = ${id} returning latest_version as version, created_at as "createdAt"`;
      if (!row) return undefined;
      const version = row.version as number;
      await insertVersion(tx, template, version);
      await tx`delete from account_template_versions where account_id = ${accountId} and template_id = ${id} and version <= ${version - keepVersions}`;
      return { accountId, id, version, definition: template.definition, digest: template.digest, createdAt: row.createdAt as number, updatedAt: now };
    });
  }

  get(accountId: string, id: string, version?: number): Promise<StoredTemplate | undefined> {
    return this.c.run(
      async (sql) =>
        (
          await sql`select ${sql.unsafe(STORED)} from account_templates t join account_template_versions v on v.account_id = t.account_id and v.template_id = t.id
            where t.account_id = ${accountId} and t.id = ${id} and v.version = coalesce(${version ?? null}::int, t.latest_version)`
        )[0] as StoredTemplate | undefined,
    );
  }

  head(accountId: string, id: string, version?: number): Promise<{ latest: number; found: TemplateVersionInfo | undefined } | undefined> {
    return this.c.run(async (sql) => {
      const [row] = await sql`select t.latest_version as latest, v.version, v.digest, v.created_at as "createdAt" from account_templates t
        left join account_template_versions v on v.account_id = t.account_id and v.template_id = t.id and v.version = coalesce(${version ?? null}::int, t.latest_version)
        where t.account_id = ${accountId} and t.id = ${id}`;
      if (!row) return undefined;
      return {
        latest: row.latest as number,
        found: row.version === null ? undefined : { version: row.version as number, digest: row.digest as string, createdAt: row.createdAt as number },
      };
    });
  }

  list(accountId: string): Promise<TemplateListing[]> {
    return this.c.run(
      async (sql) =>
        (await sql`select t.account_id as "accountId", t.id, t.latest_version as version, v.digest, t.created_at as "createdAt", v.created_at as "updatedAt"
          from account_templates t join account_template_versions v on v.account_id = t.account_id and v.template_id = t.id and v.version = t.latest_version
          where t.account_id = ${accountId} order by t.id collate "C"`) as unknown as TemplateListing[],
    );
  }

  versions(accountId: string, id: string): Promise<TemplateVersionInfo[] | undefined> {
    return this.c.run(async (sql) => {
      const rows = await sql`select v.version, v.digest, v.created_at as "createdAt" from account_templates t
        left join account_template_versions v on v.account_id = t.account_id and v.template_id = t.id
        where t.account_id = ${accountId} and t.id = ${id} order by v.version`;
      if (rows.length === 0) return undefined;
      return rows.filter((row) => row.version !== null) as unknown as TemplateVersionInfo[];
    });
  }

  delete(accountId: string, id: string): Promise<boolean> {
    // The versions go with the template (ON DELETE CASCADE).
    return this.c.run(async (sql) => (await sql`delete from account_templates where account_id = ${accountId} and id = ${id} returning id`).length > 0);
  }

  count(accountId: string): Promise<number> {
    return this.c.run(async (sql) => (await sql`select count(*)::int as n from account_templates where account_id = ${accountId}`)[0]!.n as number);
  }
}

function insertVersion(tx: Tx, template: NewTemplateVersion, version: number) {
  return tx`insert into account_template_versions (account_id, template_id, version, definition, digest, created_at)
    values (${template.accountId}, ${template.id}, ${version}, ${template.definition}, ${template.digest}, ${template.now})`;
}
