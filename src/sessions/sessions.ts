/**
 * Dashboard sessions. Signing in exchanges the API key for a random token; the browser keeps
 * only that token (in an HttpOnly cookie) and the store only its SHA-256, so neither the key
 * nor a usable token rests anywhere it could be read back. Expiry reads the service clock,
 * like everything else that depends on time.
 */
import { createHash } from "node:crypto";
import { API_KEY_PATTERN } from "../accounts/keys.ts";
import type { AccountService } from "../accounts/accounts.ts";
import type { Clock } from "../clock.ts";
import { ApiError, validationError } from "../errors.ts";
import { newId, randomAlphanumeric } from "../ids.ts";
import type { AccountRecord, Store } from "../store/types.ts";

/** Absolute lifetime of a session; signing in again starts a new one. */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
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
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly accounts: AccountService,
  ) {}

  /**
   * Opens a session for the holder of `apiKey`. Canceled and past-due accounts may sign in (the
   * dashboard tells them why they are blocked); an unknown, revoked or malformed key may not.
   */
  async signIn(apiKey: unknown): Promise<{ token: string; session: DashboardSession }> {
    const key = typeof apiKey === "string" ? apiKey.trim() : "";
    if (key === "") throw validationError([{ field: "api_key", message: "is required" }]);
    const found = API_KEY_PATTERN.test(key) ? await this.accounts.findByKey(key) : undefined;
    if (!found) throw new ApiError("INVALID_API_KEY", "Invalid API key.", [{ field: "api_key", message: "is not a valid API key" }]);

    const now = this.clock.now();
    const token = `ogs_${randomAlphanumeric(43)}`;
    const id = newId("ses");
    const expiresAt = now + SESSION_TTL_MS;
    await this.store.createSession({ tokenHash: hashToken(token), id, accountId: found.account.id, keyId: found.keyId, createdAt: now, expiresAt }, now);
    return { token, session: { id, account: found.account, keyId: found.keyId, keyPrefix: found.keyPrefix, expiresAt } };
  }

  /** The live session behind a cookie token: unexpired, and its key not replaced since. */
  async resolve(token: string | undefined): Promise<DashboardSession | undefined> {
    if (!token || !TOKEN_PATTERN.test(token)) return undefined;
    const row = await this.store.findSession(hashToken(token));
    if (!row || row.session.expiresAt <= this.clock.now()) return undefined;
    return { id: row.session.id, account: row.account, keyId: row.session.keyId, keyPrefix: row.keyPrefix, expiresAt: row.session.expiresAt };
  }

  /** Ends the session for good: the same cookie never works again. */
  async signOut(token: string | undefined): Promise<void> {
    if (!token) return;
    await this.store.deleteSession(hashToken(token));
  }
}
