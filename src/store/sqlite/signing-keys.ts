/** Signing keys for public image URLs in SQLite (../ports/signing-keys.ts). */
import type { AccountRecord } from "../ports/accounts.ts";
import type { SigningKeyOwner, SigningKeyRecord, SigningKeysPort } from "../ports/signing-keys.ts";
import { ACCOUNT, columns, SIGNING_KEY } from "../records.ts";
import type { SqliteConnection } from "./connection.ts";

const KEY_COLUMNS = columns(SIGNING_KEY);
const ACCOUNT_COLUMNS = columns(ACCOUNT);

export class SqliteSigningKeys implements SigningKeysPort {
  /** Owners of signing keys recently presented, by key id (see SqliteConnection.remembered). */
  readonly #owners: Map<string, SigningKeyOwner>;

  constructor(private readonly c: SqliteConnection) {
    this.#owners = c.rememberer();
  }

  createSigningKey(key: SigningKeyRecord, maxPerAccount: number): Promise<SigningKeyRecord | "limit_reached"> {
    return this.c.write(() => {
      const { n } = this.c.sql("SELECT count(*) AS n FROM signing_keys WHERE account_id = ?").get(key.accountId) as { n: number };
      if (n >= maxPerAccount) return "limit_reached" as const;
      return this.c
        .sql(`INSERT INTO signing_keys (id, account_id, secret, created_at, last_used_at) VALUES (?, ?, ?, ?, ?) RETURNING ${KEY_COLUMNS}`)
        .get(key.id, key.accountId, key.secret, key.createdAt, key.lastUsedAt) as SigningKeyRecord;
    });
  }

  listSigningKeys(accountId: string): Promise<SigningKeyRecord[]> {
    return this.c.read(
      () => this.c.sql(`SELECT ${KEY_COLUMNS} FROM signing_keys WHERE account_id = ? ORDER BY created_at, rowid`).all(accountId) as SigningKeyRecord[],
    );
  }

  deleteSigningKey(accountId: string, id: string): Promise<boolean> {
    return this.c.write(() => this.c.sql("DELETE FROM signing_keys WHERE id = ? AND account_id = ?").run(id, accountId).changes > 0);
  }

  findSigningKey(id: string): Promise<SigningKeyOwner | undefined> {
    // The public hot path: two primary-key reads on compiled statements, which measured about
    // twice as fast as the equivalent JOIN; remembered like API key owners.
    return this.c.remembered(this.#owners, id, () => {
      const key = this.c.sql(`SELECT ${KEY_COLUMNS} FROM signing_keys WHERE id = ?`).get(id) as SigningKeyRecord | null;
      if (!key) return undefined;
      const account = this.c.sql(`SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE id = ?`).get(key.accountId) as AccountRecord | null;
      // Frozen: the same object may answer many requests.
      return account ? Object.freeze({ key: Object.freeze(key), account: Object.freeze(account) }) : undefined;
    });
  }

  touchSigningKey(id: string, now: number): Promise<void> {
    return this.c.write(() => {
      this.c.sql("UPDATE signing_keys SET last_used_at = ? WHERE id = ?").run(now, id);
    });
  }
}
