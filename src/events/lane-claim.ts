/**
 * Which due jobs one claim takes, decided once for both stores: oldest first, at most
 * `laneRoom(lane)` per lane (one busy endpoint cannot starve the others), up to `limit`.
 * Fairness without a scan per claim: the oldest due jobs are read in a small window; only when
 * that window is all full lanes (one busy endpoint with a backlog) is the table searched past
 * them. `LaneClaim` is the pure decision; `claimJobs` runs it inside the store's transaction
 * (see ../store/tx-steps.ts).
 */
import type { ClaimRequest, ClaimResult } from "../store/ports/jobs.ts";
import type { ClaimCandidate, ClaimTx } from "../store/ports/tx.ts";
import { step, type TxRoutine } from "../store/tx-steps.ts";

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

/**
 * Claims due jobs of `kinds`, oldest `runAt` first (then insertion order), at most
 * `laneRoom(lane)` per lane, up to `limit`; each claimed job's attempts + 1 and lease set.
 * Concurrent claimers never get the same job while its lease runs (PostgreSQL: FOR UPDATE SKIP
 * LOCKED), and leases of instances that are gone are released first.
 */
export function* claimJobs(tx: ClaimTx, request: ClaimRequest): TxRoutine<ClaimResult> {
  yield* step(tx.releaseDeadLeases(request.realNow));
  const lanes = new LaneClaim(request.limit, request.laneRoom);
  const first = yield* step(tx.dueJobs(request, [], lanes.window));
  lanes.offer(first);
  let searchedEmpty = false;
  const full = lanes.searchPast(first, request.searchPastFullLanes);
  if (full) searchedEmpty = lanes.offer(yield* step(tx.dueJobs(request, full, lanes.window))) === 0;
  if (lanes.chosen.length === 0) return { jobs: [], searchedEmpty };
  return { jobs: yield* step(tx.leaseJobs(lanes.chosen, request.realNow + request.leaseMs)), searchedEmpty };
}
