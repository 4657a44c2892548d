/** Signing keys for public image URLs in PostgreSQL (../ports/signing-keys.ts). */
import type { AccountRecord } from "../ports/accounts.ts";
import type { SigningKeyOwner, SigningKeyRecord, SigningKeysPort } from "../ports/signing-keys.ts";
import { ACCOUNT, columns, SIGNING_KEY, unprefixed } from "../records.ts";
import type { PostgresConnection } from "./connection.ts";

const KEY_COLUMNS = columns(SIGNING_KEY);
const OWNER_COLUMNS = `${columns(SIGNING_KEY, { table: "k", prefix: "k_" })}, ${columns(ACCOUNT, { table: "a" })}`;

export class PostgresSigningKeys implements SigningKeysPort {
  constructor(private readonly c: PostgresConnection) {}

  createSigningKey(key: SigningKeyRecord, maxPerAccount: number): Promise<SigningKeyRecord | "limit_reached"> {
    return this.c.write(async (tx) => {
      // The account row lock serializes creations per account, so the limit holds across instances.
      await tx`select id from accounts where id = ${key.accountId} for update`;
      const [{ n }] = (await tx`select count(*)::int as n from signing_keys where account_id = ${key.accountId}`) as unknown as [{ n: number }];
      if (n >= maxPerAccount) return "limit_reached" as const;
      await tx`insert into signing_keys (id, account_id, secret, created_at, last_used_at) values (${key.id}, ${key.accountId}, ${key.secret}, ${key.createdAt}, ${key.lastUsedAt})`;
      return key;
    });
  }

  listSigningKeys(accountId: string): Promise<SigningKeyRecord[]> {
    return this.c.run(
      async (sql) =>
        (await sql`select ${sql.unsafe(KEY_COLUMNS)} from signing_keys where account_id = ${accountId} order by created_at, seq`) as unknown as SigningKeyRecord[],
    );
  }

  deleteSigningKey(accountId: string, id: string): Promise<boolean> {
    return this.c.run(async (sql) => (await sql`delete from signing_keys where id = ${id} and account_id = ${accountId} returning id`).length > 0);
  }

  findSigningKey(id: string): Promise<SigningKeyOwner | undefined> {
    return this.c.run(async (sql) => {
      const [row] = await sql`select ${sql.unsafe(OWNER_COLUMNS)} from signing_keys k join accounts a on a.id = k.account_id where k.id = ${id}`;
      if (!row) return undefined;
      return { key: unprefixed<SigningKeyRecord>(row, SIGNING_KEY, "k_"), account: unprefixed<AccountRecord>(row, ACCOUNT, "") };
    });
  }

  touchSigningKey(id: string, now: number): Promise<void> {
    return this.c.run(async (sql) => {
      await sql`update signing_keys set last_used_at = ${now} where id = ${id}`;
    });
  }
}
