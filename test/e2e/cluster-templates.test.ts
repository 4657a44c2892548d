/**
 * Account templates across instances: three `ogsmith serve` processes on one throwaway
 * PostgreSQL. A template created on A renders on B at once; an update on C is the latest on A
 * and B at once (version 1 still pinned); deleted on A, it is gone on B at once — by generate,
 * by a signed URL, and from the list. No waiting: each step's first request must see it.
 */
import { describe, expect, test } from "bun:test";
import { buildSignedUrl } from "../../src/signing/index.ts";
import { decodePng, pixelAt } from "../support/png.ts";
import { postgresAvailable } from "../support/postgres.ts";
import { useThreeInstances } from "../support/three-instances.ts";

const ADMIN = "cluster-templates-admin-token-0123456789";
const available = postgresAvailable();
if (!available) console.warn("PostgreSQL is not installed: the cluster template tests skip (apt-get install postgresql)");
const maybe = available || process.env.CI === "true" ? describe : describe.skip;

const card = (colour: string) => ({
  id: "launch",
  name: "Launch",
  html: `<div style="display:flex;width:100%;height:100%;align-items:center;justify-content:center;background:${colour};color:#ffffff"><h1 style="font-size:60px">{{title}}</h1></div>`,
  fields: [{ name: "title", type: "text", required: true }],
});

maybe("account templates on three instances over one PostgreSQL", () => {
  const cluster = useThreeInstances({ adminToken: ADMIN, email: "cluster-templates@example.com" });
  const urls = cluster.urls;

  const api = (url: string, path: string, init: { method?: string; json?: unknown } = {}) =>
    fetch(url + path, {
      method: init.method ?? (init.json === undefined ? "GET" : "POST"),
      headers: { "x-api-key": cluster.key, "content-type": "application/json" },
      body: init.json === undefined ? undefined : JSON.stringify(init.json),
    });
  const generate = (url: string, extra: Record<string, unknown> = {}) =>
    api(url, "/api/generate", { json: { template: "launch", title: "Cluster", width: 400, height: 210, ...extra } });
  async function corner(res: Response): Promise<number[]> {
    expect(res.status).toBe(200);
    return pixelAt(decodePng(new Uint8Array(await res.arrayBuffer())), 4, 4).slice(0, 3);
  }

  test("create on A, render on B at once; update on C, latest on A and B at once; delete on A, gone on B at once", async () => {
    const [a, b, c] = urls as [string, string, string];
    expect((await api(a, "/api/templates", { json: card("#ff0000") })).status).toBe(201);
    expect(await corner(await generate(b))).toEqual([255, 0, 0]);

    const signing = await (await api(b, "/api/signing-keys", { method: "POST" })).json();
    const signed = buildSignedUrl({
      baseUrl: b,
      keyId: signing.id,
      secret: signing.secret,
      template: "launch",
      ext: "png",
      params: { title: "Cluster", width: "400", height: "210" },
    });
    expect(await corner(await fetch(signed))).toEqual([255, 0, 0]);

    const updated = await api(c, "/api/templates/launch", { method: "PUT", json: card("#0000ff") });
    expect((await updated.json()).version).toBe(2);
    expect(await corner(await generate(a))).toEqual([0, 0, 255]);
    expect(await corner(await generate(b))).toEqual([0, 0, 255]);
    expect(await corner(await fetch(signed))).toEqual([0, 0, 255]);
    expect(await corner(await generate(b, { template_version: 1 }))).toEqual([255, 0, 0]);
    expect((await (await api(b, "/api/templates/launch/versions")).json()).data.map((v: { version: number }) => v.version)).toEqual([1, 2]);

    expect((await api(a, "/api/templates/launch", { method: "DELETE" })).status).toBe(200);
    const gone = await generate(b);
    expect(gone.status).toBe(400);
    expect((await gone.json()).code).toBe("UNKNOWN_TEMPLATE");
    const goneUrl = await fetch(signed);
    expect(goneUrl.status).toBe(400);
    expect((await goneUrl.json()).code).toBe("UNKNOWN_TEMPLATE");
    expect((await api(c, "/api/templates/launch")).status).toBe(404);
    expect((await (await api(b, "/api/templates")).json()).data.map((t: { id: string }) => t.id)).not.toContain("launch");
  }, 60_000);
});
