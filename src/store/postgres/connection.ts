/**
 * The PostgreSQL store's connections and the plumbing every part of it shares: the client as
 * every module uses it, statements with their fault mapping, transactions run again after a
 * deadlock, the instance's liveness lock, and the job notifications between instances.
 */
import postgres from "postgres";
import { driverErrorCode, StoreUnavailableError } from "../errors.ts";

export type Sql = postgres.Sql<{ bigint: number }>;
/** A transaction takes the same tagged-template calls as the pool. */
export type Tx = Sql;

export function connect(url: string, options: { max?: number; idleTimeout?: number } = {}): Sql {
  return postgres(url, {
    max: options.max ?? 20,
    connect_timeout: 3,
    // Fixed, short reconnect backoff: the default grows to ~20 s after an outage.
    backoff: () => 0.1,
    idle_timeout: options.idleTimeout ?? 60,
    onnotice: () => {},
    // Epoch-ms columns are bigint: numbers, not strings (they stay far below 2^53).
    types: { bigint: { to: 20, from: [20], serialize: (x: number) => String(x), parse: (x: string) => Number(x) } },
  }) as unknown as Sql;
}

/**
 * A transaction PostgreSQL aborted for another's sake (40P01 deadlock detected, 40001
 * serialization failure): it left nothing behind, and the same transaction run again succeeds.
 */
export function isRetryableConflict(error: unknown): boolean {
  return ["40P01", "40001"].includes(driverErrorCode(error));
}

/** Connection-level faults (server down, restarting, too many clients) are operational; others are bugs. */
export function classifyPostgresError(error: unknown): "unreachable" | undefined {
  const code = driverErrorCode(error);
  if (/^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|ENOTFOUND|EHOSTUNREACH|CONNECTION_|CONNECT_TIMEOUT)/.test(code)) return "unreachable";
  // 08: connection exception; 57P0x: shutting down / cannot connect now; 53300: too many connections.
  if (/^(08|57P0|53300|53400)/.test(code)) return "unreachable";
  return undefined;
}

const JOBS_CHANNEL = "ogsmith_jobs";
/** Namespace (first key) of the instances' liveness advisory locks. */
export const LIVENESS_NS = 0x6f67;
/** Tries of a transaction PostgreSQL aborted to break a deadlock or a serialization conflict. */
const TX_TRIES = 5;

export class PostgresConnection {
  /** Transactions run again after PostgreSQL aborted them for a deadlock or a serialization conflict. */
  conflictRetries = 0;
  /** This instance's liveness key (the second key of its advisory lock; jobs' `claimed_by`, reservations' `instance_key`). */
  readonly instanceKey = 1 + Math.floor(Math.random() * 0x7ffffffe);
  #closed = false;
  readonly #jobListeners = new Set<() => void>();
  readonly #unlisten: (() => Promise<void>)[] = [];

  constructor(
    readonly sql: Sql,
    /** A one-connection client that holds this instance's liveness lock. */
    private readonly liveness: Sql,
  ) {}

  /** Runs statements outside a transaction; connection faults become StoreUnavailableError. */
  async run<T>(body: (sql: Sql) => Promise<T>): Promise<T> {
    try {
      return await body(this.sql);
    } catch (error) {
      const fault = classifyPostgresError(error);
      if (fault === undefined || this.#closed) throw error;
      throw new StoreUnavailableError(`PostgreSQL: ${(error as Error).message}`, fault, 1, { cause: error });
    }
  }

  /**
   * Runs `body` in one transaction. Instances lock the same rows from different ends (settling a
   * delivery locks its job, then its webhook; changing a webhook locks it, then its jobs), so
   * PostgreSQL may abort one of two such transactions to break a deadlock: the aborted one is
   * run again, whole, rather than surfacing as a 500.
   */
  async write<T>(body: (tx: Tx) => Promise<T>): Promise<T> {
    for (let tries = 1; ; tries++) {
      try {
        return await this.run((sql) => sql.begin((tx) => body(tx as unknown as Tx)) as Promise<T>);
      } catch (error) {
        if (tries >= TX_TRIES || !isRetryableConflict(error)) throw error;
        this.conflictRetries++;
        await Bun.sleep(Math.random() * 10 * tries);
      }
    }
  }

  /** Takes (or, after a reconnect, takes again) this instance's liveness lock. */
  async holdLiveness(): Promise<void> {
    await this.liveness`select pg_advisory_lock(${LIVENESS_NS}, ${this.instanceKey})
      where not exists (select 1 from pg_locks where locktype = 'advisory' and classid = ${LIVENESS_NS} and objid = ${this.instanceKey} and objsubid = 2 and pid = pg_backend_pid())`;
  }

  /** Follows a channel that any instance may notify (the driver re-listens after a reconnect). */
  async listen(channel: string, listener: (payload: string) => void): Promise<void> {
    const { unlisten } = await this.sql.listen(channel, listener);
    this.#unlisten.push(unlisten);
  }

  /** Subscribes to job notifications from every instance. */
  startListening(): Promise<void> {
    return this.listen(JOBS_CHANNEL, () => {
      for (const listener of this.#jobListeners) listener();
    });
  }

  /** Called when any instance committed jobs that may be due now. */
  onJobsAvailable(listener: () => void): () => void {
    this.#jobListeners.add(listener);
    return () => this.#jobListeners.delete(listener);
  }

  /** Inside a transaction: tells every instance (at commit) that jobs may be due. */
  async notifyJobs(tx: Tx): Promise<void> {
    await tx`select pg_notify(${JOBS_CHANNEL}, '')`;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const unlisten of this.#unlisten) await unlisten().catch(() => {});
    await this.sql.end({ timeout: 5 });
    await this.liveness.end({ timeout: 1 });
  }
}
