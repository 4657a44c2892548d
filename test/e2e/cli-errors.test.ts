/**
 * Every way a CLI command can fail says so in lines that each start with exactly one
 * `ogsmith: ` (a usage text may follow after a blank line): sign, render, accounts, keys,
 * migrate, serve, an unknown command, bad flags and bad configuration.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../support/process.ts";

const KEY_ID = "sk_abcdefghij0123456789";
const SECRET = "ogsk_0123456789abcdefghijABCDEFGHIJ_-0123456789a";

let dir: string;
let db: Record<string, string>;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ogsmith-cli-errors-"));
  db = { OG_DB_PATH: join(dir, "cli.db") };
  expect((await runCli(["accounts", "list", "--create"], db)).code).toBe(0);
  writeFileSync(join(dir, "not-json.json"), "[{nope");
  writeFileSync(join(dir, "items.json"), JSON.stringify([{ title: "ok" }]));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The error part of stderr: what comes before a usage text, without JSON log lines. */
function problemLines(stderr: string): string[] {
  return stderr
    .split("\n\n")[0]!
    .split("\n")
    .filter((line) => line.trim() !== "" && !line.startsWith("{"));
}

type Case = [name: string, args: string[], env: Record<string, string>, exitCode: number];

const cases = (): Case[] => {
  const sign = (...flags: string[]) => ["sign", "--key-id", KEY_ID, ...flags];
  const body = JSON.stringify({ title: "x" });
  const out = join(dir, "out");
  return [
    ["unknown command", ["bogus"], {}, 2],
    ["global flag without a value", ["--port"], {}, 2],
    ["global flag with a bad value", ["--port", "eighty", "serve"], {}, 2],
    ["bad configuration", ["serve"], { PORT: "eighty" }, 2],
    ["serve with an unknown flag", ["serve", "--bogus"], {}, 2],
    ["migrate with an unknown flag", ["migrate", "--bogus"], db, 2],
    ["migrate on a database that cannot be opened", ["migrate"], { OG_DB_PATH: join(dir, "items.json", "x.db") }, 1],
    ["sign without a body", sign("--secret", SECRET), {}, 2],
    ["sign without a secret", sign("--json", body), {}, 2],
    ["sign with two secrets", sign("--json", body, "--secret", SECRET, "--secret-file", "-"), {}, 2],
    ["sign with a missing secret file", sign("--json", body, "--secret-file", join(dir, "none")), {}, 2],
    ["sign with a malformed secret", sign("--json", body), { OG_SIGNING_SECRET: "ogsk_short" }, 2],
    ["sign with a bad key id", ["sign", "--key-id", "sk_short", "--json", body], { OG_SIGNING_SECRET: SECRET }, 2],
    ["sign with bad JSON", sign("--json", "{nope"), { OG_SIGNING_SECRET: SECRET }, 2],
    ["sign with a bad format", sign("--json", body, "--format", "gif"), { OG_SIGNING_SECRET: SECRET }, 2],
    ["sign with a bad duration", sign("--json", body, "--expires-in", "soon"), { OG_SIGNING_SECRET: SECRET }, 2],
    ["sign with a bad base URL", sign("--json", body, "--base-url", "ftp://x"), { OG_SIGNING_SECRET: SECRET }, 2],
    ["sign with an unknown flag", sign("--json", body, "--bogus"), { OG_SIGNING_SECRET: SECRET }, 2],
    ["sign with a stray argument", sign("--json", body, "stray"), { OG_SIGNING_SECRET: SECRET }, 2],
    ["sign with a body the server refuses", sign("--json", JSON.stringify({ width: 10 })), { OG_SIGNING_SECRET: SECRET }, 1],
    ["sign with an unknown template", sign("--json", JSON.stringify({ template: "nope", title: "x" })), { OG_SIGNING_SECRET: SECRET }, 1],
    ["render with nothing to do", ["render"], {}, 2],
    ["render with an unknown flag", ["render", "--nope"], {}, 2],
    ["render --json without -o", ["render", "--json", body], {}, 2],
    ["render --json and --batch", ["render", "--json", body, "--batch", "x.json"], {}, 2],
    ["render with bad JSON", ["render", "--json", "{nope", "-o", join(out, "x.png")], {}, 2],
    ["render with a body the server refuses", ["render", "--json", JSON.stringify({ width: 10 }), "-o", join(out, "x.png")], {}, 1],
    ["render --batch without --out-dir", ["render", "--batch", join(dir, "items.json")], {}, 2],
    ["render --batch with bad --workers", ["render", "--batch", join(dir, "items.json"), "--out-dir", out, "--workers", "0"], {}, 2],
    ["render --batch with bad --concurrency", ["render", "--batch", join(dir, "items.json"), "--out-dir", out, "--concurrency", "x"], {}, 2],
    ["render --batch of a missing file", ["render", "--batch", join(dir, "none.json"), "--out-dir", out], {}, 2],
    ["render --batch of bad JSON", ["render", "--batch", join(dir, "not-json.json"), "--out-dir", out], {}, 2],
    ["accounts without a sub-command", ["accounts"], db, 2],
    ["accounts with an unknown sub-command", ["accounts", "bogus"], db, 2],
    ["accounts show without an id", ["accounts", "show"], db, 2],
    ["accounts show of an unknown account", ["accounts", "show", "acc_nope"], db, 1],
    ["accounts update without an id", ["accounts", "update"], db, 2],
    ["accounts update of an unknown account", ["accounts", "update", "acc_nope", "--plan", "pro"], db, 1],
    ["accounts create with bad fields", ["accounts", "create", "--email", "nope", "--plan", "gold"], db, 1],
    ["accounts create with a bad number", ["accounts", "create", "--email", "a@example.com", "--plan", "custom", "--quota", "many"], db, 2],
    ["accounts create with an unknown flag", ["accounts", "create", "--bogus"], db, 2],
    ["accounts on a database that does not exist", ["accounts", "list"], { OG_DB_PATH: join(dir, "missing.db") }, 2],
    ["keys without a sub-command", ["keys"], db, 2],
    ["keys replace without an id", ["keys", "replace"], db, 2],
    ["keys replace of an unknown account", ["keys", "replace", "acc_nope"], db, 1],
  ];
};

describe("CLI error lines", () => {
  test("every error path: a non-zero exit and exactly one ogsmith: prefix on each error line", async () => {
    const seen: string[] = [];
    for (const [name, args, env, exitCode] of cases()) {
      // Run in parallel pairs would race on the one database; the cases are quick one by one.
      const res = await runCli(args, { OG_SIGNING_SECRET: "", ...env });
      const lines = problemLines(res.stderr);
      expect({ name, code: res.code }).toEqual({ name, code: exitCode });
      expect({ name, lines: lines.length > 0 }).toEqual({ name, lines: true });
      for (const line of lines) {
        expect({ name, line, prefixes: line.match(/ogsmith:/g)?.length ?? 0, starts: line.startsWith("ogsmith: ") }).toEqual({
          name,
          line,
          prefixes: 1,
          starts: true,
        });
      }
      expect({ name, doubled: res.stderr.includes("ogsmith: ogsmith:") }).toEqual({ name, doubled: false });
      seen.push(name);
    }
    expect(seen.length).toBeGreaterThan(40);
  }, 120_000);
});
