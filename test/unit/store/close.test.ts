import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AccountService } from "../../../src/accounts/accounts.ts";
import { systemClock } from "../../../src/clock.ts";
import { createLogger } from "../../../src/logger.ts";
import { CommitSignal, startCheckpointer } from "../../../src/store/sqlite/checkpointer.ts";
import { openSqliteStore } from "../../../src/store/sqlite/index.ts";

const dir = mkdtempSync(join(tmpdir(), "ogsmith-close-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Writes and reads through drizzle, whose prepared statements are what kept the file open. */
async function use(store: Awaited<ReturnType<typeof openSqliteStore>>) {
  await new AccountService(store, systemClock).create({ email: "close@example.com", plan: "free" });
  expect((await store.listAccounts()).length).toBe(1);
}

test("a closed store leaves one database file: no -wal, no -shm", async () => {
  const sub = mkdtempSync(join(dir, "alone-"));
  const store = await openSqliteStore(join(sub, "db.sqlite"));
  await use(store);
  expect(readdirSync(sub).sort()).toEqual(["db.sqlite", "db.sqlite-shm", "db.sqlite-wal"]);
  await store.close();
  expect(readdirSync(sub)).toEqual(["db.sqlite"]);
});

test("as the server stops: the store, then the checkpoint thread, and one file is left", async () => {
  const sub = mkdtempSync(join(dir, "server-"));
  const path = join(sub, "db.sqlite");
  await (await openSqliteStore(path)).close();
  const signal = CommitSignal.create();
  const checkpointer = await startCheckpointer(path, signal, createLogger("silent"));
  const store = await openSqliteStore(path, { commits: signal });
  await use(store);
  await store.close();
  await checkpointer.stop();
  expect(readdirSync(sub)).toEqual(["db.sqlite"]);
  // Nothing was lost with the log: the account is in the file itself.
  const reopened = await openSqliteStore(path);
  expect((await reopened.listAccounts()).map((a) => a.account.email)).toEqual(["close@example.com"]);
  await reopened.close();
});
