/**
 * The integrator's path: generate a TypeScript client from the served OpenAPI document with
 * openapi-typescript, type-check a small program that uses it (generate saving the bytes, usage,
 * webhook CRUD, account template CRUD with versions and a pinned render; wrong types must not
 * compile), and run it against the real server.
 */
import { afterAll, beforeAll, expect, mock, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startTestService, type TestService } from "../support/harness.ts";
import { decodePng } from "../support/png.ts";
import { REPO_ROOT } from "../support/process.ts";

// openapi-typescript drives the TypeScript 5 compiler API, which TypeScript 7 (the project's
// type checker, a native binary) no longer has: point its "typescript" import at version 5.
const typescript5 = require("typescript5");
mock.module("typescript", () => ({ ...typescript5, default: typescript5 }));
const { default: openapiTS, astToString } = await import("openapi-typescript");

let s: TestService;
let dir: string;
beforeAll(async () => {
  s = await startTestService({ OG_ALLOW_PRIVATE_NETWORKS: "1" });
  // Inside node_modules so the program resolves openapi-fetch and @types/bun like any project would.
  dir = mkdtempSync(join(REPO_ROOT, "node_modules", ".ogsmith-client-"));
});
afterAll(async () => {
  await s.stop();
  rmSync(dir, { recursive: true, force: true });
});

test("a client generated with openapi-typescript type-checks and works against the server", async () => {
  const document = await (await s.api("/openapi.json")).json();
  writeFileSync(join(dir, "schema.d.ts"), astToString(await openapiTS(document as any)));
  const program = readFileSync(join(REPO_ROOT, "test/e2e/fixtures/openapi-client-program.ts"), "utf8").replace(/^\/\/ @ts-nocheck.*$/m, "");
  writeFileSync(join(dir, "program.ts"), program);
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "ESNext",
        module: "Preserve",
        moduleResolution: "bundler",
        lib: ["ESNext", "DOM"],
        types: ["bun"],
        strict: true,
        noEmit: true,
        skipLibCheck: true,
      },
      files: ["program.ts", "schema.d.ts"],
    }),
  );

  const tsc = Bun.spawnSync([process.execPath, "x", "tsc", "-p", join(dir, "tsconfig.json")], { cwd: REPO_ROOT, stdout: "pipe", stderr: "pipe" });
  const tscOutput = tsc.stdout.toString() + tsc.stderr.toString();
  expect(tscOutput).toBe("");
  expect(tsc.exitCode).toBe(0);

  // More calls than a plan's per-second rate, all within one second of the test clock.
  const { apiKey } = await s.createAccount({ plan: "custom", quota: 1000, requests_per_second: 100 });
  const outFile = join(dir, "card.png");
  // Async spawn: the server answering the program runs in this process's event loop.
  const run = Bun.spawn([process.execPath, "run", join(dir, "program.ts")], {
    cwd: dir,
    env: { ...process.env, BASE_URL: s.url, API_KEY: apiKey, OUT_FILE: outFile, HOOK_URL: "http://127.0.0.1:9/hook" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, exitCode] = await Promise.all([new Response(run.stdout).text(), new Response(run.stderr).text(), run.exited]);
  expect(stderr).toBe("");
  expect(exitCode).toBe(0);
  const result = JSON.parse(stdout.trim().split("\n").at(-1)!);
  expect(result.contentType).toBe("image/png");
  expect(result.used).toBe(1);
  expect(result.plan).toBe("custom");
  expect(result.listed).toHaveLength(1);
  expect(result.updatedEvents).toEqual(["image.generated"]);
  expect(result.deliveries).toBe(0);
  expect(result.deleted).toBe(true);
  expect(result.missingStatus).toBe(404);
  expect(result.errorCode).toBe("WEBHOOK_NOT_FOUND");
  expect(result.templateVersions).toEqual([1, 2]);
  expect(result.templateSource).toBe("account");
  expect(result.versionList).toEqual([1, 2]);
  expect(result.readV1Name).toBe("Client card");
  expect(result.listedSources).toEqual(["builtin", "builtin", "account"]);
  expect(result.pinnedStatus).toBe(200);
  expect(result.templateDeleted).toBe(true);
  expect(result.templateMissingCode).toBe("TEMPLATE_NOT_FOUND");
  const png = decodePng(new Uint8Array(readFileSync(outFile)));
  expect([png.width, png.height]).toEqual([600, 315]);
});

test("the @ts-expect-error lines in the program really are type errors (integers are integers, enums are enums)", async () => {
  // Without the directives the two wrong calls must fail to compile: proves the generated types are strict.
  const program = readFileSync(join(dir, "program.ts"), "utf8").replace(/^\s*\/\/ @ts-expect-error.*$/gm, "");
  writeFileSync(join(dir, "program.ts"), program);
  const tsc = Bun.spawnSync([process.execPath, "x", "tsc", "-p", join(dir, "tsconfig.json")], { cwd: REPO_ROOT, stdout: "pipe", stderr: "pipe" });
  const output = tsc.stdout.toString() + tsc.stderr.toString();
  expect(tsc.exitCode).not.toBe(0);
  expect(output).toMatch(/program\.ts\(\d+,\d+\): error/);
  expect(output.match(/error TS/g)?.length).toBe(2);
});
