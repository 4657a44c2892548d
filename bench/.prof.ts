import { buildSignedUrl } from "../src/signing/index.ts";
import { startPostgres, testDatabaseUrl } from "../test/support/postgres.ts";
import { startRedis } from "../test/support/redis.ts";
const ADMIN = "bench-prof-admin-token-0123456789";
const PHASE = process.env.PHASE ?? "signed";
const [pg, redis] = await Promise.all([startPostgres(), startRedis()]);
const env = process.env.SQLITE ? { OG_DB_PATH: "/tmp/cs-prof/db.sqlite" } : { OG_DATABASE_URL: await testDatabaseUrl(pg), OG_REDIS_URL: redis.url };
const proc = Bun.spawn(["bun", "--cpu-prof", "--cpu-prof-dir=/tmp/cs-prof2", "src/main.ts", "serve"], {
  env: { ...process.env, PORT: "0", HOST: "127.0.0.1", OG_ADMIN_TOKEN: ADMIN, OG_BOOTSTRAP: "false", OG_LOG_LEVEL: "info", ...env },
  stdout: "pipe", stderr: "inherit",
});
let text = ""; const reader = proc.stdout.getReader();
while (!text.includes('"msg":"listening"')) { const { value } = await reader.read(); text += new TextDecoder().decode(value); }
void (async () => { while (!(await reader.read()).done) {} })();
const url = text.match(/"msg":"listening","url":"([^"]+)"/)![1]!;
const created = await fetch(`${url}/admin/accounts`, { method: "POST", headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" }, body: JSON.stringify({ email: "p@example.com", plan: "custom", quota: 10_000_000, requests_per_second: 10_000 }) });
const apiKey = ((await created.json()) as { api_key: string }).api_key;
const headers = { "x-api-key": apiKey, "content-type": "application/json" };
const sk = (await (await fetch(`${url}/api/signing-keys`, { method: "POST", headers })).json()) as { id: string; secret: string };
const signed = buildSignedUrl({ baseUrl: url, keyId: sk.id, secret: sk.secret, template: "event", ext: "png", params: { title: "prof" } });
const send = PHASE === "signed" ? () => fetch(signed) : PHASE === "usage" ? () => fetch(`${url}/api/user/usage`, { headers }) : () => fetch(`${url}/api/generate`, { method: "POST", headers, body: JSON.stringify({ title: "prof cached" }) });
await (await send()).arrayBuffer();
let done = 0; const end = performance.now() + 4000;
await Promise.all(Array.from({ length: 16 }, async () => { while (performance.now() < end) { const r = await send(); await r.arrayBuffer(); if (r.status === 200) done++; } }));
console.log(PHASE, process.env.SQLITE ? "sqlite" : "pg", done / 4, "req/s");
proc.kill("SIGTERM"); await proc.exited; await redis.stop(); await pg.stop(); process.exit(0);
