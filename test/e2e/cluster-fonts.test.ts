/**
 * Account fonts across instances: three `ogsmith serve` processes on one throwaway PostgreSQL.
 * A font uploaded on A draws on B at once (B's render process gets the file from B, which reads
 * it from the store); replaced on C, B draws the new face at once; deleted on A, B answers 400
 * naming the family. No waiting: each step's first request must see it.
 */
import { describe, expect, test } from "bun:test";
import { inkIn, pixelFont } from "../support/fonts.ts";
import { decodePng } from "../support/png.ts";
import { postgresAvailable } from "../support/postgres.ts";
import { useThreeInstances } from "../support/three-instances.ts";

const ADMIN = "cluster-fonts-admin-token-0123456789";
const available = postgresAvailable();
if (!available) console.warn("PostgreSQL is not installed: the cluster font tests skip (apt-get install postgresql)");
const maybe = available || process.env.CI === "true" ? describe : describe.skip;

maybe("account fonts on three instances over one PostgreSQL", () => {
  const cluster = useThreeInstances({ adminToken: ADMIN, email: "cluster-fonts@example.com", env: { OG_RENDER_WORKERS: "1" } });
  const urls = cluster.urls;

  const api = (url: string, path: string, init: { method?: string; json?: unknown; body?: FormData } = {}) =>
    fetch(url + path, {
      method: init.method ?? (init.json === undefined && init.body === undefined ? "GET" : "POST"),
      headers: { "x-api-key": cluster.key, ...(init.json === undefined ? {} : { "content-type": "application/json" }) },
      body: init.body ?? (init.json === undefined ? undefined : JSON.stringify(init.json)),
    });
  const upload = (url: string, file: Uint8Array) => {
    const form = new FormData();
    form.set("file", new Blob([file as Uint8Array<ArrayBuffer>]), "brand.otf");
    return api(url, "/api/fonts", { body: form });
  };
  const generate = (url: string) => api(url, "/api/generate", { json: { template: "brand", title: "Cluster", width: 600, height: 315 } });
  async function ink(res: Response): Promise<number> {
    expect(res.status).toBe(200);
    const png = decodePng(new Uint8Array(await res.arrayBuffer()));
    return inkIn(png.pixels, png.width, { x: 0, y: 0, w: png.width, h: png.height });
  }

  test("upload on A, draw on B at once; replace on C, B draws the new face; delete on A, B answers 400", async () => {
    const [a, b, c] = urls as [string, string, string];
    expect((await upload(a, pixelFont("Cluster Brand"))).status).toBe(201);
    const template = {
      id: "brand",
      html: '<div style="display:flex;width:100%;height:100%;padding:40px;background:#ffffff;color:#000000;font-size:96px;font-family:Cluster Brand">{{title}}</div>',
      fields: [{ name: "title", type: "text", required: true }],
    };
    expect((await api(c, "/api/templates", { json: template })).status).toBe(201);
    expect((await api(b, "/api/templates", { json: { ...template, id: "plain", html: template.html.replace(";font-family:Cluster Brand", "") } })).status).toBe(
      201,
    );
    const plain = await ink(await api(b, "/api/generate", { json: { template: "plain", title: "Cluster", width: 600, height: 315 } }));
    const filled = await ink(await generate(b));
    expect(filled).toBeGreaterThan(plain * 2);

    const replaced = (await (await upload(c, pixelFont("Cluster Brand", { hollow: true }))).json()) as { id: string };
    expect(await ink(await generate(b))).toBeLessThan(filled * 0.8);

    expect((await api(a, `/api/fonts/${replaced.id}`, { method: "DELETE" })).status).toBe(200);
    const gone = await generate(b);
    expect(gone.status).toBe(400);
    expect(JSON.stringify(await gone.json())).toContain("Cluster Brand");
  });
});
