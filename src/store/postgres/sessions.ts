/** Dashboard sessions in PostgreSQL (../ports/sessions.ts). */
import type { AccountRecord } from "../ports/accounts.ts";
import type { SessionRecord, SessionsPort } from "../ports/sessions.ts";
import { ACCOUNT, columns, SESSION, unprefixed } from "../records.ts";
import type { PostgresConnection } from "./connection.ts";

const SESSION_COLUMNS = columns(SESSION);
const FOUND_COLUMNS = `${columns(SESSION, { table: "s" })}, ${columns(ACCOUNT, { table: "a", prefix: "a_" })}, k.key_prefix as "keyPrefix"`;

export class PostgresSessions implements SessionsPort {
  constructor(private readonly c: PostgresConnection) {}

  createSession(s: SessionRecord, now: number, maxPerAccount: number): Promise<void> {
    return this.c.write(async (tx) => {
      // The account row is locked first so that concurrent sign-ins count one another.
      await tx`select 1 from accounts where id = ${s.accountId} for update`;
      await tx`delete from dashboard_sessions where expires_at <= ${now}`;
      await tx`insert into dashboard_sessions (token_hash, id, account_id, key_id, created_at, expires_at)
        values (${s.tokenHash}, ${s.id}, ${s.accountId}, ${s.keyId}, ${s.createdAt}, ${s.expiresAt})`;
      await tx`delete from dashboard_sessions where account_id = ${s.accountId} and token_hash not in
        (select token_hash from dashboard_sessions where account_id = ${s.accountId} order by created_at desc, id desc limit ${maxPerAccount})`;
    });
  }

  touchSession(tokenHash: string, expiresAt: number): Promise<void> {
    return this.c.run(async (sql) => {
      await sql`update dashboard_sessions set expires_at = ${expiresAt} where token_hash = ${tokenHash}`;
    });
  }

  findSession(tokenHash: string): Promise<{ session: SessionRecord; account: AccountRecord; keyPrefix: string } | undefined> {
    return this.c.run(async (sql) => {
      const [row] = await sql`select ${sql.unsafe(FOUND_COLUMNS)}
        from dashboard_sessions s join accounts a on a.id = s.account_id join api_keys k on k.id = s.key_id and k.revoked_at is null
        where s.token_hash = ${tokenHash}`;
      if (!row) return undefined;
      return {
        session: unprefixed<SessionRecord>(row, SESSION, ""),
        account: unprefixed<AccountRecord>(row, ACCOUNT, "a_"),
        keyPrefix: row.keyPrefix as string,
      };
    });
  }

  deleteSession(tokenHash: string): Promise<void> {
    return this.c.run(async (sql) => {
      await sql`delete from dashboard_sessions where token_hash = ${tokenHash}`;
    });
  }

  listSessions(accountId: string): Promise<SessionRecord[]> {
    return this.c.run(
      async (sql) =>
        (await sql`select ${sql.unsafe(SESSION_COLUMNS)} from dashboard_sessions where account_id = ${accountId} order by created_at, id`) as unknown as SessionRecord[],
    );
  }
}
