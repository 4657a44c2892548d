/**
 * Dashboard sessions (DESIGN §8). Signing in exchanges the API key for a random token; the
 * browser keeps only that token (in an HttpOnly cookie) and the database only its SHA-256, so
 * neither the key nor a usable token rests anywhere it could be read back. Expiry reads the
 * service clock, like everything else that depends on time.
 */
import { createHash } from "node:crypto";
import { and, eq, isNull, lte } from "drizzle-orm";
import { API_KEY_PATTERN } from "../accounts/keys.ts";
import type { AccountService } from "../accounts/accounts.ts";
import type { Clock } from "../clock.ts";
import type { Db } from "../db/client.ts";
import { accounts, apiKeys, dashboardSessions, type AccountRow } from "../db/schema/index.ts";
import { ApiError, validationError } from "../errors.ts";
import { newId, randomAlphanumeric } from "../ids.ts";

/** Absolute lifetime of a session; signing in again starts a new one. */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
/** `ogs_` + 43 alphanumerics ≈ 256 bits: nothing to guess. */
const TOKEN_PATTERN = /^ogs_[A-Za-z0-9]{43}$/;

export interface DashboardSession {
  id: string;
  account: AccountRow;
  keyId: string;
  keyPrefix: string;
  expiresAt: number;
}

const hashToken = (token: string): string => createHash("sha256").update(token).digest("hex");

export class SessionService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly accounts: AccountService,
  ) {}

  /**
   * Opens a session for the holder of `apiKey`. Canceled and past-due accounts may sign in (the
   * dashboard tells them why they are blocked); an unknown, revoked or malformed key may not.
   */
  signIn(apiKey: unknown): { token: string; session: DashboardSession } {
    const key = typeof apiKey === "string" ? apiKey.trim() : "";
    if (key === "") throw validationError([{ field: "api_key", message: "is required" }]);
    const found = API_KEY_PATTERN.test(key) ? this.accounts.findByKey(key) : undefined;
    if (!found) throw new ApiError("INVALID_API_KEY", "Invalid API key.", [{ field: "api_key", message: "is not a valid API key" }]);

    const now = this.clock.now();
    // Expired rows are useless: sweep them here rather than in a background loop.
    this.db.delete(dashboardSessions).where(lte(dashboardSessions.expiresAt, now)).run();
    const token = `ogs_${randomAlphanumeric(43)}`;
    const id = newId("ses");
    const expiresAt = now + SESSION_TTL_MS;
    this.db
      .insert(dashboardSessions)
      .values({ tokenHash: hashToken(token), id, accountId: found.account.id, keyId: found.keyId, createdAt: now, expiresAt })
      .run();
    return { token, session: { id, account: found.account, keyId: found.keyId, keyPrefix: found.keyPrefix, expiresAt } };
  }

  /** The live session behind a cookie token: unexpired, and its key not replaced since. */
  resolve(token: string | undefined): DashboardSession | undefined {
    if (!token || !TOKEN_PATTERN.test(token)) return undefined;
    const row = this.db
      .select({ session: dashboardSessions, account: accounts, keyPrefix: apiKeys.keyPrefix })
      .from(dashboardSessions)
      .innerJoin(accounts, eq(accounts.id, dashboardSessions.accountId))
      .innerJoin(apiKeys, and(eq(apiKeys.id, dashboardSessions.keyId), isNull(apiKeys.revokedAt)))
      .where(eq(dashboardSessions.tokenHash, hashToken(token)))
      .get();
    if (!row || row.session.expiresAt <= this.clock.now()) return undefined;
    return { id: row.session.id, account: row.account, keyId: row.session.keyId, keyPrefix: row.keyPrefix, expiresAt: row.session.expiresAt };
  }

  /** Ends the session for good: the same cookie never works again. */
  signOut(token: string | undefined): void {
    if (!token) return;
    this.db.delete(dashboardSessions).where(eq(dashboardSessions.tokenHash, hashToken(token))).run();
  }
}
