/**
 * Signing keys for public image URLs (per account, at most 5): create (the secret is returned
 * this once), list, delete, and resolve a URL's key id. Resolution reads the store on every
 * request (with Redis, several instances: keeps it in process under a lease that every change
 * waits out, src/accounts/versions.ts), so a deleted key's URLs stop at once, on every instance.
 */
import type { AccountBoundCache } from "../accounts/versions.ts";
import type { Clock } from "../clock.ts";
import { ApiError } from "../errors.ts";
import type { Store, SigningKeyOwner, SigningKeyRecord } from "../store/types.ts";
import { newSigningKeyId, newSigningSecret, SIGNING_KEY_ID_PATTERN } from "./index.ts";

export const MAX_SIGNING_KEYS_PER_ACCOUNT = 5;

/** `last_used_at` is written at most this often per key, so a crawler's hits do not each write. */
const TOUCH_EVERY_MS = 60_000;

export interface SigningKeyView {
  id: string;
  created_at: string;
  last_used_at: string | null;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export const toSigningKeyView = (key: SigningKeyRecord): SigningKeyView => ({ id: key.id, created_at: iso(key.createdAt)!, last_used_at: iso(key.lastUsedAt) });

export class SigningKeyService {
  /** Key id → clock time of the last `last_used_at` write this process made. */
  private readonly touched = new Map<string, number>();

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    /** With several instances on Redis: resolutions kept per instance, validated by the account's version. */
    private readonly cache?: AccountBoundCache<SigningKeyOwner>,
    /** Without the cache: a check before each deletion that refuses it where caches elsewhere would miss it. */
    private readonly beforeUnannouncedChange?: () => Promise<void>,
  ) {}

  /** The new key with its secret: the only time the secret leaves the server. */
  async create(accountId: string): Promise<{ id: string; secret: string; created_at: string }> {
    const key: SigningKeyRecord = { id: newSigningKeyId(), accountId, secret: newSigningSecret(), createdAt: this.clock.now(), lastUsedAt: null };
    const created = await this.store.createSigningKey(key, MAX_SIGNING_KEYS_PER_ACCOUNT);
    if (created === "limit_reached")
      throw new ApiError("CONFLICT", `An account can have at most ${MAX_SIGNING_KEYS_PER_ACCOUNT} signing keys. Delete one first.`);
    return { id: key.id, secret: key.secret, created_at: iso(key.createdAt)! };
  }

  async list(accountId: string): Promise<SigningKeyView[]> {
    return (await this.store.listSigningKeys(accountId)).map(toSigningKeyView);
  }

  async delete(accountId: string, id: string): Promise<void> {
    if (!SIGNING_KEY_ID_PATTERN.test(id)) throw notFound(id);
    const remove = () => this.store.deleteSigningKey(accountId, id);
    if (!this.cache) await this.beforeUnannouncedChange?.();
    const deleted = this.cache ? await this.cache.changing(accountId, remove) : await remove();
    if (!deleted) throw notFound(id);
    this.touched.delete(id);
  }

  /** The account's key with this id (for signing on its behalf); NOT_FOUND for another account's. */
  async get(accountId: string, id: string): Promise<SigningKeyRecord> {
    const found = SIGNING_KEY_ID_PATTERN.test(id) ? await this.store.findSigningKey(id) : undefined;
    if (!found || found.key.accountId !== accountId) throw notFound(id);
    return found.key;
  }

  /** A URL's key id → key and account; undefined for a malformed or unknown id. */
  resolve(id: string): Promise<SigningKeyOwner | undefined> {
    if (!SIGNING_KEY_ID_PATTERN.test(id)) return Promise.resolve(undefined);
    return this.cache ? this.cache.get(id) : this.store.findSigningKey(id);
  }

  /**
   * The rate-limit window a render through a public URL uses: the account's active API key's, so
   * API calls and public renders together stay within the plan's rate. Read only on the rare path
   * (an image not yet counted this month).
   */
  async rateLimitKeyOf(accountId: string): Promise<string> {
    const active = (await this.store.listApiKeys(accountId)).filter((key) => key.revokedAt === null).at(-1);
    return active?.id ?? `account:${accountId}`;
  }

  /** Records that a URL of this key was accepted; coarse and never in the request's way. */
  touch(id: string): void {
    const now = this.clock.now();
    const last = this.touched.get(id);
    if (last !== undefined && now - last < TOUCH_EVERY_MS) return;
    this.touched.set(id, now);
    this.store.touchSigningKey(id, now).catch(() => this.touched.delete(id));
  }
}

const notFound = (id: string) => new ApiError("NOT_FOUND", `No signing key ${id} in this account.`);
