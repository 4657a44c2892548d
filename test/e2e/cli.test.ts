import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli, waitForOutput, REPO_ROOT } from "../support/process.ts";

let dir: string;
let env: Record<string, string>;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "ogsmith-cli-"));
  env = { OG_DB_PATH: join(dir, "cli.db") };
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("operator CLI", () => {
  test("accounts create/show/update/list and keys replace", async () => {
    const created = await runCli(["accounts", "create", "--email", "ops@example.com", "--plan", "starter", "--json"], env);
    expect(created.code).toBe(0);
    const { account_id, api_key } = JSON.parse(created.stdout) as { account_id: string; api_key: string };
    expect(account_id).toMatch(/^acc_/);
    expect(api_key).toMatch(/^og_[A-Za-z0-9]{32}$/);

    const shown = JSON.parse((await runCli(["accounts", "show", account_id, "--json"], env)).stdout);
    expect(shown).toMatchObject({ id: account_id, plan: "starter", status: "active", quota: 500, requests_per_second: 5, key_prefix: api_key.slice(0, 7) });
    expect(shown.usage).toMatchObject({ used: 0, quota: 500 });
    expect(JSON.stringify(shown)).not.toContain(api_key);

    const updated = JSON.parse((await runCli(["accounts", "update", account_id, "--plan", "custom", "--quota", "42", "--rps", "7", "--status", "past_due", "--json"], env)).stdout);
    expect(updated).toMatchObject({ plan: "custom", quota: 42, requests_per_second: 7, status: "past_due" });

    const list = await runCli(["accounts", "list"], env);
    expect(list.stdout).toContain(account_id);
    expect(list.stdout).toContain("past_due");

    const replaced = JSON.parse((await runCli(["keys", "replace", account_id, "--json"], env)).stdout);
    expect(replaced.api_key).toMatch(/^og_/);
    expect(replaced.api_key).not.toBe(api_key);
    const after = JSON.parse((await runCli(["accounts", "show", account_id, "--json"], env)).stdout);
    expect(after.key_prefix).toBe(replaced.api_key.slice(0, 7));
  });

  test("bad input: one clear line and a non-zero exit, nothing written", async () => {
    const bad = await runCli(["accounts", "create", "--email", "nope", "--plan", "gold"], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("email");
    expect(bad.stderr).toContain("plan");
    const custom = await runCli(["accounts", "create", "--email", "a@example.com", "--plan", "custom"], env);
    expect(custom.stderr).toContain("quota: is required for the custom plan");
    const missing = await runCli(["accounts", "show", "acc_nope"], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("No account with id acc_nope");
  });

  test("bad configuration stops start-up with one clear line", async () => {
    for (const [name, value, expected] of [
      ["PORT", "eighty", "PORT must be a whole number"],
      ["OG_TEST_CLOCK", "maybe", "OG_TEST_CLOCK must be a boolean"],
      ["OG_TEMPLATES_DIR", "/nonexistent/dir", "OG_TEMPLATES_DIR is not a readable directory"],
      ["SMTP_URL", "http://mail", "SMTP_URL must use smtp: or smtps:"],
    ] as const) {
      const res = await runCli(["serve"], { ...env, [name]: value });
      expect(res.code).toBe(2);
      const lines = res.stderr.trim().split("\n");
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(expected);
    }
  });

  test("serve bootstraps one free account on an empty database, once", async () => {
    const dbEnv = { OG_DB_PATH: join(dir, "boot.db"), PORT: "0", HOST: "127.0.0.1" };
    for (const expectKey of [true, false]) {
      const proc = Bun.spawn(["bun", `${REPO_ROOT}/src/main.ts`, "serve"], { env: { ...process.env, ...dbEnv }, stdout: "pipe", stderr: "pipe" });
      const { text } = await waitForOutput(proc.stdout, /"msg":"listening"/);
      expect(/API key: og_[A-Za-z0-9]{32}/.test(text)).toBe(expectKey);
      proc.kill("SIGTERM");
      expect(await proc.exited).toBe(0);
    }
  });
});
