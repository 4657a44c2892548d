/**
 * The outbox and the job table in SQLite (../ports/jobs.ts). Recording, claiming and settling are
 * the core's routines (src/events), run through `transact` on the transaction handle (./tx.ts).
 */
import type { EventRecord, JobRecord, JobsPort, JobStatus, NewJob } from "../ports/jobs.ts";
import { columns, JOB, toJob } from "../records.ts";
import { LEAVES_KEYS, type SqliteConnection } from "./connection.ts";
import type { SqliteTx } from "./tx.ts";

const JOB_COLUMNS = columns(JOB);

export class SqliteJobs implements JobsPort {
  constructor(
    private readonly c: SqliteConnection,
    private readonly tx: SqliteTx,
  ) {}

  getEvent(id: string): Promise<EventRecord | undefined> {
    return this.c.read(
      () =>
        (this.c.sql("SELECT id, account_id AS accountId, type, data, created_at AS createdAt FROM events WHERE id = ?").get(id) as EventRecord | null) ??
        undefined,
    );
  }

  enqueueJob(job: NewJob): Promise<string> {
    return this.c.write(() => {
      const id = this.tx.insertJob(job);
      this.tx.jobsQueued();
      return id;
    }, LEAVES_KEYS);
  }

  onJobsAvailable(listener: () => void): () => void {
    return this.c.onJobsAvailable(listener);
  }

  releaseLeases(): Promise<number> {
    return this.c.write(
      () => this.c.sql("UPDATE jobs SET claimed_until = NULL WHERE status = 'pending' AND claimed_until IS NOT NULL").run().changes,
      LEAVES_KEYS,
    );
  }

  pendingJobsByKind(): Promise<Record<string, number>> {
    return this.c.read(() => {
      const rows = this.c.sql("SELECT kind, count(*) AS n FROM jobs WHERE status = 'pending' GROUP BY kind").all() as { kind: string; n: number }[];
      return Object.fromEntries(rows.map((row) => [row.kind, row.n]));
    });
  }

  pruneFinishedJobs(finishedBefore: number): Promise<number> {
    return this.c.write(
      () => this.c.sql("DELETE FROM jobs WHERE status IN ('succeeded', 'failed', 'canceled') AND finished_at < ?").run(finishedBefore).changes,
      LEAVES_KEYS,
    );
  }

  getJob(id: string): Promise<JobRecord | undefined> {
    return this.c.read(() => {
      const row = this.c.sql(`SELECT ${JOB_COLUMNS} FROM jobs WHERE id = ?`).get(id) as Record<string, unknown> | null;
      return row ? toJob(row) : undefined;
    });
  }

  listJobs(filter: { status: JobStatus }): Promise<JobRecord[]> {
    return this.c.read(() =>
      (this.c.sql(`SELECT ${JOB_COLUMNS} FROM jobs WHERE status = ? ORDER BY created_at, rowid`).all(filter.status) as Record<string, unknown>[]).map(toJob),
    );
  }
}
