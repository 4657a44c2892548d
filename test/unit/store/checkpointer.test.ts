import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AccountService } from "../../../src/accounts/accounts.ts";
import { systemClock } from "../../../src/clock.ts";
import { createLogger } from "../../../src/logger.ts";
import { CommitSignal, IDLE_CHECKPOINT_MS, NOTIFY_EVERY, STOP, startCheckpointer, WAKE } from "../../../src/store/sqlite/checkpointer.ts";
import { openSqliteStore } from "../../../src/store/sqlite/index.ts";
import { waitFor } from "../../support/wait.ts";

const dir = mkdtempSync(join(tmpdir(), "ogsmith-checkpoint-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const logger = createLogger("silent");

/**
 * The WAL frames not yet copied into the database file: mxFrame (WAL-index header, byte 16) minus
 * nBackfill (checkpoint information, byte 96), from SQLite's documented "WAL-index format".
 */
function framesBehind(path: string): number {
  const shm = Bun.mmap(`${path}-shm`, { shared: true });
  const words = new Uint32Array(shm.buffer, shm.byteOffset, 32);
  return words[4]! - words[24]!;
}

/** Commits `n` write transactions through the store (one account each: several pages a commit). */
async function commit(path: string, commits: SharedArrayBuffer | undefined, n: number) {
  const store = await openSqliteStore(path, { commits });
  const accounts = new AccountService(store, systemClock);
  for (let i = 0; i < n; i++) await accounts.create({ email: `user${i}@example.com`, plan: "free" });
  return store;
}

test("with a checkpoint thread, the writers leave checkpoints to it and it catches up", async () => {
  // Without the thread the writers' backstop lets the log grow past SQLite's usual 1,000 pages…
  const alone = join(dir, "alone.db");
  const storeAlone = await commit(alone, CommitSignal.create(), 600);
  expect(framesBehind(alone)).toBeGreaterThan(1_000);
  await storeAlone.close();

  // …and with it, the log is copied back while the writers go on, and fully at the end.
  const path = join(dir, "with-thread.db");
  await (await openSqliteStore(path)).close();
  const signal = CommitSignal.create();
  const checkpointer = await startCheckpointer(path, signal, logger);
  const store = await commit(path, signal, 600);
  // 600 commits wake it twice (every 256). On a loaded machine a checkpoint may start late and
  // leave the commits made meanwhile for the idle checkpoint (every IDLE_CHECKPOINT_MS). Either
  // way it catches up without a writer's help.
  await waitFor(
    () => checkpointer.checkpoints >= 1 && framesBehind(path) < 1_000,
    () => `checkpoints: ${checkpointer.checkpoints}, frames behind: ${framesBehind(path)}`,
    { timeoutMs: IDLE_CHECKPOINT_MS * 2 },
  );
  await checkpointer.stop();
  // Stopping ran a last one: nothing is left in the log.
  expect(framesBehind(path)).toBe(0);
  await store.close();
}, 60_000);

test("a database that cannot be opened fails the start, not the first checkpoint", async () => {
  await expect(startCheckpointer(join(dir, "missing", "nothing.db"), CommitSignal.create(), logger)).rejects.toThrow("did not start");
});

test("a checkpoint thread that dies is started again, and the new one checkpoints", async () => {
  const path = join(dir, "restart.db");
  await (await openSqliteStore(path)).close();
  const signal = CommitSignal.create();
  const lines: string[] = [];
  const words = new Int32Array(signal);
  const log = (line: string) => {
    lines.push(line);
    // STOP is cleared as the death is logged, before the restart is even scheduled: cleared by a
    // poll instead, it could come after the restart on a loaded machine and end that thread too.
    if (line.includes("checkpoint thread exited")) Atomics.store(words, STOP, 0);
  };
  const checkpointer = await startCheckpointer(path, signal, createLogger("info", log));
  // The thread ends when it finds STOP set; set behind the supervisor's back, that is a death.
  Atomics.store(words, STOP, 1);
  Atomics.add(words, WAKE, 1);
  Atomics.notify(words, WAKE);
  await waitFor(
    () => checkpointer.restarts === 1,
    () => `restarts: ${checkpointer.restarts}; ${lines.join("\n")}`,
  );

  const before = checkpointer.checkpoints;
  const store = await commit(path, signal, NOTIFY_EVERY);
  await waitFor(
    () => checkpointer.checkpoints > before,
    () => `checkpoints: ${checkpointer.checkpoints}`,
  );
  expect(framesBehind(path)).toBe(0);
  await checkpointer.stop();
  await store.close();
  expect(lines.filter((line) => line.includes('"level":"error"')).length).toBe(1);
});
