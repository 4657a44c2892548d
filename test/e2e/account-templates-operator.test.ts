/**
 * An account template and an operator template (OG_TEMPLATES_DIR) of the same id: an account
 * cannot take an operator's id (409; PUT is 403), but when the operator adds an id an account
 * already uses, that account keeps its own template — listed, rendered and updated — while every
 * other account gets the operator's. Two starts of the service on one store (SQLite file, or
 * PostgreSQL with OG_TEST_STORE=postgres).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestService, type TestService } from "../support/harness.ts";
import { decodePng, pixelAt } from "../support/png.ts";

const OPERATOR_CARD = `/** @jsxImportSource ogsmith */
export default {
  id: "quote",
  description: "An operator's quote card, on orange.",
  fields: [{ name: "title", type: "text", required: true }],
  render(fields, ctx) {
    return <div style={{ display: "flex", width: ctx.width, height: ctx.height, backgroundColor: "#FF6600", color: "#000000", fontSize: 40 }}>{fields.title}</div>;
  },
};
`;

const accountCard = {
  id: "quote",
  name: "Our quote card",
  html: '<div style="display:flex;width:100%;height:100%;background:#ff0000;color:#ffffff"><h1>{{title}}</h1></div>',
  fields: [{ name: "title", type: "text", required: true }],
};

let dir: string;
let s: TestService;
let owner: string;
let other: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ogsmith-operator-clash-"));
  const dbPath = join(dir, "ogsmith.db");
  const first = await startTestService({ OG_DB_PATH: dbPath });
  const roomy = { plan: "custom", quota: 1000, requests_per_second: 1000 };
  owner = (await first.createAccount(roomy)).apiKey;
  other = (await first.createAccount(roomy)).apiKey;
  expect((await first.api("/api/templates", { key: owner, json: accountCard })).status).toBe(201);
  await first.stop();

  // The operator adds a template with the same id, and the service starts again on the same store.
  const templatesDir = join(dir, "templates");
  mkdirSync(templatesDir);
  writeFileSync(join(templatesDir, "quote.tsx"), OPERATOR_CARD);
  s = await startTestService({ OG_DB_PATH: dbPath, OG_TEMPLATES_DIR: templatesDir });
}, 60_000);
afterAll(async () => {
  await s?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function corner(res: Response): Promise<number[]> {
  expect(res.status).toBe(200);
  return pixelAt(decodePng(new Uint8Array(await res.arrayBuffer())), 4, 4).slice(0, 3);
}
const generate = (key: string) => s.api("/api/generate", { key, json: { template: "quote", title: "Hello", width: 400, height: 210 } });
const listed = async (key: string) =>
  ((await (await s.api("/api/templates", { key })).json()).data as { id: string; source: string }[]).filter((t) => t.id === "quote");

describe("an operator template added under an id an account already uses", () => {
  test("the account keeps its own: listed once as its own, rendered, and updated", async () => {
    expect(await listed(owner)).toEqual([expect.objectContaining({ id: "quote", source: "account", version: 1 })]);
    expect(await corner(await generate(owner))).toEqual([255, 0, 0]);
    const updated = await s.api("/api/templates/quote", { key: owner, method: "PUT", json: { ...accountCard, name: "Our quote card, v2" } });
    expect(updated.status).toBe(200);
    expect((await updated.json()).version).toBe(2);
  });

  test("every other account gets the operator's, and cannot take or change the id", async () => {
    expect(await listed(other)).toEqual([expect.objectContaining({ id: "quote", source: "operator" })]);
    expect(await corner(await generate(other))).toEqual([255, 102, 0]);
    const create = await s.api("/api/templates", { key: other, json: accountCard });
    expect(create.status).toBe(409);
    expect((await create.json()).code).toBe("CONFLICT");
    const put = await s.api("/api/templates/quote", { key: other, method: "PUT", json: accountCard });
    expect(put.status).toBe(403);
    expect((await put.json()).code).toBe("FORBIDDEN");
  });

  test("once the account deletes its own, it gets the operator's too", async () => {
    expect((await s.api("/api/templates/quote", { key: owner, method: "DELETE" })).status).toBe(200);
    expect(await corner(await generate(owner))).toEqual([255, 102, 0]);
    expect(await listed(owner)).toEqual([expect.objectContaining({ source: "operator" })]);
  });
});
