/**
 * Renders that were killed (deadline, memory) or crashed their process, remembered for a while
 * in this instance, so that asking again costs nothing and one account cannot keep taking
 * processes down:
 *
 * - the content address of such a render is refused at once for `windowMs` (10 minutes);
 * - an account with two such renders within `windowMs` gets one render process at a time for
 *   the `windowMs` after the second (each further one extends it).
 *
 * Both lists are bounded; the entries recorded longest ago go first.
 */
import { LRUCache } from "lru-cache";

export interface RepeatOffendersOptions {
  now: () => number;
  windowMs?: number;
  maxEntries?: number;
}

export class RepeatOffenders {
  readonly windowMs: number;
  private readonly now: () => number;
  /** Content address → when it was killed. */
  private readonly addresses: LRUCache<string, number>;
  /** Account → when its kills happened (the last two are enough) and until when it is held to one process. */
  private readonly accounts: LRUCache<string, { kills: number[]; restrictedUntil: number }>;

  constructor({ now, windowMs = 10 * 60_000, maxEntries = 10_000 }: RepeatOffendersOptions) {
    this.now = now;
    this.windowMs = windowMs;
    // Reads peek: only recording an entry makes it the newest.
    this.addresses = new LRUCache({ max: maxEntries });
    this.accounts = new LRUCache({ max: maxEntries });
  }

  record(address: string | undefined, account: string | undefined): void {
    const at = this.now();
    if (address !== undefined) this.addresses.set(address, at);
    if (account === undefined) return;
    const entry = this.accounts.peek(account) ?? { kills: [], restrictedUntil: 0 };
    entry.kills = [...entry.kills.filter((t) => at - t < this.windowMs), at].slice(-2);
    if (entry.kills.length >= 2) entry.restrictedUntil = at + this.windowMs;
    this.accounts.set(account, entry);
  }

  /** Milliseconds until this address may be drawn again, or 0. */
  refusedFor(address: string | undefined): number {
    if (address === undefined) return 0;
    const at = this.addresses.peek(address);
    if (at === undefined) return 0;
    const left = at + this.windowMs - this.now();
    if (left > 0) return left;
    this.addresses.delete(address);
    return 0;
  }

  /** Whether this account is held to one render process now. */
  restricted(account: string | undefined): boolean {
    if (account === undefined) return false;
    const entry = this.accounts.peek(account);
    return entry !== undefined && entry.restrictedUntil > this.now();
  }
}
