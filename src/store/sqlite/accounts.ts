/** Accounts and API keys in SQLite (../ports/accounts.ts). */
import type { AccountChanges, AccountRecord, AccountsPort, ApiKeyRecord, KeyOwner } from "../ports/accounts.ts";
import { ACCOUNT, API_KEY, columns } from "../records.ts";
import type { SqliteConnection } from "./connection.ts";

const ACCOUNT_COLUMNS = columns(ACCOUNT);
const KEY_COLUMNS = columns(API_KEY);

export class SqliteAccounts implements AccountsPort {
  /** Owners of API keys recently presented, by key hash (see SqliteConnection.remembered). */
  readonly #keyOwners: Map<string, KeyOwner>;

  constructor(private readonly c: SqliteConnection) {
    this.#keyOwners = c.rememberer();
  }

  countAccounts(): Promise<number> {
    return this.c.read(() => (this.c.sql("SELECT count(*) AS n FROM accounts").get() as { n: number }).n);
  }

  createAccount(account: AccountRecord, key: ApiKeyRecord): Promise<void> {
    return this.c.write(() => {
      this.c
        .sql("INSERT INTO accounts (id, email, plan, status, custom_quota, custom_requests_per_second, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
        .run(
          account.id,
          account.email,
          account.plan,
          account.status,
          account.customQuota,
          account.customRequestsPerSecond,
          account.createdAt,
          account.updatedAt,
        );
      this.#insertKey(key);
    });
  }

  #insertKey(k: ApiKeyRecord): void {
    this.c
      .sql("INSERT INTO api_keys (id, account_id, key_hash, key_prefix, created_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?)")
      .run(k.id, k.accountId, k.keyHash, k.keyPrefix, k.createdAt, k.revokedAt);
  }

  getAccount(id: string): Promise<AccountRecord | undefined> {
    return this.c.read(() => (this.c.sql(`SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE id = ?`).get(id) as AccountRecord | null) ?? undefined);
  }

  listAccounts(): Promise<{ account: AccountRecord; keyPrefix: string | null }[]> {
    return this.c.read(() =>
      (this.c.sql(`SELECT ${ACCOUNT_COLUMNS} FROM accounts ORDER BY created_at, rowid`).all() as AccountRecord[]).map((account) => ({
        account,
        keyPrefix: this.#keyPrefixOf(account.id),
      })),
    );
  }

  updateAccount(id: string, c: AccountChanges): Promise<AccountRecord | undefined> {
    return this.c.write(
      () =>
        (this.c
          .sql(
            `UPDATE accounts SET email = ?, plan = ?, status = ?, custom_quota = ?, custom_requests_per_second = ?, updated_at = ? WHERE id = ? RETURNING ${ACCOUNT_COLUMNS}`,
          )
          .get(c.email, c.plan, c.status, c.customQuota, c.customRequestsPerSecond, c.updatedAt, id) as AccountRecord | null) ?? undefined,
    );
  }

  activeKeyPrefix(accountId: string): Promise<string | null> {
    return this.c.read(() => this.#keyPrefixOf(accountId));
  }

  #keyPrefixOf(accountId: string): string | null {
    const key = this.c
      .sql("SELECT key_prefix AS keyPrefix FROM api_keys WHERE account_id = ? AND revoked_at IS NULL ORDER BY created_at DESC, rowid DESC LIMIT 1")
      .get(accountId) as {
      keyPrefix: string;
    } | null;
    return key?.keyPrefix ?? null;
  }

  replaceKey(accountId: string, key: ApiKeyRecord): Promise<boolean> {
    return this.c.write(() => {
      if (!this.c.sql("SELECT 1 AS found FROM accounts WHERE id = ?").get(accountId)) return false;
      this.c.sql("UPDATE api_keys SET revoked_at = ? WHERE account_id = ? AND revoked_at IS NULL").run(key.createdAt, accountId);
      this.#insertKey(key);
      return true;
    });
  }

  findAccountByKeyHash(keyHash: string): Promise<KeyOwner | undefined> {
    return this.c.remembered(this.#keyOwners, keyHash, () => this.#keyOwner(keyHash));
  }

  #keyOwner(keyHash: string): KeyOwner | undefined {
    // On every authenticated request, so: one statement (one snapshot, one lock round trip, no
    // BEGIN/COMMIT), remembered. The key's fields come from scalar subqueries on the unique
    // key_hash index: in bun:sqlite this measured ≈ 2.4 µs against ≈ 12 µs for the equivalent
    // join and ≈ 2.8 µs for two lookups in a transaction.
    const row = this.c
      .sql(
        `SELECT ${ACCOUNT_COLUMNS},
          (SELECT id FROM api_keys WHERE key_hash = ?1) AS keyId,
          (SELECT key_prefix FROM api_keys WHERE key_hash = ?1) AS keyPrefix
        FROM accounts WHERE id = (SELECT account_id FROM api_keys WHERE key_hash = ?1 AND revoked_at IS NULL)`,
      )
      .get(keyHash) as (AccountRecord & { keyId: string; keyPrefix: string }) | null;
    if (!row) return undefined;
    const { keyId, keyPrefix, ...account } = row;
    // Frozen: the same object may answer many requests.
    return Object.freeze({ account: Object.freeze(account), keyId, keyPrefix });
  }

  listApiKeys(accountId: string): Promise<ApiKeyRecord[]> {
    return this.c.read(
      () => this.c.sql(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE account_id = ? ORDER BY created_at, rowid`).all(accountId) as ApiKeyRecord[],
    );
  }
}
