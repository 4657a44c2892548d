/**
 * The SQLite store's one connection and the plumbing every part of it shares (see ./index.ts for
 * the locking rules): reads and write transactions with their lock waits and fault mapping, the
 * compiled statements, the owners of keys remembered between commits, and the notice that jobs
 * were queued.
 */
import type { Statement } from "bun:sqlite";
import { StoreUnavailableError } from "../errors.ts";
import type { CommitSignal } from "./checkpointer.ts";
import { CommitWatch } from "./commit-watch.ts";
import type { Db } from "./database.ts";
import { classifySqliteError } from "./faults.ts";
import { StatementCache } from "./statements.ts";

export interface WriteOptions {
  /** The body is one statement, atomic on its own: no BEGIN/COMMIT around it. */
  single?: boolean;
  /** The body writes neither accounts, API keys nor signing keys, so what is remembered stays true. */
  leavesKeys?: boolean;
}

export const LEAVES_KEYS: WriteOptions = { leavesKeys: true };

/** Owners remembered at most, of each kind: a bound for a server with very many active keys. */
const REMEMBERED_PER_KIND = 10_000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class SqliteConnection {
  /** Times a call found the database locked by another connection and waited to try again. */
  lockRetries = 0;
  #closed = false;
  readonly #statements: StatementCache;
  /** Runs a body in a transaction; built once (bun:sqlite builds a wrapper per `transaction()` call). */
  readonly #inTransaction: ReturnType<Db["$client"]["transaction"]>;
  /** Writes waiting for a lock held by another connection, and the line they wait in. */
  #waitingWrites = 0;
  #writeLine: Promise<unknown> = Promise.resolve();
  #commitWatch: CommitWatch | undefined;
  readonly #remembered: Map<string, unknown>[] = [];
  readonly #jobListeners = new Set<() => void>();
  #jobsNoticeQueued = false;

  constructor(
    readonly db: Db,
    private readonly options: { lockWaitMs: number; path?: string; commits?: CommitSignal },
  ) {
    this.#inTransaction = db.$client.transaction((body: () => unknown) => body());
    this.#statements = new StatementCache(db);
    this.#commitWatch = options.path === undefined ? undefined : CommitWatch.open(db.$client, options.path);
  }

  /**
   * A statement compiled once and kept for the connection's life (./statements.ts). Every query
   * of the store goes through here: values are always bound, never written into the text.
   */
  sql(text: string): Statement {
    return this.#statements.get(text);
  }

  /**
   * Runs a synchronous, atomic body; a database locked by another connection is retried after
   * asynchronous waits until `lockWaitMs`, operational faults become StoreUnavailableError.
   */
  async read<T>(body: () => T, deadline = performance.now() + this.options.lockWaitMs, foundLocked = false): Promise<T> {
    let wait = 2;
    if (foundLocked) {
      // The caller just found the lock held: wait before the next probe.
      this.lockRetries++;
      await sleep(wait);
      wait *= 2;
    }
    for (;;) {
      try {
        return this.#attempt(body);
      } catch (error) {
        if (!(error instanceof Locked) || performance.now() + wait >= deadline) throw this.#unavailable(error);
        this.lockRetries++;
        await sleep(wait);
        wait = Math.min(wait * 2, 50);
      }
    }
  }

  /**
   * A write transaction: BEGIN IMMEDIATE takes the write lock up front.
   *
   * While another connection holds the lock, writes wait in line: only the first probes the
   * lock (each probe may block up to the busy timeout), the others follow it one by one once it
   * got through. So a held lock costs the event loop one short probe per backoff step, however
   * many requests are waiting, and requests that only read keep being served.
   */
  async write<T>(body: () => T, options: WriteOptions = {}): Promise<T> {
    // One statement is atomic on its own: it skips the BEGIN/COMMIT pair (the hot reserve/release).
    const atomic = options.single ? body : () => this.#inTransaction.immediate(body) as T;
    const tx = this.#forgettingRemembered(this.#committing(atomic), options);
    const deadline = performance.now() + this.options.lockWaitMs;
    let foundLocked = false;
    if (this.#waitingWrites === 0) {
      try {
        return this.#attempt(tx);
      } catch (error) {
        if (!(error instanceof Locked)) throw this.#unavailable(error);
        foundLocked = true;
      }
    }
    this.#waitingWrites++;
    const turn = this.#writeLine.then(() => this.read(tx, deadline, foundLocked));
    this.#writeLine = turn.catch(() => undefined);
    try {
      return await turn;
    } finally {
      this.#waitingWrites--;
    }
  }

  /** One synchronous try; a lock held elsewhere comes back as `Locked`, other faults as they are. */
  #attempt<T>(body: () => T): T {
    try {
      return body();
    } catch (error) {
      this.#rollbackIfOpen();
      if (!this.#closed && classifySqliteError(error) === "busy") throw new Locked(error);
      throw error;
    }
  }

  #unavailable(error: unknown): unknown {
    const cause = error instanceof Locked ? error.cause : error;
    const fault = this.#closed ? undefined : classifySqliteError(cause);
    if (fault === undefined) return cause;
    return new StoreUnavailableError(`SQLite: ${(cause as Error).message}`, fault, 1, { cause });
  }

  /** SQLite may leave a transaction open after SQLITE_FULL or an I/O error in COMMIT. */
  #rollbackIfOpen(): void {
    try {
      if (this.db.$client.inTransaction) this.db.$client.exec("ROLLBACK");
    } catch {
      // Nothing more to undo.
    }
  }

  /** Wraps an atomic write so that the server's checkpoint thread counts its commit (checkpointer.ts). */
  #committing<T>(atomic: () => T): () => T {
    const { commits } = this.options;
    if (!commits) return atomic;
    return () => {
      const result = atomic();
      commits.committed();
      return result;
    };
  }

  /* ───────────── remembered key owners ───────────── */

  /** A map of owners kept only while no other connection committed (see `remembered`). */
  rememberer<V>(): Map<string, V> {
    const cache = new Map<string, V>();
    this.#remembered.push(cache as Map<string, unknown>);
    return cache;
  }

  /**
   * A read answered from `cache` while no other connection committed since it was made (a key
   * replaced with the CLI from another process is refused on the very next request); a miss is
   * read and, when found, kept. Not-found answers are never kept, so a key created elsewhere
   * works at once. This connection's own writes forget everything unless marked as leaving
   * accounts and keys alone (`WriteOptions`).
   */
  remembered<V>(cache: Map<string, V>, key: string, read: () => V | undefined): Promise<V | undefined> {
    const watch = this.#commitWatch;
    if (!watch) return this.read(read);
    return this.read(() => {
      if (watch.committedElsewhere()) this.#forgetRemembered();
      const known = cache.get(key);
      if (known !== undefined) return known;
      const value = read();
      if (value !== undefined) {
        if (cache.size >= REMEMBERED_PER_KIND) cache.clear();
        cache.set(key, value);
      }
      return value;
    });
  }

  #forgetRemembered(): void {
    for (const cache of this.#remembered) cache.clear();
  }

  /** Wraps a write body so that it forgets what is remembered, unless it leaves keys alone. */
  #forgettingRemembered<T>(tx: () => T, options: WriteOptions): () => T {
    if (options.leavesKeys) return tx;
    return () => {
      this.#forgetRemembered();
      return tx();
    };
  }

  /* ───────────── the jobs notice ───────────── */

  onJobsAvailable(listener: () => void): () => void {
    this.#jobListeners.add(listener);
    return () => this.#jobListeners.delete(listener);
  }

  /**
   * Inside a write body that queued jobs: tells the listeners once the body is over. Bodies are
   * synchronous, so a microtask runs after the commit; after a rollback the listeners look and
   * find nothing, which is harmless. Jobs queued by another process are found at the worker's tick.
   */
  jobsQueued(): void {
    if (this.#jobsNoticeQueued || this.#jobListeners.size === 0) return;
    this.#jobsNoticeQueued = true;
    queueMicrotask(() => {
      this.#jobsNoticeQueued = false;
      for (const listener of this.#jobListeners) {
        try {
          listener();
        } catch {
          // A listener only speeds delivery up; the worker's tick finds the jobs anyway.
        }
      }
    });
  }

  /* ───────────── closing ───────────── */

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#commitWatch = undefined;
    this.#forgetRemembered();
    // Every statement is finalized now, including any compiled and left to the collector: while
    // one is alive SQLite keeps the connection open after a plain close(), and so leaves the
    // -wal and -shm files behind. Closed at once, the last connection checkpoints and removes
    // them, and a stopped server leaves one database file.
    try {
      this.db.$client.close(true);
    } catch {
      // SQLite refused to close now: it releases the connection once nothing uses it.
      this.db.$client.close();
    }
  }
}

/** SQLITE_BUSY / SQLITE_LOCKED from one attempt: worth another try after a wait. */
class Locked extends Error {
  constructor(override readonly cause: unknown) {
    super("database is locked");
  }
}
