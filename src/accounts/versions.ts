/**
 * What lets several instances keep account-bound lookups in memory and still see every change of
 * an account on the very next request: each account's version in Redis (moved before and after
 * every change, `recordChange`), read on the round trip the API's rate limit makes anyway (the
 * key cache, src/metering/key-cache.ts) or, for public URLs' signing keys, which meet no rate
 * limit, a lease every change waits out (`AccountBoundCache`). docs/cluster.md says why each is
 * exact.
 */
import { LRUCache } from "lru-cache";

/** `check`: read the account's version only; `if`: admit only while it is `expected` and no change is in flight; `always`: admit. */
export type VersionedMode = "check" | "if" | "always";

/** What the versioned rate-limit script answers: the rate decision (absent when it admitted nothing) and the account's change state. */
export interface VersionedDecision<D> {
  decision?: D;
  /** The account's version (changes whenever a change of the account begins or ends). */
  version: string;
  /** Whether a change of the account is in flight (begun, its end not yet recorded). */
  pending: boolean;
}

/** The Redis side: the rate limit with the account's version (`D`: its rate decision), and the change records. */
export interface AccountVersions<D = unknown> {
  admitVersioned(mode: VersionedMode, rateKey: string, limit: number, accountId: string, expected?: string): Promise<VersionedDecision<D>>;
  accountChange(accountId: string, phase: "begin" | "end"): Promise<void>;
  /** Every account's changes together: a version moved by each begin and end, and whether any is in flight. */
  allChanges(): Promise<{ version: string; pending: boolean }>;
  onReconnect(listener: () => void): void;
}

/** Entries of this many recent keys are kept; one not kept costs one PostgreSQL read more. */
export const MAX_ENTRIES = 10_000;

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
  private readonly entries = new LRUCache<string, { accountId: string; value?: T; version?: string; all?: string }>({ max: MAX_ENTRIES });
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
    let before: VersionedDecision<unknown> | undefined;
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
