/**
 * The outbox and the job table in PostgreSQL (../ports/jobs.ts). Recording, claiming and settling
 * are the core's routines (src/events), run through `transact` on the transaction handle
 * (./tx.ts). Jobs are claimed with `FOR UPDATE SKIP LOCKED` plus a lease (`claimed_until`, real
 * time, and `claimed_by`, the instance): two instances never claim the same job, and a dead
 * instance's leases are released by a live one's claim within 2 s (the handle's
 * `releaseDeadLeases`, ./liveness.ts). Every transaction that makes a job due sends `NOTIFY
 * ogsmith_jobs` (delivered at commit), so whichever instance has room picks it up.
 */
import type { EventRecord, JobRecord, JobsPort, JobStatus, NewJob } from "../ports/jobs.ts";
import { columns, JOB, toJob } from "../records.ts";
import type { PostgresConnection } from "./connection.ts";
import { releaseDeadLeases } from "./liveness.ts";
import { PostgresTx } from "./tx.ts";

const JOB_COLUMNS = columns(JOB);

export class PostgresJobs implements JobsPort {
  constructor(private readonly c: PostgresConnection) {}

  getEvent(id: string): Promise<EventRecord | undefined> {
    return this.c.run(
      async (sql) =>
        (await sql`select id, account_id as "accountId", type, data, created_at as "createdAt" from events where id = ${id}`)[0] as EventRecord | undefined,
    );
  }

  enqueueJob(job: NewJob): Promise<string> {
    return this.c.write(async (tx) => {
      const handle = new PostgresTx(this.c, tx);
      const id = await handle.insertJob(job);
      await handle.jobsQueued();
      return id;
    });
  }

  onJobsAvailable(listener: () => void): () => void {
    return this.c.onJobsAvailable(listener);
  }

  /**
   * Start-up: leases of instances that are gone (a previous run of this one included) are
   * released so their jobs run again at once; live instances' leases are left alone.
   */
  releaseLeases(): Promise<number> {
    return this.c.write((tx) => releaseDeadLeases(this.c, tx));
  }

  pendingJobsByKind(): Promise<Record<string, number>> {
    return this.c.run(async (sql) => {
      const rows = await sql`select kind, count(*)::int as n from jobs where status = 'pending' group by kind`;
      return Object.fromEntries(rows.map((row) => [row.kind, row.n]));
    });
  }

  pruneFinishedJobs(finishedBefore: number): Promise<number> {
    return this.c.run(
      async (sql) => (await sql`delete from jobs where status in ('succeeded', 'failed', 'canceled') and finished_at < ${finishedBefore}`).count,
    );
  }

  getJob(id: string): Promise<JobRecord | undefined> {
    return this.c.run(async (sql) => {
      const [row] = await sql`select ${sql.unsafe(JOB_COLUMNS)} from jobs where id = ${id}`;
      return row ? toJob(row) : undefined;
    });
  }

  listJobs(filter: { status: JobStatus }): Promise<JobRecord[]> {
    return this.c.run(async (sql) =>
      (await sql`select ${sql.unsafe(JOB_COLUMNS)} from jobs where status = ${filter.status} order by created_at, seq`).map(toJob),
    );
  }
}
