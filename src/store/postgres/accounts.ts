/** Accounts and API keys in PostgreSQL (../ports/accounts.ts). Nothing is cached: every instance reads a replaced key at once. */
import type { AccountChanges, AccountRecord, AccountsPort, ApiKeyRecord, KeyOwner } from "../ports/accounts.ts";
import { ACCOUNT, API_KEY, columns, unprefixed } from "../records.ts";
import type { PostgresConnection, Tx } from "./connection.ts";

const ACCOUNT_COLUMNS = columns(ACCOUNT);
const OWNER_COLUMNS = columns(ACCOUNT, { table: "a" });
const KEY_COLUMNS = columns(API_KEY);
const LISTED_COLUMNS = columns(ACCOUNT, { table: "a", prefix: "a_" });

export class PostgresAccounts implements AccountsPort {
  constructor(private readonly c: PostgresConnection) {}

  countAccounts(): Promise<number> {
    return this.c.run(async (sql) => (await sql`select count(*)::int as n from accounts`)[0]!.n as number);
  }

  createAccount(a: AccountRecord, key: ApiKeyRecord): Promise<void> {
    return this.c.write(async (tx) => {
      await tx`insert into accounts (id, email, plan, status, custom_quota, custom_requests_per_second, created_at, updated_at)
        values (${a.id}, ${a.email}, ${a.plan}, ${a.status}, ${a.customQuota}, ${a.customRequestsPerSecond}, ${a.createdAt}, ${a.updatedAt})`;
      await insertKey(tx, key);
    });
  }

  getAccount(id: string): Promise<AccountRecord | undefined> {
    return this.c.run(async (sql) => (await sql`select ${sql.unsafe(ACCOUNT_COLUMNS)} from accounts where id = ${id}`)[0] as AccountRecord | undefined);
  }

  listAccounts(): Promise<{ account: AccountRecord; keyPrefix: string | null }[]> {
    return this.c.run(async (sql) => {
      const rows = await sql`select ${sql.unsafe(LISTED_COLUMNS)},
          (select k.key_prefix from api_keys k where k.account_id = a.id and k.revoked_at is null order by k.created_at desc, k.seq desc limit 1) as "keyPrefix"
        from accounts a order by a.created_at, a.seq`;
      return rows.map((row) => ({ account: unprefixed<AccountRecord>(row, ACCOUNT, "a_"), keyPrefix: (row.keyPrefix as string | null) ?? null }));
    });
  }

  updateAccount(id: string, c: AccountChanges): Promise<AccountRecord | undefined> {
    return this.c.run(
      async (sql) =>
        (
          await sql`update accounts set email = ${c.email}, plan = ${c.plan}, status = ${c.status}, custom_quota = ${c.customQuota},
            custom_requests_per_second = ${c.customRequestsPerSecond}, updated_at = ${c.updatedAt} where id = ${id} returning ${sql.unsafe(ACCOUNT_COLUMNS)}`
        )[0] as AccountRecord | undefined,
    );
  }

  activeKeyPrefix(accountId: string): Promise<string | null> {
    return this.c.run(async (sql) => {
      const [row] =
        await sql`select key_prefix from api_keys where account_id = ${accountId} and revoked_at is null order by created_at desc, seq desc limit 1`;
      return (row?.key_prefix as string | undefined) ?? null;
    });
  }

  replaceKey(accountId: string, key: ApiKeyRecord): Promise<boolean> {
    return this.c.write(async (tx) => {
      // Locks the account row: two replacements of one account run one after the other.
      const [found] = await tx`select id from accounts where id = ${accountId} for update`;
      if (!found) return false;
      await tx`update api_keys set revoked_at = ${key.createdAt} where account_id = ${accountId} and revoked_at is null`;
      await insertKey(tx, key);
      return true;
    });
  }

  findAccountByKeyHash(keyHash: string): Promise<KeyOwner | undefined> {
    return this.c.run(async (sql) => {
      const [row] = await sql`select ${sql.unsafe(OWNER_COLUMNS)}, k.id as "keyId", k.key_prefix as "keyPrefix"
        from api_keys k join accounts a on a.id = k.account_id where k.key_hash = ${keyHash} and k.revoked_at is null`;
      if (!row) return undefined;
      const { keyId, keyPrefix, ...account } = row;
      return { account: account as AccountRecord, keyId: keyId as string, keyPrefix: keyPrefix as string };
    });
  }

  listApiKeys(accountId: string): Promise<ApiKeyRecord[]> {
    return this.c.run(
      async (sql) =>
        (await sql`select ${sql.unsafe(KEY_COLUMNS)} from api_keys where account_id = ${accountId} order by created_at, seq`) as unknown as ApiKeyRecord[],
    );
  }
}

function insertKey(tx: Tx, k: ApiKeyRecord) {
  return tx`insert into api_keys (id, account_id, key_hash, key_prefix, created_at, revoked_at)
    values (${k.id}, ${k.accountId}, ${k.keyHash}, ${k.keyPrefix}, ${k.createdAt}, ${k.revokedAt})`;
}
