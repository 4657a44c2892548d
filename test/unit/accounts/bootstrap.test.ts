/**
 * The first-start banner's commands name the database the service used, so they work as printed
 * in a shell that lacks the server's OG_DB_PATH (cli.test.ts runs one end to end).
 */
import { describe, expect, test } from "bun:test";
import type { AccountService } from "../../../src/accounts/accounts.ts";
import { bootstrapFirstAccount } from "../../../src/accounts/bootstrap.ts";
import type { Config } from "../../../src/config.ts";

/** An empty store that creates acc_1: only what the bootstrap asks of the service. */
const accounts = { count: async () => 0, create: async () => ({ account: { id: "acc_1" }, apiKey: "og_key" }) } as unknown as AccountService;

async function hints(database?: Pick<Config, "dbPath" | "databaseUrl">): Promise<string[]> {
  let printed = "";
  await bootstrapFirstAccount(accounts, { print: (text) => (printed += text) }, "ogsmith", database);
  return printed.split("\n").flatMap((line) => line.match(/with: (ogsmith .*)$/)?.[1] ?? []);
}

describe("the first-start banner's commands", () => {
  test("the default database: no --db", async () => {
    expect(await hints()).toEqual(["ogsmith accounts update acc_1 --email you@example.com", "ogsmith accounts update acc_1 --plan pro"]);
    expect(await hints({ dbPath: "./data/ogsmith.db", databaseUrl: undefined })).toEqual(await hints());
  });

  test("another SQLite file: --db with its absolute path, both commands", async () => {
    expect(await hints({ dbPath: "/srv/og/main.db", databaseUrl: undefined })).toEqual([
      "ogsmith accounts update acc_1 --db /srv/og/main.db --email you@example.com",
      "ogsmith accounts update acc_1 --db /srv/og/main.db --plan pro",
    ]);
    expect((await hints({ dbPath: "elsewhere/og.db", databaseUrl: undefined }))[1]).toBe(
      `ogsmith accounts update acc_1 --db ${process.cwd()}/elsewhere/og.db --plan pro`,
    );
  });

  test("a path a shell would split is quoted", async () => {
    expect((await hints({ dbPath: "/srv/my data/it's.db", databaseUrl: undefined }))[1]).toBe(
      "ogsmith accounts update acc_1 --db '/srv/my data/it'\\''s.db' --plan pro",
    );
  });

  test("PostgreSQL: no --db, and the URL (with its password) is not printed", async () => {
    const lines = await hints({ dbPath: "/srv/og/main.db", databaseUrl: "postgres://og:secret@db/og" });
    expect(lines).toEqual(["ogsmith accounts update acc_1 --email you@example.com", "ogsmith accounts update acc_1 --plan pro"]);
  });
});
