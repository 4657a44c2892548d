/** Dashboard sessions in SQLite (../ports/sessions.ts). */
import type { AccountRecord } from "../ports/accounts.ts";
import type { SessionRecord, SessionsPort } from "../ports/sessions.ts";
import { ACCOUNT, columns, SESSION, unprefixed } from "../records.ts";
import { LEAVES_KEYS, type SqliteConnection } from "./connection.ts";

const SESSION_COLUMNS = columns(SESSION);
/** A live session with its account and the prefix of its key, while that key is unrevoked. */
const FIND_SESSION = `SELECT ${columns(SESSION, { table: "s" })}, ${columns(ACCOUNT, { table: "a", prefix: "a_" })}, k.key_prefix AS keyPrefix
  FROM dashboard_sessions s JOIN accounts a ON a.id = s.account_id JOIN api_keys k ON k.id = s.key_id AND k.revoked_at IS NULL
  WHERE s.token_hash = ?`;

export class SqliteSessions implements SessionsPort {
  constructor(private readonly c: SqliteConnection) {}

  createSession(s: SessionRecord, now: number, maxPerAccount: number): Promise<void> {
    return this.c.write(() => {
      // Expired rows are useless: swept here rather than by a background loop.
      this.c.sql("DELETE FROM dashboard_sessions WHERE expires_at <= ?").run(now);
      this.c
        .sql("INSERT INTO dashboard_sessions (token_hash, id, account_id, key_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)")
        .run(s.tokenHash, s.id, s.accountId, s.keyId, s.createdAt, s.expiresAt);
      this.c
        .sql(
          `DELETE FROM dashboard_sessions WHERE account_id = ?1 AND token_hash NOT IN
             (SELECT token_hash FROM dashboard_sessions WHERE account_id = ?1 ORDER BY created_at DESC, rowid DESC LIMIT ?2)`,
        )
        .run(s.accountId, maxPerAccount);
    }, LEAVES_KEYS);
  }

  touchSession(tokenHash: string, expiresAt: number): Promise<void> {
    return this.c.write(
      () => {
        this.c.sql("UPDATE dashboard_sessions SET expires_at = ? WHERE token_hash = ?").run(expiresAt, tokenHash);
      },
      { single: true, leavesKeys: true },
    );
  }

  findSession(tokenHash: string): Promise<{ session: SessionRecord; account: AccountRecord; keyPrefix: string } | undefined> {
    // Every dashboard request: one join on compiled statement.
    return this.c.read(() => {
      const row = this.c.sql(FIND_SESSION).get(tokenHash) as (SessionRecord & { keyPrefix: string } & Record<string, unknown>) | null;
      if (!row) return undefined;
      return { session: unprefixed(row, SESSION, ""), account: unprefixed(row, ACCOUNT, "a_"), keyPrefix: row.keyPrefix };
    });
  }

  deleteSession(tokenHash: string): Promise<void> {
    return this.c.write(() => {
      this.c.sql("DELETE FROM dashboard_sessions WHERE token_hash = ?").run(tokenHash);
    }, LEAVES_KEYS);
  }

  listSessions(accountId: string): Promise<SessionRecord[]> {
    return this.c.read(
      () => this.c.sql(`SELECT ${SESSION_COLUMNS} FROM dashboard_sessions WHERE account_id = ? ORDER BY created_at, rowid`).all(accountId) as SessionRecord[],
    );
  }
}
