/**
 * The background checkpoint thread of checkpointer.ts: its own connection to the database, asleep
 * until the writers have committed NOTIFY_EVERY times (or IDLE_CHECKPOINT_MS passed with commits
 * pending), then a PASSIVE checkpoint. The thread does nothing else, so sleeping in Atomics.wait
 * blocks nothing.
 */
import { Database } from "bun:sqlite";
import { COMMITS, DONE, type FromCheckpointThread, IDLE_CHECKPOINT_MS, NOTIFY_EVERY, STOP, type ToCheckpointThread, WAKE } from "./checkpointer.ts";

declare const self: Worker;

const send = (message: FromCheckpointThread) => self.postMessage(message);

self.onmessage = (event: MessageEvent<ToCheckpointThread>) => {
  const { path, signal } = event.data;
  let db: Database;
  try {
    db = new Database(path, { readwrite: true, create: false });
    // The checkpoint syncs as the writers' commits expect (see database.ts).
    db.exec("PRAGMA synchronous = NORMAL;");
    db.exec("PRAGMA busy_timeout = 100;");
  } catch (error) {
    send({ type: "failed", message: (error as Error).message });
    return;
  }
  send({ type: "ready" });
  // Leave the message handler first, so that "ready" goes out before the loop blocks.
  setTimeout(() => run(db, new Int32Array(signal)), 0);
};

function run(db: Database, words: Int32Array): void {
  const checkpoint = db.query("PRAGMA wal_checkpoint(PASSIVE)");
  // Counted from the server's first commit: commits made before this thread started (or before
  // it was restarted) are pending too.
  let checkpointedAt = 0;
  for (;;) {
    // Read first: a wake-up sent after this read changes it, and the sleep below then returns
    // at once instead of missing it.
    const woken = Atomics.load(words, WAKE);
    const behind = (Atomics.load(words, COMMITS) - checkpointedAt) | 0;
    if (behind < NOTIFY_EVERY && Atomics.load(words, STOP) === 0) Atomics.wait(words, WAKE, woken, IDLE_CHECKPOINT_MS);
    const stopping = Atomics.load(words, STOP) === 1;
    const commits = Atomics.load(words, COMMITS);
    if (commits !== checkpointedAt) {
      try {
        checkpoint.get();
        Atomics.add(words, DONE, 1);
      } catch (error) {
        send({ type: "error", message: (error as Error).message });
      }
      checkpointedAt = commits;
    }
    if (stopping) break;
  }
  db.close();
  process.exit(0);
}
