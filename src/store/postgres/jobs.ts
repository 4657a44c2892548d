/**
 * The outbox and the job table in PostgreSQL (../ports/jobs.ts). Recording, claiming and settling
 * are the domain logic of src/events, run on the transaction handle (./tx.ts). Jobs are claimed
 * with `FOR UPDATE SKIP LOCKED` plus a lease (`claimed_until`, real time, and `claimed_by`, the
 * instance): two instances never claim the same job, and a dead instance's leases are released
 * by a live one within LIVENESS_CHECK_MS (./liveness.ts). Every transaction that makes a job due
 * sends `NOTIFY ogsmith_jobs` (delivered at commit), so whichever instance has room picks it up.
 */
import { recordEvents } from "../../events/fan-out.ts";
import { claimJobs } from "../../events/lane-claim.ts";
import { settleJob } from "../../events/settlement.ts";
import type { DeliveryLog } from "../../webhooks/delivery-log.ts";
import { runAwaiting } from "../tx-steps.ts";
import type { ClaimRequest, ClaimResult, EventDraft, EventRecord, JobRecord, JobSettlement, JobsPort, JobStatus, NewJob, SettleResult } from "../ports/jobs.ts";
import { columns, JOB, toJob } from "../records.ts";
import type { PostgresConnection } from "./connection.ts";
import { releaseDeadLeases } from "./liveness.ts";
import { PostgresTx } from "./tx.ts";

/** How often a claim also releases the leases of instances that are gone. */
const LIVENESS_CHECK_MS = 2_000;
const JOB_COLUMNS = columns(JOB);

export class PostgresJobs implements JobsPort {
  #lastLivenessCheck = 0;

  constructor(
    private readonly c: PostgresConnection,
    private readonly deliveryLog: DeliveryLog,
  ) {}

  recordEvents(accountId: string, drafts: EventDraft[], now: number): Promise<EventRecord[]> {
    return this.c.write((tx) => runAwaiting(recordEvents(new PostgresTx(this.c, tx), accountId, drafts, now)));
  }

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

  claimJobs(request: ClaimRequest): Promise<ClaimResult> {
    if (request.limit <= 0 || request.kinds.length === 0) return Promise.resolve({ jobs: [], searchedEmpty: false });
    const checkLiveness = request.realNow - this.#lastLivenessCheck >= LIVENESS_CHECK_MS;
    if (checkLiveness) this.#lastLivenessCheck = request.realNow;
    return this.c.write(async (tx) => {
      if (checkLiveness) {
        await this.c.holdLiveness().catch(() => {}); // our own lock, again if our connection was replaced
        await releaseDeadLeases(this.c, tx);
      }
      return runAwaiting(claimJobs(new PostgresTx(this.c, tx), request));
    });
  }

  settleJob(settlement: JobSettlement): Promise<SettleResult> {
    return this.c.write((tx) => runAwaiting(settleJob(new PostgresTx(this.c, tx), this.deliveryLog, settlement)));
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
