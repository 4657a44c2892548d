/**
 * The API key gate's lookups kept in this process when several instances share Redis, and
 * validated on every request by the round trip the rate limit makes anyway: one Redis script
 * both admits the request and reads the account's version (`acct:<id>` in Redis, moved by every
 * change of the account's keys, plan, status or signing keys). Public URLs' signing keys are
 * kept the same way (`AccountBoundCache`), checked by one read of that version. So a request whose key is cached costs one
 * Redis round trip and no PostgreSQL query, and a key revoked or an account changed on any
 * instance is seen by every instance on its very next request.
 *
 * Why it stays exact (docs/cluster.md):
 * - A change records its *begin* in Redis before its PostgreSQL commit and its *end* after it;
 *   both move the version, and while a change is in flight (`pending`) nobody caches or trusts
 *   a cached entry. A begin that fails fails the change (503); an end that fails is retried in
 *   the background, and until it lands the account is simply read from PostgreSQL each time.
 * - An entry is cached with the version read *before* its PostgreSQL read, so any change that
 *   commits after that read moves the version away from the entry's.
 * - Redis reconnecting (a restart that may have lost or rolled back the versions) drops every
 *   entry; a hash Redis lost is recreated with a new random epoch, so no old version matches.
 */
import { LRUCache } from "lru-cache";

import type { RateDecision } from "../metering/rate-limit.ts";
import type { VersionedDecision, VersionedMode } from "../metering/redis-rate-limit.ts";
import type { AccountRecord, KeyOwner } from "../store/types.ts";
import { limitsOf } from "./plans.ts";

/** The Redis side: the rate limit with the account's version, and the change records. */
export interface AccountVersions {
  admitVersioned(mode: VersionedMode, rateKey: string, limit: number, accountId: string, expected?: string): Promise<VersionedDecision>;
  accountChange(accountId: string, phase: "begin" | "end"): Promise<void>;
  onReconnect(listener: () => void): void;
}

/** An accepted key with the rate decision already taken for this request. */
export interface AdmittedKey extends KeyOwner {
  decision?: RateDecision;
}

interface Entry {
  /** A key's account never changes, so this is kept even when the rest is not trusted. */
  accountId: string;
  /** The owner as read from the store, valid while the account's version is `version`. */
  owner?: KeyOwner;
  version?: string;
}

/** Keys of this many recent clients are kept; a key not kept costs one PostgreSQL read more. */
const MAX_KEYS = 10_000;
/** How often a failed end-of-change record is tried again (real time). */
const END_RETRY_MS = 250;
const END_TRIES = 240;

const rateOf = (account: Pick<AccountRecord, "plan" | "customQuota" | "customRequestsPerSecond">) => limitsOf(account).requestsPerSecond;

export class KeyCache {
  private readonly entries = new LRUCache<string, Entry>({ max: MAX_KEYS });

  constructor(
    private readonly versions: AccountVersions,
    private readonly load: (keyHash: string) => Promise<KeyOwner | undefined>,
    private readonly onEndLost?: (accountId: string, error: Error) => void,
  ) {
    versions.onReconnect(() => this.entries.clear());
  }

  /**
   * The owner of the key with hash `keyHash` and this request's rate decision, or undefined
   * when the key is unknown or revoked. One Redis round trip when the entry is current.
   */
  async admit(keyHash: string): Promise<AdmittedKey | undefined> {
    const entry = this.entries.get(keyHash);
    let before: VersionedDecision | undefined;
    if (entry?.owner) {
      const owner = entry.owner;
      before = await this.versions.admitVersioned("if", owner.keyId, rateOf(owner.account), entry.accountId, entry.version);
      if (before.decision) return { ...owner, decision: before.decision };
    } else if (entry) {
      before = await this.versions.admitVersioned("check", entry.accountId, 0, entry.accountId);
    }
    const owner = await this.load(keyHash);
    if (!owner) {
      this.entries.delete(keyHash);
      return undefined;
    }
    const after = await this.versions.admitVersioned("always", owner.keyId, rateOf(owner.account), owner.account.id);
    // Trusted only when the version read before the store read still holds and no change was in
    // flight at either read; a key seen for the first time has no earlier read, so it is kept
    // untrusted and its next request makes the read that validates it.
    const trusted = before !== undefined && !before.pending && !after.pending && before.version === after.version;
    this.entries.set(keyHash, trusted ? { accountId: owner.account.id, owner, version: before!.version } : { accountId: owner.account.id });
    return { ...owner, decision: after.decision };
  }

  /** See `recordChange`. */
  changing<T>(accountId: string, change: () => Promise<T>): Promise<T> {
    return recordChange(this.versions, accountId, change, this.onEndLost);
  }

  /** Entries kept now (for tests). */
  get size(): number {
    return this.entries.size;
  }
}

/**
 * Runs a change of an account's keys, limits or signing keys between its begin and end records
 * (see the file's comment). The begin must land: without it the change does not run (503). An
 * end Redis does not take now is tried again in the background; meanwhile `pending` keeps every
 * instance reading the account from PostgreSQL, which is exact, only slower.
 */
export async function recordChange<T>(
  versions: Pick<AccountVersions, "accountChange">,
  accountId: string,
  change: () => Promise<T>,
  onEndLost?: (accountId: string, error: Error) => void,
): Promise<T> {
  await versions.accountChange(accountId, "begin");
  try {
    return await change();
  } finally {
    // Whether the change committed or not, it is no longer in flight.
    try {
      await versions.accountChange(accountId, "end");
    } catch (error) {
      onEndLost?.(accountId, error as Error);
      void retryEnd(versions, accountId);
    }
  }
}

async function retryEnd(versions: Pick<AccountVersions, "accountChange">, accountId: string): Promise<void> {
  for (let tries = 1; tries <= END_TRIES; tries++) {
    await Bun.sleep(END_RETRY_MS);
    try {
      await versions.accountChange(accountId, "end");
      return;
    } catch {}
  }
}

/**
 * Lookups that belong to one account (a signing key and its account, for public image URLs),
 * kept in process and validated by ONE Redis read of the account's version instead of a
 * PostgreSQL read: a change of the account or of the looked-up record (recorded with
 * `recordChange`) is seen by every instance on its very next request. The same rules as the key
 * cache: trusted only when the version read before the store read holds and no change was in
 * flight; a Redis reconnection drops everything.
 */
export class AccountBoundCache<T> {
  private readonly entries = new LRUCache<string, { accountId: string; value?: T; version?: string }>({ max: MAX_KEYS });

  constructor(
    private readonly versions: AccountVersions,
    private readonly load: (id: string) => Promise<T | undefined>,
    private readonly accountOf: (value: T) => string,
    private readonly onEndLost?: (accountId: string, error: Error) => void,
  ) {
    versions.onReconnect(() => this.entries.clear());
  }

  /** The value for `id`, or undefined when the store has none. */
  async get(id: string): Promise<T | undefined> {
    const entry = this.entries.get(id);
    let before: VersionedDecision | undefined;
    if (entry) {
      try {
        before = await this.versions.admitVersioned("check", entry.accountId, 0, entry.accountId);
      } catch {
        // Redis unavailable: these requests meet no rate limit, so they need not fail; the store
        // answers exactly (no change can commit meanwhile: its begin would fail), uncached.
        return this.load(id);
      }
      if (entry.value !== undefined && !before.pending && before.version === entry.version) return entry.value;
    }
    const value = await this.load(id);
    if (value === undefined) {
      this.entries.delete(id);
      return undefined;
    }
    const accountId = this.accountOf(value);
    const trusted = before !== undefined && !before.pending && entry!.accountId === accountId;
    this.entries.set(id, trusted ? { accountId, value, version: before!.version } : { accountId });
    return value;
  }

  /** See `recordChange`. */
  changing<R>(accountId: string, change: () => Promise<R>): Promise<R> {
    return recordChange(this.versions, accountId, change, this.onEndLost);
  }

  /** Entries kept now (for tests). */
  get size(): number {
    return this.entries.size;
  }
}
