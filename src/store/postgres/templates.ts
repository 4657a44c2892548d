/**
 * Account templates in PostgreSQL (see ../templates.ts), shaped like ../sqlite/templates.ts. Runs
 * inside the PostgresStore's plumbing (`run` maps connection faults, `write` is one transaction
 * run again whole after a deadlock). Exact across instances: creating locks the account's row, so
 * the per-account limit holds; updating bumps `latest_version` with one UPDATE, whose row lock
 * gives concurrent updates distinct versions.
 */
import type { NewTemplateVersion, StoredTemplate, TemplateListing, TemplateStore, TemplateVersionInfo } from "../templates.ts";
import type { Sql } from "./connection.ts";

export interface PostgresPlumbing {
  run<T>(body: (sql: Sql) => Promise<T>): Promise<T>;
  write<T>(body: (tx: Sql) => Promise<T>): Promise<T>;
}

type Row = Record<string, any>;

const PREPARED = { prepare: true } as const;

const TEMPLATE_COLUMNS = "v.account_id, v.template_id as id, v.version, v.definition, v.digest, t.created_at as template_created_at, v.created_at";

const toStored = (row: Row): StoredTemplate => ({
  accountId: row.account_id,
  id: row.id,
  version: row.version,
  definition: row.definition,
  digest: row.digest,
  createdAt: Number(row.template_created_at),
  updatedAt: Number(row.created_at),
});

export class PostgresTemplateStore implements TemplateStore {
  constructor(private readonly plumbing: PostgresPlumbing) {}

  create(template: NewTemplateVersion, maxPerAccount: number): Promise<StoredTemplate | "exists" | "limit_reached"> {
    const { accountId, id, now } = template;
    return this.plumbing.write(async (tx) => {
      // The account row lock serializes creations per account, so the limit holds across instances.
      await tx`select id from accounts where id = ${accountId} for update`;
      const [{ n, taken }] = (await tx`select count(*)::int as n, count(*) filter (where id = ${id})::int as taken from account_templates where account_id = ${accountId}`) as unknown as [
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
    return this.plumbing.write(async (tx) => {
      const [row] = await tx`update account_templates set latest_version = latest_version + 1, updated_at = ${now}
        where account_id = ${accountId} and id = ${id} returning latest_version, created_at`;
      if (!row) return undefined;
      const version = row.latest_version as number;
      await insertVersion(tx, template, version);
      await tx`delete from account_template_versions where account_id = ${accountId} and template_id = ${id} and version <= ${version - keepVersions}`;
      return { accountId, id, version, definition: template.definition, digest: template.digest, createdAt: Number(row.created_at), updatedAt: now };
    });
  }

  get(accountId: string, id: string, version?: number): Promise<StoredTemplate | undefined> {
    return this.plumbing.run(async (sql) => {
      const [row] = await sql.unsafe(
        `select ${TEMPLATE_COLUMNS} from account_templates t join account_template_versions v on v.account_id = t.account_id and v.template_id = t.id
         where t.account_id = $1 and t.id = $2 and v.version = coalesce($3::int, t.latest_version)`,
        [accountId, id, version ?? null],
        PREPARED,
      );
      return row ? toStored(row) : undefined;
    });
  }

  head(accountId: string, id: string, version?: number): Promise<{ latest: number; found: TemplateVersionInfo | undefined } | undefined> {
    return this.plumbing.run(async (sql) => {
      const [row] = await sql.unsafe(
        `select t.latest_version as latest, v.version, v.digest, v.created_at from account_templates t
         left join account_template_versions v on v.account_id = t.account_id and v.template_id = t.id and v.version = coalesce($3::int, t.latest_version)
         where t.account_id = $1 and t.id = $2`,
        [accountId, id, version ?? null],
        PREPARED,
      );
      if (!row) return undefined;
      return { latest: row.latest, found: row.version === null ? undefined : { version: row.version, digest: row.digest, createdAt: Number(row.created_at) } };
    });
  }

  list(accountId: string): Promise<TemplateListing[]> {
    return this.plumbing.run(async (sql) =>
      (
        await sql.unsafe(
          `select t.account_id, t.id, t.latest_version as version, v.digest, t.created_at as template_created_at, v.created_at
           from account_templates t join account_template_versions v on v.account_id = t.account_id and v.template_id = t.id and v.version = t.latest_version
           where t.account_id = $1 order by t.id collate "C"`,
          [accountId],
          PREPARED,
        )
      ).map((row) => ({ accountId: row.account_id, id: row.id, version: row.version, digest: row.digest, createdAt: Number(row.template_created_at), updatedAt: Number(row.created_at) })),
    );
  }

  versions(accountId: string, id: string): Promise<TemplateVersionInfo[] | undefined> {
    return this.plumbing.run(async (sql) => {
      const rows = await sql`select t.id as template, v.version, v.digest, v.created_at from account_templates t
        left join account_template_versions v on v.account_id = t.account_id and v.template_id = t.id
        where t.account_id = ${accountId} and t.id = ${id} order by v.version`;
      if (rows.length === 0) return undefined;
      return rows.filter((row) => row.version !== null).map((row) => ({ version: row.version as number, digest: row.digest as string, createdAt: Number(row.created_at) }));
    });
  }

  delete(accountId: string, id: string): Promise<boolean> {
    // The versions go with the template (ON DELETE CASCADE).
    return this.plumbing.run(async (sql) => (await sql`delete from account_templates where account_id = ${accountId} and id = ${id} returning id`).length > 0);
  }

  count(accountId: string): Promise<number> {
    return this.plumbing.run(async (sql) => ((await sql`select count(*)::int as n from account_templates where account_id = ${accountId}`)[0]!.n as number));
  }
}

function insertVersion(tx: Sql, template: NewTemplateVersion, version: number) {
  return tx`insert into account_template_versions (account_id, template_id, version, definition, digest, created_at)
    values (${template.accountId}, ${template.id}, ${version}, ${template.definition}, ${template.digest}, ${template.now})`;
}
