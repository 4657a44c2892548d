/**
 * The API key gate's lookups kept in this process when several instances share Redis, and
 * validated on every request by the round trip the rate limit makes anyway: one Redis script
 * both admits the request and reads the account's version (`acct:<id>` in Redis, moved by every
 * change of the account's keys, plan, status or signing keys). Public URLs' signing keys, which
 * meet no rate limit, are kept under a lease every change waits out (`AccountBoundCache`). So a request whose key is cached costs one
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
  /** Every account's changes together: a version moved by each begin and end, and whether any is in flight. */
  allChanges(): Promise<{ version: string; pending: boolean }>;
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
/**
 * How long an instance may serve signing-key entries without asking Redis after a look at every
 * account's changes (AccountBoundCache's lease), measured from when the look was sent; every
 * change waits this long (plus a margin for clock rates) after its end before it answers.
 */
export const LEASE_MS = 250;
const LEASE_MARGIN_MS = 50;
/** How often the lease is renewed: several times within it, so requests rarely find it expired. */
const RENEW_MS = 80;
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
    // Whether the change committed or not (a failure may follow a commit), it is no longer in flight.
    try {
      await versions.accountChange(accountId, "end");
    } catch (error) {
      onEndLost?.(accountId, error as Error);
      void retryEnd(versions, accountId);
    }
    // Every lease taken before this change began has run out once this wait is over (and every
    // one taken since saw it), so no instance serves a signing-key entry from before it any more.
    await Bun.sleep(LEASE_MS + LEASE_MARGIN_MS);
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
 * kept in process. An entry is served:
 * - without asking Redis while this instance holds a lease: a look at every account's changes
 *   (`allChanges`), sent less than LEASE_MS ago, found none in flight and none since the entry
 *   was read (any change drops every entry). A change waits LEASE_MS after its end before it
 *   answers (`recordChange`), so by then every instance has either looked again and dropped its
 *   entries or let its lease run out;
 * - otherwise after ONE Redis read of the account's version, as the key cache does.
 * So a change of the account or of the record is seen by every instance on its very next request.
 * A Redis reconnection drops everything; Redis down: the store answers, uncached.
 */
export class AccountBoundCache<T> {
  private readonly entries = new LRUCache<string, { accountId: string; value?: T; version?: string; all?: string }>({ max: MAX_KEYS });
  /** `allChanges`' version at the last look, and until when (performance.now()) its lease holds. */
  private allVersion = "";
  private leaseUntil = 0;
  private renewing = false;
  private renewTimer: ReturnType<typeof setInterval> | undefined;
  /** Redis round trips made by `get` (for tests). */
  checks = 0;

  constructor(
    private readonly versions: AccountVersions,
    private readonly load: (id: string) => Promise<T | undefined>,
    private readonly accountOf: (value: T) => string,
    private readonly onEndLost?: (accountId: string, error: Error) => void,
  ) {
    versions.onReconnect(() => {
      this.entries.clear();
      this.leaseUntil = 0;
    });
  }

  /** The value for `id`, or undefined when the store has none. */
  async get(id: string): Promise<T | undefined> {
    this.renewTimer ??= this.startLease();
    const entry = this.entries.get(id);
    if (entry?.value !== undefined && entry.all === this.allVersion && performance.now() < this.leaseUntil) return entry.value;
    // The look at every account's changes this entry will be tied to: read before the store.
    const all = this.allVersion;
    let before: VersionedDecision | undefined;
    if (entry) {
      try {
        this.checks++;
        before = await this.versions.admitVersioned("check", entry.accountId, 0, entry.accountId);
      } catch {
        // Redis unavailable: these requests meet no rate limit, so they need not fail; the store
        // answers exactly (no change can commit meanwhile: its begin would fail), uncached.
        return this.load(id);
      }
      if (entry.value !== undefined && !before.pending && before.version === entry.version) {
        // Current as of this check, which came after the look `all`: the lease may serve it.
        if (entry.all !== all) this.entries.set(id, { ...entry, all });
        return entry.value;
      }
    }
    const value = await this.load(id);
    if (value === undefined) {
      this.entries.delete(id);
      return undefined;
    }
    const accountId = this.accountOf(value);
    const trusted = before !== undefined && !before.pending && entry!.accountId === accountId;
    this.entries.set(id, trusted ? { accountId, value, version: before!.version, all } : { accountId });
    return value;
  }

  /** See `recordChange`. */
  changing<R>(accountId: string, change: () => Promise<R>): Promise<R> {
    return recordChange(this.versions, accountId, change, this.onEndLost);
  }

  /** Stops renewing the lease. */
  close(): void {
    if (this.renewTimer) clearInterval(this.renewTimer);
    this.leaseUntil = 0;
  }

  /** Entries kept now (for tests). */
  get size(): number {
    return this.entries.size;
  }

  private startLease(): ReturnType<typeof setInterval> {
    void this.renew();
    const timer = setInterval(() => void this.renew(), RENEW_MS);
    timer.unref?.();
    return timer;
  }

  private async renew(): Promise<void> {
    if (this.renewing) return;
    this.renewing = true;
    const sent = performance.now();
    try {
      const all = await this.versions.allChanges();
      if (all.version !== this.allVersion) {
        this.entries.clear();
        this.allVersion = all.version;
      }
      this.leaseUntil = all.pending ? 0 : sent + LEASE_MS;
    } catch {
      this.leaseUntil = 0;
    } finally {
      this.renewing = false;
    }
  }
}
