/**
 * The test clock when several instances share one PostgreSQL database: its time lives in the
 * database (`cluster_state.test_clock_now`), so `POST /admin/clock/advance` on any instance moves
 * every instance's clock. The advancing instance updates the row and NOTIFYs the new time; the
 * others follow it on the notification. Jobs are in the shared table, so the advancing instance
 * runs every job that became due, cluster-wide, before it answers (its advance listeners).
 */
import { TestClock } from "../../clock.ts";
import type { PostgresConnection } from "./connection.ts";
import type { PostgresStore } from "./store.ts";

const CLOCK_CHANNEL = "ogsmith_clock";

export class ClusterTestClock extends TestClock {
  private constructor(
    start: number,
    private readonly c: PostgresConnection,
  ) {
    super(start);
  }

  /** The shared clock: the first instance to start sets it to now. */
  static async open(store: PostgresStore): Promise<ClusterTestClock> {
    const c = store.connection;
    const start = await c.run(async (sql) => {
      await sql`insert into cluster_state (key, value) values ('test_clock_now', ${Date.now()}) on conflict do nothing`;
      return (await sql`select value from cluster_state where key = 'test_clock_now'`)[0]!.value as number;
    });
    const clock = new ClusterTestClock(start, c);
    await c.listen(CLOCK_CHANNEL, (payload) => clock.syncTo(Number(payload)));
    return clock;
  }

  /** Moves the shared clock; every instance hears the new time (NOTIFY at commit). */
  protected override async moveBy(ms: number): Promise<number> {
    return this.c.write(async (tx) => {
      const [row] = await tx`update cluster_state set value = value + ${ms} where key = 'test_clock_now' returning value`;
      await tx`select pg_notify(${CLOCK_CHANNEL}, ${String(row!.value)})`;
      return row!.value as number;
    });
  }
}
