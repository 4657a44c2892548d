/**
 * The API key gate's lookups kept in this process when several instances share Redis, and
 * validated on every request by the round trip the rate limit makes anyway: one Redis script
 * both admits the request and reads the account's version (`acct:<id>` in Redis, moved by every
 * change of the account's keys, plan, status or signing keys; src/accounts/versions.ts). So a
 * request whose key is cached costs one Redis round trip and no PostgreSQL query, and a key
 * revoked or an account changed on any instance is seen by every instance on its very next
 * request.
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

import { limitsOf } from "../accounts/plans.ts";
import { type AccountVersions, MAX_ENTRIES, recordChange, type VersionedDecision } from "../accounts/versions.ts";
import type { AccountRecord, KeyOwner } from "../store/types.ts";
import type { RateDecision } from "./rate-limit.ts";

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

const rateOf = (account: Pick<AccountRecord, "plan" | "customQuota" | "customRequestsPerSecond">) => limitsOf(account).requestsPerSecond;

export class KeyCache {
  private readonly entries = new LRUCache<string, Entry>({ max: MAX_ENTRIES });

  constructor(
    private readonly versions: AccountVersions<RateDecision>,
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
    let before: VersionedDecision<RateDecision> | undefined;
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
