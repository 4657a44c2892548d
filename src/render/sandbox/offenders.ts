/**
 * Renders that were killed (deadline, memory) or crashed their process, remembered for a while
 * in this instance, so that asking again costs nothing and one account cannot keep taking
 * processes down:
 *
 * - the content address of such a render is refused at once for `windowMs` (10 minutes);
 * - an account with two such renders within `windowMs` gets one render process at a time for
 *   the `windowMs` after the second (each further one extends it).
 *
 * Both lists are bounded; the oldest entries go first.
 */
export interface RepeatOffendersOptions {
  now: () => number;
  windowMs?: number;
  maxEntries?: number;
}

export class RepeatOffenders {
  readonly windowMs: number;
  private readonly now: () => number;
  private readonly maxEntries: number;
  /** Content address → when it was killed. */
  private readonly addresses = new Map<string, number>();
  /** Account → when its kills happened (the last two are enough) and until when it is held to one process. */
  private readonly accounts = new Map<string, { kills: number[]; restrictedUntil: number }>();

  constructor({ now, windowMs = 10 * 60_000, maxEntries = 10_000 }: RepeatOffendersOptions) {
    this.now = now;
    this.windowMs = windowMs;
    this.maxEntries = maxEntries;
  }

  record(address: string | undefined, account: string | undefined): void {
    const at = this.now();
    if (address !== undefined) remember(this.addresses, address, at, this.maxEntries);
    if (account === undefined) return;
    const entry = this.accounts.get(account) ?? { kills: [], restrictedUntil: 0 };
    entry.kills = [...entry.kills.filter((t) => at - t < this.windowMs), at].slice(-2);
    if (entry.kills.length >= 2) entry.restrictedUntil = at + this.windowMs;
    remember(this.accounts, account, entry, this.maxEntries);
  }

  /** Milliseconds until this address may be drawn again, or 0. */
  refusedFor(address: string | undefined): number {
    if (address === undefined) return 0;
    const at = this.addresses.get(address);
    if (at === undefined) return 0;
    const left = at + this.windowMs - this.now();
    if (left > 0) return left;
    this.addresses.delete(address);
    return 0;
  }

  /** Whether this account is held to one render process now. */
  restricted(account: string | undefined): boolean {
    if (account === undefined) return false;
    const entry = this.accounts.get(account);
    return entry !== undefined && entry.restrictedUntil > this.now();
  }
}

function remember<V>(map: Map<string, V>, key: string, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > max) map.delete(map.keys().next().value!);
}
