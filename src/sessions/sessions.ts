/**
 * Dashboard sessions. Signing in exchanges the API key for a random token; the browser keeps
 * only that token (in an HttpOnly cookie) and the store only its SHA-256, so neither the key
 * nor a usable token rests anywhere it could be read back. Expiry reads the service clock,
 * like everything else that depends on time.
 *
 * Bounds: a session ends after SESSION_IDLE_MS without use and SESSION_TTL_MS after sign-in
 * whatever happens; an account keeps at most MAX_SESSIONS_PER_ACCOUNT (signing in once more
 * ends the oldest); sign-in attempts are limited per client and per key (`sign-in-limit.ts`).
 */
import { createHash } from "node:crypto";
import { API_KEY_PATTERN } from "../accounts/keys.ts";
import type { AccountService } from "../accounts/accounts.ts";
import type { Clock } from "../clock.ts";
import { ApiError, validationError } from "../errors.ts";
import { newId, randomAlphanumeric } from "../ids.ts";
import type { AccountRecord, Store } from "../store/types.ts";
import { SignInLimiter } from "./sign-in-limit.ts";

/** Absolute lifetime of a session; signing in again starts a new one. */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
/** A session unused this long ends (each use moves its end, up to the absolute lifetime). */
export const SESSION_IDLE_MS = 30 * 60 * 1000;
/** Sessions one account keeps at most; a sign-in beyond ends the oldest. */
export const MAX_SESSIONS_PER_ACCOUNT = 10;
/** A use moves the stored expiry only when it would move by at least this much: not a write per request. */
const TOUCH_AFTER_MS = 60 * 1000;
/** `ogs_` + 43 alphanumerics ≈ 256 bits: nothing to guess. */
const TOKEN_PATTERN = /^ogs_[A-Za-z0-9]{43}$/;

export interface DashboardSession {
  id: string;
  account: AccountRecord;
  keyId: string;
  keyPrefix: string;
  expiresAt: number;
}

const hashToken = (token: string): string => createHash("sha256").update(token).digest("hex");

export class SessionService {
  private readonly attempts: SignInLimiter;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly accounts: AccountService,
  ) {
    this.attempts = new SignInLimiter(clock);
  }

  /**
   * Opens a session for the holder of `apiKey`. Canceled and past-due accounts may sign in (the
   * dashboard tells them why they are blocked); an unknown, revoked or malformed key may not.
   * `client` names who is trying (the peer address) for the attempt limit.
   */
  async signIn(apiKey: unknown, client = "unknown"): Promise<{ token: string; session: DashboardSession }> {
    const key = typeof apiKey === "string" ? apiKey.trim() : "";
    if (key === "") throw validationError([{ field: "api_key", message: "is required" }]);
    this.attempts.admit(client, hashToken(key));
    const found = API_KEY_PATTERN.test(key) ? await this.accounts.findByKey(key) : undefined;
    if (!found) {
      this.attempts.failed(client);
      throw new ApiError("INVALID_API_KEY", "Invalid API key.", [{ field: "api_key", message: "is not a valid API key" }]);
    }

    const now = this.clock.now();
    const token = `ogs_${randomAlphanumeric(43)}`;
    const id = newId("ses");
    const expiresAt = Math.min(now + SESSION_IDLE_MS, now + SESSION_TTL_MS);
    await this.store.createSession(
      { tokenHash: hashToken(token), id, accountId: found.account.id, keyId: found.keyId, createdAt: now, expiresAt },
      now,
      MAX_SESSIONS_PER_ACCOUNT,
    );
    return { token, session: { id, account: found.account, keyId: found.keyId, keyPrefix: found.keyPrefix, expiresAt } };
  }

  /** The live session behind a cookie token: used within the idle timeout, unexpired, and its key not replaced since. */
  async resolve(token: string | undefined): Promise<DashboardSession | undefined> {
    if (!token || !TOKEN_PATTERN.test(token)) return undefined;
    const tokenHash = hashToken(token);
    const row = await this.store.findSession(tokenHash);
    const now = this.clock.now();
    if (!row || row.session.expiresAt <= now) return undefined;
    // This use moves the idle end, never past the absolute lifetime.
    let expiresAt = row.session.expiresAt;
    const slid = Math.min(now + SESSION_IDLE_MS, row.session.createdAt + SESSION_TTL_MS);
    if (slid - expiresAt >= TOUCH_AFTER_MS) {
      await this.store.touchSession(tokenHash, slid);
      expiresAt = slid;
    }
    return { id: row.session.id, account: row.account, keyId: row.session.keyId, keyPrefix: row.keyPrefix, expiresAt };
  }

  /** Ends the session for good: the same cookie never works again. */
  async signOut(token: string | undefined): Promise<void> {
    if (!token) return;
    await this.store.deleteSession(hashToken(token));
  }
}
