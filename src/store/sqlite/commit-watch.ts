/**
 * Tells whether another connection (the operator CLI in another process, a backup tool, a second
 * connection in this process) committed to the database since the last look, at almost no cost
 * while nobody committed at all. The store keeps what it reads on every request (the owners of
 * API keys and signing keys) only as long as this says nothing else changed the file.
 *
 * How: in WAL mode every commit, by any connection, rewrites the WAL-index header at the start of
 * the `-shm` file that all connections map. Its frame count, salts and checksums change with each
 * commit; SQLite compares the same header to decide whether its own page cache is still valid.
 * Reading it here takes no lock and no system call. Only when it changed, `PRAGMA data_version`
 * (a read transaction) tells this connection's commits, which the store accounts for itself, from
 * anyone else's. So a request pays for the check once per commit, not once per request.
 *
 * The header layout is part of SQLite's documented file format ("WAL-index format": two 48-byte
 * copies of the header at offset 0, written second copy first). A header read mid-update shows
 * the copies differing, which counts as a change.
 */
import type { Database, Statement } from "bun:sqlite";
import { statSync } from "node:fs";

/** Both copies of the WAL-index header, as 32-bit words. */
const HEADER_WORDS = 24;

export class CommitWatch {
  private readonly seen = new Uint32Array(HEADER_WORDS);
  private dataVersion = -1;
  private readonly version: Statement<{ data_version: number }>;

  private constructor(
    client: Database,
    /** A view of the shared mapping (which lives as long as this view does). */
    private readonly header: Uint32Array,
  ) {
    this.version = client.query("PRAGMA data_version");
  }

  /**
   * A watch on the database `client` has open at `path`, or undefined where there is no shared
   * WAL index to read (an in-memory database, a journal mode other than WAL): callers then read
   * through every time.
   */
  static open(client: Database, path: string): CommitWatch | undefined {
    if (path === ":memory:" || path === "") return undefined;
    const mode = (client.query("PRAGMA journal_mode").get() as { journal_mode: string } | null)?.journal_mode;
    if (mode !== "wal") return undefined;
    // The index file exists once a connection has read the database in WAL mode.
    client.query("SELECT count(*) FROM sqlite_master").get();
    const shm = `${path}-shm`;
    try {
      if (statSync(shm).size < HEADER_WORDS * 4) return undefined;
      const mapping = Bun.mmap(shm, { shared: true });
      return new CommitWatch(client, new Uint32Array(mapping.buffer, mapping.byteOffset, HEADER_WORDS));
    } catch {
      return undefined;
    }
  }

  /** True when a connection other than `client` may have committed since the previous call. */
  committedElsewhere(): boolean {
    if (this.headerUnchanged()) return false;
    // Copied before asking SQLite: a commit after this copy is either in the version read next or
    // shows as a changed header at the next call.
    this.seen.set(this.header);
    const version = this.version.get()!.data_version;
    const changed = version !== this.dataVersion;
    this.dataVersion = version;
    return changed;
  }

  private headerUnchanged(): boolean {
    const { header, seen } = this;
    for (let i = 0; i < HEADER_WORDS; i++) if (header[i] !== seen[i]) return false;
    return true;
  }
}
