/**
 * Dashboard sessions: the store port of src/sessions.
 * The rules of the Store (../types.ts) hold for every method: each is atomic, operational faults
 * are thrown as StoreUnavailableError, times are epoch ms, records are plain objects.
 */
import type { AccountRecord } from "./accounts.ts";

export interface SessionRecord {
  /** Lowercase hex SHA-256 of the cookie token (the token itself is never stored). */
  tokenHash: string;
  /** `ses_` + random id, safe to log. */
  id: string;
  accountId: string;
  /** The key the session was opened with; replacing it ends the session. */
  keyId: string;
  createdAt: number;
  /**
   * Service-clock ms after which the session is refused: the idle timeout from its last use,
   * never past its absolute lifetime from `createdAt`.
   */
  expiresAt: number;
}

/** Dashboard sessions. */
export interface SessionsPort {
  /**
   * Deletes sessions expired at `now`, inserts this one, then ends the account's oldest sessions
   * beyond `maxPerAccount` (this one included in the count), in one transaction.
   */
  createSession(session: SessionRecord, now: number, maxPerAccount: number): Promise<void>;
  /** Moves a live session's expiry (the idle timeout slides with use); nothing when it is gone. */
  touchSession(tokenHash: string, expiresAt: number): Promise<void>;
  /** The session with its account and key prefix, only while its key is unrevoked (expiry is the caller's check). */
  findSession(tokenHash: string): Promise<{ session: SessionRecord; account: AccountRecord; keyPrefix: string } | undefined>;
  deleteSession(tokenHash: string): Promise<void>;
  /** For operators and tests. */
  listSessions(accountId: string): Promise<SessionRecord[]>;
}
