/**
 * Store and Redis round trips per request, counted on the wire for one instance on PostgreSQL +
 * Redis:
 *
 *   bun bench/round-trips.ts
 *
 * The instance reaches PostgreSQL through a counting proxy in this process: every Sync or simple
 * Query message the client sends is one round trip (the protocol answers each with
 * ReadyForQuery). Redis's own `INFO commandstats` counts the scripts clients ran (ogsmith sends
 * Redis nothing else on these paths). Each path is sent REQUESTS times one after the other,
 * then REQUESTS times by 16 concurrent loops, after a warm-up (the key cached and validated, the image
 * cached, the signed URL counted); the background work of the same wall time with no requests
 * (liveness, job polling) is measured and subtracted.
 */
import type { Socket } from "bun";
import Redis from "ioredis";

import { buildSignedUrl } from "../src/signing/index.ts";
import { startPostgres, testDatabaseUrl } from "../test/support/postgres.ts";
import { startRedis } from "../test/support/redis.ts";

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 400);
const CONCURRENCY = 16;
const ADMIN = "bench-round-trips-admin-token-0123456789";
const REPO = new URL("..", import.meta.url).pathname;

const [pg, redisServer] = await Promise.all([startPostgres(), startRedis()]);
const databaseUrl = await testDatabaseUrl(pg);

/** Round trips the proxied clients started (Sync or Query messages sent). */
let pgTrips = 0;
interface Pipe {
  upstream?: Socket<undefined>;
  pending: Uint8Array[];
  buffer: Uint8Array;
  started: boolean;
}
/** Counts the typed messages of a client's stream; the untyped ones (SSL request, startup) come first. */
function countMessages(pipe: Pipe, chunk: Uint8Array): void {
  const joined = new Uint8Array(pipe.buffer.length + chunk.length);
  joined.set(pipe.buffer);
  joined.set(chunk, pipe.buffer.length);
  let at = 0;
  for (;;) {
    if (!pipe.started) {
      if (joined.length - at < 8) break;
      const view = new DataView(joined.buffer, joined.byteOffset + at);
      const length = view.getUint32(0);
      if (joined.length - at < length) break;
      if (view.getUint32(4) === 196608) pipe.started = true; // protocol 3.0: the startup message
      at += length;
      continue;
    }
    if (joined.length - at < 5) break;
    const length = new DataView(joined.buffer, joined.byteOffset + at + 1).getUint32(0);
    if (joined.length - at < 1 + length) break;
    const type = String.fromCharCode(joined[at]!);
    if (type === "S" || type === "Q") pgTrips++;
    at += 1 + length;
  }
  pipe.buffer = joined.slice(at);
}
const proxy = Bun.listen<Pipe>({
  hostname: "127.0.0.1",
  port: 0,
  socket: {
    async open(client) {
      const pipe: Pipe = { pending: [], buffer: new Uint8Array(0), started: false };
      client.data = pipe;
      pipe.upstream = await Bun.connect({
        hostname: "127.0.0.1",
        port: pg.port,
        socket: {
          data: (_, data) => void client.write(data),
          close: () => {
            client.end();
          },
          error: () => {
            client.end();
          },
        },
      });
      for (const chunk of pipe.pending) pipe.upstream.write(chunk);
    },
    data(client, data) {
      countMessages(client.data, data);
      if (client.data.upstream) client.data.upstream.write(data);
      else client.data.pending.push(new Uint8Array(data));
    },
    close: (client) => {
      client.data.upstream?.end();
    },
  },
});

const redis = new Redis(redisServer.url);
async function redisCalls(): Promise<number> {
  const stats = await redis.info("commandstats");
  let calls = 0;
  // Only what clients send: the commands a script runs are counted under their own names too.
  for (const match of stats.matchAll(/^cmdstat_(\w+):calls=(\d+)/gm)) if (["evalsha", "eval"].includes(match[1]!)) calls += Number(match[2]);
  return calls;
}

const proc = Bun.spawn(["bun", `${REPO}src/main.ts`, "serve"], {
  cwd: REPO,
  env: {
    ...process.env,
    PORT: "0",
    HOST: "127.0.0.1",
    OG_ADMIN_TOKEN: ADMIN,
    OG_BOOTSTRAP: "false",
    OG_LOG_LEVEL: "info",
    OG_DATABASE_URL: databaseUrl.replace(`:${pg.port}/`, `:${proxy.port}/`),
    OG_REDIS_URL: redisServer.url,
  },
  stdin: "ignore",
  stdout: "pipe",
  stderr: "inherit",
});
let text = "";
const reader = proc.stdout.getReader();
while (!text.includes('"msg":"listening"')) {
  const { value, done } = await reader.read();
  if (done) throw new Error(`instance did not start: ${text}`);
  text += new TextDecoder().decode(value);
}
void (async () => {
  while (!(await reader.read()).done) {}
})();
const url = text.match(/"msg":"listening","url":"([^"]+)"/)![1]!;

const created = await fetch(`${url}/admin/accounts`, {
  method: "POST",
  headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
  body: JSON.stringify({ email: "trips@example.com", plan: "custom", quota: 10_000_000, requests_per_second: 10_000 }),
});
const apiKey = ((await created.json()) as { api_key: string }).api_key;
const headers = { "x-api-key": apiKey, "content-type": "application/json" };
const signing = (await (await fetch(`${url}/api/signing-keys`, { method: "POST", headers })).json()) as { id: string; secret: string };
const signedUrl = buildSignedUrl({ baseUrl: url, keyId: signing.id, secret: signing.secret, template: "event", ext: "png", params: { title: "Round trips" } });

const paths: [string, () => Promise<Response>][] = [
  ["GET /api/user/usage", () => fetch(`${url}/api/user/usage`, { headers })],
  ["POST /api/generate, cached body", () => fetch(`${url}/api/generate`, { method: "POST", headers, body: JSON.stringify({ title: "Round trips, cached" }) })],
  ["GET /i/… (counted this month)", () => fetch(signedUrl)],
];

/** Round trips during `body`, less the background's over the same wall time. */
async function trips(body: () => Promise<void>): Promise<{ pg: number; redis: number }> {
  const [pg0, r0, t0] = [pgTrips, await redisCalls(), performance.now()];
  await body();
  const [pg1, r1, elapsed] = [pgTrips, await redisCalls(), performance.now() - t0];
  const [pg2, r2] = [pgTrips, await redisCalls()];
  await Bun.sleep(elapsed);
  const [pg3, r3] = [pgTrips, await redisCalls()];
  return { pg: pg1 - pg0 - (pg3 - pg2), redis: r1 - r0 - (r3 - r2) };
}

console.log(`\nround trips per request, ${REQUESTS} sequential requests each (after a warm-up):\n`);
console.log(`| path | PostgreSQL, one at a time | Redis, one at a time | PostgreSQL, ${CONCURRENCY} at a time | Redis, ${CONCURRENCY} at a time |`);
console.log("|---|---:|---:|---:|---:|");
for (const [name, send] of paths) {
  for (let i = 0; i < 3; i++) await (await send()).arrayBuffer();
  const loop = (requests: number) => async () => {
    for (let i = 0; i < requests; i++) {
      const res = await send();
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`${name}: ${res.status}`);
    }
  };
  const serial = await trips(loop(REQUESTS));
  const concurrent = await trips(async () => {
    await Promise.all(Array.from({ length: CONCURRENCY }, loop(REQUESTS / CONCURRENCY)));
  });
  const per = (n: number) => (n / REQUESTS).toFixed(2);
  console.log(`| ${name} | ${per(serial.pg)} | ${per(serial.redis)} | ${per(concurrent.pg)} | ${per(concurrent.redis)} |`);
}

proc.kill("SIGTERM");
await proc.exited;
redis.disconnect();
proxy.stop(true);
await redisServer.stop();
await pg.stop();
process.exit(0);
