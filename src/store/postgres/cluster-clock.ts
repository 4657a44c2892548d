/**
 * The test clock when several instances share one PostgreSQL database: its time lives in the
 * database (`cluster_state.test_clock_now`), so `POST /admin/clock/advance` on any instance moves
 * every instance's clock. The advancing instance updates the row and NOTIFYs the new time; the
 * others follow it on the notification. Jobs are in the shared table, so the advancing instance
 * runs every job that became due, cluster-wide, before it answers (its advance listeners).
 */
import { TestClock } from "../../clock.ts";
import type { PostgresStore } from "./store.ts";

export class ClusterTestClock extends TestClock {
  private constructor(
    start: number,
    private readonly store: PostgresStore,
  ) {
    super(start);
  }

  static async open(store: PostgresStore): Promise<ClusterTestClock> {
    const clock = new ClusterTestClock(await store.clusterClock(Date.now()), store);
    await store.onClusterClock((now) => clock.syncTo(now));
    return clock;
  }

  protected override async moveBy(ms: number): Promise<number> {
    return this.store.advanceClusterClock(ms);
  }
}
