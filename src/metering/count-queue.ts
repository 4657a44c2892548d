/**
 * Done units (cached images) counted through the store: on PostgreSQL in groups, on SQLite one
 * transaction each.
 *
 * PostgreSQL: a transaction is round trips to the database, and concurrent counts of one account
 * wait for each other on the month's row lock. So a unit that arrives while MAX_IN_FLIGHT count
 * transactions are in flight waits for one of them to commit, then is counted with every other
 * unit that arrived meanwhile in ONE transaction (./counting.ts `countGroups`: exact, as if counted
 * one after the other), its BEGIN pipelined with its first statement. SQLite's transaction is one
 * synchronous in-process write with no round trip to save: each unit is one conditional upsert
 * (`countOne`), as fast as a count gets there.
 *
 * Each caller's promise settles only after the transaction that counted its unit committed, so an
 * answered image is still a counted one; when that transaction fails, every unit in it fails with
 * nothing written.
 */
import type { Store, UsageCounters } from "../store/types.ts";
import { countGroups, countOne, type DoneUnit } from "./counting.ts";

/** Done units counted in one transaction at most (the queue's others wait for the next one). */
const MAX_BATCH = 128;
/**
 * Count transactions run at once: a unit arriving while one is in flight starts the second at
 * once instead of waiting a whole transaction for its turn (the second waits for the month's row
 * lock inside PostgreSQL, where the first's commit releases it at once).
 */
const MAX_IN_FLIGHT = 2;

interface QueuedCount {
  unit: DoneUnit;
  resolve: (after: UsageCounters | undefined) => void;
  reject: (error: unknown) => void;
}

export class CountQueue {
  readonly #queued: QueuedCount[] = [];
  #inFlight = 0;
  /** Transactions that counted done units (for tests and benchmarks). */
  transactions = 0;

  constructor(private readonly store: Store) {}

  /** Counts the unit: the counters after its own increment, or undefined (nothing written) when the quota has no unit left. */
  count(unit: DoneUnit): Promise<UsageCounters | undefined> {
    if (this.store.kind === "sqlite") {
      this.transactions++;
      return this.store.transact((tx) => countOne(tx, unit));
    }
    return new Promise((resolve, reject) => {
      this.#queued.push({ unit, resolve, reject });
      if (this.#inFlight < MAX_IN_FLIGHT) void this.#drain();
    });
  }

  async #drain(): Promise<void> {
    this.#inFlight++;
    while (this.#queued.length > 0) {
      const batch = this.#queued.splice(0, MAX_BATCH);
      const units = batch.map((queued) => queued.unit);
      try {
        this.transactions++;
        const results = await this.store.transact((tx) => countGroups(tx, units), { pipelined: true });
        for (const [i, queued] of batch.entries()) queued.resolve(results[i]);
      } catch (error) {
        for (const queued of batch) queued.reject(error);
      }
    }
    this.#inFlight--;
  }
}
