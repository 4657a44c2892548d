/**
 * The PostgreSQL store's connections and the plumbing every part of it shares: the client as
 * every module uses it, statements with their fault mapping, transactions run again after a
 * deadlock, the instance's liveness lock, and the job notifications between instances.
 */
import { createConnection } from "node:net";
import postgres from "postgres";
import { driverErrorCode, type StoreFaultReason, StoreUnavailableError } from "../errors.ts";

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

/**
 * Connection-level faults are operational; others are bugs. `unreachable`: the server refused,
 * reset or cannot be resolved, or is shutting down (08xxx, 57P0x). `busy`: it answered that it
 * has too many clients (53300, 53400), or it cancelled the statement (57014: a statement_timeout
 * an operator set on the role or database, or pg_cancel_backend) — the server is there, the same
 * call later may well succeed, and the client is not to blame. `timeout`: a connect or socket timeout, which says
 * nothing on its own: the caller decides (reachableAfterTimeout) whether it is busy or unreachable.
 */
export function classifyPostgresError(error: unknown): "busy" | "unreachable" | "timeout" | undefined {
  const code = driverErrorCode(error);
  if (/^(ETIMEDOUT|CONNECT_TIMEOUT)/.test(code)) return "timeout";
  if (/^(ECONNREFUSED|ECONNRESET|EPIPE|ENOTFOUND|EHOSTUNREACH|CONNECTION_)/.test(code)) return "unreachable";
  if (/^(53300|53400|57014)/.test(code)) return "busy";
  if (/^(08|57P0)/.test(code)) return "unreachable";
  return undefined;
}

/** How long the reachability probe after a timeout may take before the server counts as unreachable. */
export const PROBE_TIMEOUT_MS = 1000;

/**
 * Whether the server still accepts a TCP connection (the first host of the client's options,
 * or its Unix socket) within PROBE_TIMEOUT_MS. The kernel completes the handshake even while
 * PostgreSQL itself is starved of CPU, so a yes after a timeout means "there, but slow".
 */
export function acceptsConnections(sql: Sql): Promise<boolean> {
  const options = sql.options as unknown as { host: string[]; port: number[]; path?: string | false };
  return new Promise((resolve) => {
    let settled = false;
    const done = (up: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(up);
    };
    const socket = options.path ? createConnection({ path: options.path }) : createConnection({ host: options.host[0], port: options.port[0] });
    const timer = setTimeout(() => done(false), PROBE_TIMEOUT_MS);
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

const JOBS_CHANNEL = "ogsmith_jobs";
/** Namespace (first key) of the instances' liveness advisory locks. */
export const LIVENESS_NS = 0x6f67;
/** Tries of a transaction PostgreSQL aborted to break a deadlock or a serialization conflict. */
const TX_TRIES = 5;
/** How often a claim also releases the leases of instances that are gone (./liveness.ts). */
const LIVENESS_CHECK_MS = 2_000;

export class PostgresConnection {
  /** Transactions run again after PostgreSQL aborted them for a deadlock or a serialization conflict. */
  conflictRetries = 0;
  /** This instance's liveness key (the second key of its advisory lock; jobs' `claimed_by`, reservations' `instance_key`). */
  readonly instanceKey = 1 + Math.floor(Math.random() * 0x7ffffffe);
  #closed = false;
  #lastLivenessCheck = 0;
  #probe: Promise<StoreFaultReason> | undefined;
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
      const reason = fault === "timeout" ? await this.#timeoutReason() : fault;
      throw new StoreUnavailableError(`PostgreSQL: ${(error as Error).message}`, reason, 1, { cause: error });
    }
  }

  /**
   * A timeout against a server that still accepts connections is an overload (`busy`); against
   * one that does not, an outage (`unreachable`). A burst of timeouts shares one probe.
   */
  #timeoutReason(): Promise<StoreFaultReason> {
    this.#probe ??= acceptsConnections(this.sql)
      .then((up): StoreFaultReason => (up ? "busy" : "unreachable"))
      .finally(() => {
        this.#probe = undefined;
      });
    return this.#probe;
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

  /**
   * `write` with BEGIN sent in the same flight as the first statement rather than one round trip
   * ahead of it (postgres.js pipelines the statements of one connection): a transaction of one
   * statement is two round trips (BEGIN + its statement, then COMMIT). Retried whole after a
   * deadlock or serialization conflict, as `write` is.
   */
  async writePipelined<T>(body: (tx: Tx) => Promise<T>): Promise<T> {
    for (let tries = 1; ; tries++) {
      try {
        return await this.run(async (sql) => {
          const tx = await sql.reserve();
          try {
            // Its failure (the connection's) fails the body's first statement too.
            const begun = tx`begin`.execute().then(
              () => undefined,
              (error: unknown) => error,
            );
            let result: T;
            try {
              result = await body(tx as unknown as Tx);
              const failed = await begun;
              if (failed) throw failed;
            } catch (error) {
              await begun;
              await tx`rollback`.catch(() => {});
              throw error;
            }
            await tx`commit`;
            return result;
          } finally {
            tx.release();
          }
        });
      } catch (error) {
        if (tries >= TX_TRIES || !isRetryableConflict(error)) throw error;
        this.conflictRetries++;
        await Bun.sleep(Math.random() * 10 * tries);
      }
    }
  }

  /** True at most once every LIVENESS_CHECK_MS of real time: the claim that asks then looks for instances that are gone. */
  livenessCheckDue(realNow: number): boolean {
    if (realNow - this.#lastLivenessCheck < LIVENESS_CHECK_MS) return false;
    this.#lastLivenessCheck = realNow;
    return true;
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
