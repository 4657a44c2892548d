import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli, waitForOutput, REPO_ROOT } from "../support/process.ts";
import { hostTarget } from "../../src/platform.ts";

let dir: string;
let env: Record<string, string>;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ogsmith-cli-"));
  env = { OG_DB_PATH: join(dir, "cli.db") };
  // Operator commands refuse a database file that does not exist unless told to create it.
  expect((await runCli(["accounts", "list", "--create"], env)).code).toBe(0);
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

    const updated = JSON.parse(
      (await runCli(["accounts", "update", account_id, "--plan", "custom", "--quota", "42", "--rps", "7", "--status", "past_due", "--json"], env)).stdout,
    );
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

  test("serve bootstraps one free account on an empty database, once: the key on stderr and in an owner-only file, never in the JSON log", async () => {
    const bootDir = join(dir, "boot");
    mkdirSync(bootDir);
    const dbEnv = { OG_DB_PATH: join(bootDir, "boot.db"), PORT: "0", HOST: "127.0.0.1" };
    const keyFile = join(bootDir, "ogsmith-initial-api-key");
    for (const expectKey of [true, false]) {
      const proc = Bun.spawn(["bun", `${REPO_ROOT}/src/main.ts`, "serve"], { env: { ...process.env, ...dbEnv }, stdout: "pipe", stderr: "pipe" });
      const { rest } = await waitForOutput(proc.stdout, /"msg":"listening"/);
      // The banner follows the listening line: wait for its last line (first run) before stopping.
      const banner = expectKey ? await waitForOutput(proc.stderr, /Raise its plan .*\n/) : undefined;
      proc.kill("SIGTERM");
      await proc.exited;
      const [stdout, stderr] = [await rest(), banner ? await banner.rest() : await new Response(proc.stderr).text()];
      const key = stderr.match(/API key: (og_[A-Za-z0-9]{32})/)?.[1];
      expect(key !== undefined).toBe(expectKey);
      // Every stdout line is JSON, and none carries the key.
      for (const line of stdout.trim().split("\n")) expect(() => JSON.parse(line)).not.toThrow();
      expect(stdout).not.toMatch(/og_[A-Za-z0-9]{32}/);
      if (expectKey) {
        expect(stderr).toContain(`The key is also in ${keyFile}`);
        expect(readFileSync(keyFile, "utf8")).toBe(`${key}\n`);
        expect(statSync(keyFile).mode & 0o777).toBe(0o600);
      } else {
        expect(stderr).not.toContain("API key");
      }
    }
  });

  test("a database file that does not exist is refused loudly, unless --create", async () => {
    const path = join(dir, "elsewhere", "..", "missing.db");
    const refused = await runCli(["accounts", "create", "--email", "x@example.com", "--plan", "free"], { OG_DB_PATH: path });
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe("");
    expect(refused.stderr).toContain(`no database at ${join(dir, "missing.db")}`);
    expect(refused.stderr).toContain("--create");
    for (const line of refused.stderr.trim().split("\n")) expect(line).toStartWith("ogsmith: ");
    expect(existsSync(join(dir, "missing.db"))).toBe(false);

    const created = await runCli(["accounts", "create", "--email", "x@example.com", "--plan", "free", "--create", "--json"], { OG_DB_PATH: path });
    expect(created.code).toBe(0);
    expect(JSON.parse(created.stdout).api_key).toMatch(/^og_/);
    expect(existsSync(join(dir, "missing.db"))).toBe(true);
    // Once it exists, no flag is needed.
    expect((await runCli(["accounts", "list"], { OG_DB_PATH: path })).code).toBe(0);
  });

  test("usage errors exit 2 with the ogsmith: prefix, serve included", async () => {
    for (const args of [["serve", "--bogus"], ["bogus"], ["render", "--nope"], ["accounts"], ["keys", "replace"], ["--port"]]) {
      const res = await runCli(args, env);
      expect(res.code, args.join(" ")).toBe(2);
      const [first] = res.stderr.split("\n\n");
      for (const line of first!.trim().split("\n")) expect(line, args.join(" ")).toStartWith("ogsmith: ");
    }
  });

  test("--licenses prints the third-party notices, whole, with no configuration needed", async () => {
    const notices = readFileSync(join(REPO_ROOT, "THIRD_PARTY_NOTICES.md"), "utf8");
    const res = await runCli(["--licenses"], { PORT: "not even a port" });
    expect({ code: res.code, stderr: res.stderr }).toEqual({ code: 0, stderr: "" });
    expect(res.stdout).toBe(notices);
    // What the binary embeds and the licenses the issue names are all there.
    for (const name of ["Inter", "Noto Sans", "Twemoji", "satori", "resvg", "OFL-1.1", "CC-BY-4.0", "MPL-2.0"]) expect(res.stdout).toContain(name);
    expect((await runCli(["--help"])).stdout).toContain("ogsmith --licenses");
  });

  test("CLI messages name the flags the operator typed, not API fields", async () => {
    const res = await runCli(["accounts", "create", "--email", "flags@example.com", "--plan", "free", "--rps", "5", "--quota", "9"], env);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain("--rps: can only be set for the custom plan");
    expect(res.stderr).toContain("--quota: can only be set for the custom plan");
    expect(res.stderr).not.toContain("requests_per_second");
    for (const line of res.stderr.trim().split("\n")) expect(line).toStartWith("ogsmith: ");
  });

  test("a bad HOST is one clear line and exit 2", async () => {
    const res = await runCli(["serve"], { OG_DB_PATH: join(dir, "host.db"), HOST: "999.1.1.1", PORT: "0" });
    expect(res.code).toBe(2);
    const lines = res.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toStartWith('ogsmith: HOST "999.1.1.1" is not an address');
    expect(res.stdout).not.toContain("API key");
  });

  test("the bootstrap key is not printed when the port is taken", async () => {
    const taken = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("busy") });
    try {
      const res = await runCli(["serve"], { OG_DB_PATH: join(dir, "taken.db"), HOST: "127.0.0.1", PORT: String(taken.port) });
      expect(res.code).toBe(1);
      expect(res.stdout).not.toContain("API key");
      expect(res.stdout).not.toMatch(/og_[A-Za-z0-9]{32}/);
      expect(
        res.stderr
          .trim()
          .split("\n")
          .filter((line) => !line.startsWith("{")),
      ).toEqual([
        `ogsmith: cannot listen on 127.0.0.1:${taken.port}: the port is already in use. Stop the other process or choose another port (PORT or --port).`,
      ]);
    } finally {
      taken.stop(true);
    }
  });

  test("the bootstrap banner's hint is a command that works after the quick start", async () => {
    const dbEnv = { OG_DB_PATH: join(dir, "hint.db"), PORT: "0", HOST: "127.0.0.1" };
    // The banner is on stderr, apart from the JSON log.
    const proc = Bun.spawn(["bun", "run", "start"], { cwd: REPO_ROOT, env: { ...process.env, ...dbEnv }, stdout: "ignore", stderr: "pipe" });
    const { text } = await waitForOutput(proc.stderr, /Set the alert address with: .+ you@example\.com/);
    // (Its exit status is not the subject: SIGTERM may come before the handler is in place.)
    proc.kill("SIGTERM");
    await proc.exited;
    const hint = text.match(/Set the alert address with: (.+) you@example\.com/);
    expect(hint).not.toBeNull();
    expect(hint![1]).toStartWith("bun run ogsmith accounts update acc_");
    const argv = [...hint![1]!.split(" "), "owner@example.com"];
    const run = Bun.spawn(argv, { cwd: REPO_ROOT, env: { ...process.env, ...dbEnv }, stdout: "pipe", stderr: "pipe" });
    const [stdout, code] = await Promise.all([new Response(run.stdout).text(), run.exited]);
    expect(code).toBe(0);
    expect(stdout).toContain("owner@example.com");
  });

  test("the bootstrap banner says how to raise the first account's free plan, in one command that works as printed", async () => {
    const dbEnv = { OG_DB_PATH: join(dir, "plan.db"), PORT: "0", HOST: "127.0.0.1" };
    // Both streams in one: the banner is for the operator's terminal, whichever stream carries it.
    const proc = Bun.spawn(["sh", "-c", `exec bun ${REPO_ROOT}/src/main.ts serve 2>&1`], { cwd: REPO_ROOT, env: { ...process.env, ...dbEnv }, stdout: "pipe" });
    const { text } = await waitForOutput(proc.stdout, /Raise its plan .* --plan pro\n/);
    proc.kill("SIGTERM");
    await proc.exited;
    expect(text).toContain("Raise its plan (free: 25 images a month, 1 request a second) with: ");
    // The database is not the default one: the command names it, so it works in a shell without the server's OG_DB_PATH.
    const hint = text.match(/Raise its plan .* with: (bun run ogsmith accounts update (acc_\w+) --db (\S+) --plan pro)\n/);
    expect(hint).not.toBeNull();
    expect(hint![3]).toBe(dbEnv.OG_DB_PATH);
    const { OG_DB_PATH: _, ...shell } = process.env;
    const run = Bun.spawn(hint![1]!.split(" "), { cwd: REPO_ROOT, env: shell, stdout: "pipe", stderr: "pipe" });
    const [code, stderr] = await Promise.all([run.exited, new Response(run.stderr).text()]);
    expect({ code, stderr: code === 0 ? "" : stderr }).toEqual({ code: 0, stderr: "" });
    const shown = JSON.parse((await runCli(["accounts", "show", hint![2]!, "--json"], dbEnv)).stdout);
    expect(shown).toMatchObject({ plan: "pro", quota: 2000, requests_per_second: 10 });
  });

  test("--version prints package.json's version, the platform and the engines without loading the server", async () => {
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { version: string };
    const res = await runCli(["--version"]);
    expect(res.code).toBe(0);
    // From source the platform is the machine's; both engines' native modules are installed.
    expect(res.stdout.trim()).toBe(`ogsmith ${pkg.version} (${hostTarget()}; engines: satori+resvg, takumi)`);
    // main.ts imports the server, the database and the renderer only inside the commands that use them.
    const staticImports = new Bun.Transpiler({ loader: "ts" }).scanImports(readFileSync(join(REPO_ROOT, "src/main.ts"), "utf8").replace(/^#!.*\n/, ""));
    const paths = staticImports.filter((i) => i.kind === "import-statement").map((i) => i.path);
    // protocol.ts holds the render-process argument and message types only (no runtime imports).
    expect(paths.sort()).toEqual([
      "./cli/listen.ts",
      "./cli/output.ts",
      "./config.ts",
      "./errors.ts",
      "./render/sandbox/protocol.ts",
      "./version.ts",
      "node:util",
    ]);
  });
});
