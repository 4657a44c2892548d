/**
 * docs/ is the contract, so it must not fall behind the code: every error code the service can
 * answer is in docs/api.md with its status, and every environment variable config.ts reads is
 * in docs/operations.md. (The other direction is allowed: the docs may describe what is being
 * built before it lands.)
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { errorStatus } from "../../../src/errors.ts";
import { REPO_ROOT } from "../../support/process.ts";

const doc = (name: string) => readFileSync(join(REPO_ROOT, "docs", name), "utf8");

describe("docs/api.md", () => {
  const api = doc("api.md");
  test("lists every error code with its status", () => {
    const missing = Object.entries(errorStatus)
      .filter(([code, status]) => !new RegExp(`^\\| ${status} \\| \`${code}\` \\|`, "m").test(api))
      .map(([code, status]) => `${status} ${code}`);
    expect(missing).toEqual([]);
  });
});

describe("docs/operations.md", () => {
  const operations = doc("operations.md");
  test("documents every environment variable config.ts reads", () => {
    const source = readFileSync(join(REPO_ROOT, "src", "config.ts"), "utf8");
    const names = new Set([...source.matchAll(/"((?:OG|SMTP)_[A-Z_]+|PORT|HOST)"/g)].map((m) => m[1]!));
    expect(names.size).toBeGreaterThan(10);
    expect([...names].filter((name) => !operations.includes(`\`${name}\``))).toEqual([]);
  });
});
