/**
 * Which due jobs one claim takes, decided once for both stores: oldest first, at most
 * `laneRoom(lane)` per lane (one busy endpoint cannot starve the others), up to `limit`. Pure and
 * synchronous: a store reads the oldest due candidates in a window of `window` rows, offers them
 * here, reads past the lanes `searchPast` names when it names any, and stamps the chosen ids.
 */

/** A due job as the claim query reads it, in run order (run time, then insertion order). */
export interface ClaimCandidate {
  id: string;
  lane: string;
}

export class LaneClaim {
  /** How many of the oldest due jobs a store reads at first (and past the full lanes). */
  readonly window: number;
  /** The chosen ids, in run order. */
  readonly chosen: string[] = [];
  private readonly taken = new Map<string, number>();

  constructor(
    private readonly limit: number,
    private readonly laneRoom: (lane: string) => number,
  ) {
    this.window = limit * 2 + 16;
  }

  /** Takes what the lanes' room and the limit allow from `candidates`; returns how many. */
  offer(candidates: readonly ClaimCandidate[]): number {
    const before = this.chosen.length;
    for (const candidate of candidates) {
      if (this.chosen.length >= this.limit) break;
      const already = this.taken.get(candidate.lane) ?? 0;
      if (already >= this.laneRoom(candidate.lane)) continue;
      this.taken.set(candidate.lane, already + 1);
      this.chosen.push(candidate.id);
    }
    return this.chosen.length - before;
  }

  /**
   * After offering the first window: the lanes to leave out of a second read past them, or
   * undefined when none is due — the claim is full, the window held every due job, or the caller
   * did not ask (scanning past a full window on every claim would cost a search per tick).
   */
  searchPast(first: readonly ClaimCandidate[], searchPastFullLanes: boolean | undefined): string[] | undefined {
    if (this.chosen.length >= this.limit || first.length < this.window || !searchPastFullLanes) return undefined;
    return [...new Set(first.map((c) => c.lane))].filter((lane) => (this.taken.get(lane) ?? 0) >= this.laneRoom(lane));
  }
}
