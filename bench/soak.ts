/**
 * Soak: a real `ogsmith serve` child under mixed traffic for minutes, watched for slow leaks.
 *
 *   bun run bench:soak [--minutes 10] [--rate 100] [--prefill 700] [--binary dist/ogsmith]
 *
 * Traffic, paced to `--rate` requests per second over a few accounts: POST /api/generate (most
 * bodies from a small set, so PNG-cache hits; some distinct, so renders), GET /api/user/usage,
 * webhook CRUD and test sends, delivery lists, templates, and dashboard page and JSON reads with
 * a signed-in session. Each account has a webhook on image.generated pointing at a flaky
 * receiver in this process, which answers 500 to some deliveries and holds others past the
 * service's 5 s timeout (both counted as injected).
 *
 * Every 10 s it samples the server's RSS (/proc/<pid>/status, worker threads included), the
 * main thread's JS heap in use (from /metrics), open
 * file descriptors (/proc/<pid>/fd), p50/p99 latency and errors of the requests in that window,
 * pending jobs (from /metrics) and the receiver's counts, and prints a row. The verdict at the
 * end: memory flat (median of the last three samples within 10 % of the median of the first
 * three after warm-up; the PNG cache is filled with `--prefill` distinct renders before the
 * load starts, since its growth to 24 MiB is by design), no descriptor growth
 * (idle count after the run within 5 of the idle count before it), and no errors: every API
 * answer is the expected one and the server logged no error-level line. Injected receiver
 * faults are not errors; they are what the delivery schedule is for.
 */
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";

const { values: args } = parseArgs({
  options: {
    minutes: { type: "string", default: "10" },
    rate: { type: "string", default: "100" },
    interval: { type: "string", default: "10" },
    binary: { type: "string" },
    prefill: { type: "string", default: "700" },
  },
});
const MINUTES = Number(args.minutes);
const RATE = Number(args.rate);
const INTERVAL_S = Number(args.interval);
// Long enough for the PNG and image caches to fill: until then memory grows by design.
const WARM_UP_S = Math.min(120, (MINUTES * 60) / 4);
const ADMIN_TOKEN = "soak-admin-token-0123456789";
const REPO = new URL("..", import.meta.url).pathname;
const ACCOUNTS = 3;

// ---------------------------------------------------------------------------------------------
// The flaky receiver

const injected = { ok: 0, http500: 0, timeout: 0 };
const eventIds = new Set<string>();
const receiver = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  // Idle keep-alive connections are closed after 8 s (a held delivery is 6 s), so after the
  // quiet period at the end every connection the server opened to it should be gone.
  idleTimeout: 8,
  async fetch(request) {
    const body = await request.text();
    const roll = Math.random();
    if (roll < 0.08) {
      injected.http500++;
      return new Response("injected failure", { status: 500 });
    }
    if (roll < 0.1) {
      // Past the service's 5 s delivery timeout.
      injected.timeout++;
      await Bun.sleep(6_000);
      return new Response("too late");
    }
    injected.ok++;
    try {
      eventIds.add((JSON.parse(body) as { id: string }).id);
    } catch {
      // Not an event (cannot happen with this service); counted as delivered anyway.
    }
    return new Response("ok");
  },
});
const hookUrl = (path: string) => `http://127.0.0.1:${receiver.port}${path}`;

// ---------------------------------------------------------------------------------------------
// The server

interface Child {
  url: string;
  pid: number;
  logErrors: string[];
  logWarnings: number;
  stop(): Promise<number>;
}

async function startServer(dir: string): Promise<Child> {
  const command = args.binary ? [args.binary, "serve"] : ["bun", join(REPO, "src/main.ts"), "serve"];
  const proc = Bun.spawn(command, {
    cwd: dir,
    env: {
      ...process.env,
      PORT: "0",
      HOST: "127.0.0.1",
      OG_DB_PATH: join(dir, "soak.db"),
      OG_ADMIN_TOKEN: ADMIN_TOKEN,
      OG_BOOTSTRAP: "false",
      OG_ALLOW_PRIVATE_NETWORKS: "true",
      OG_LOG_LEVEL: "info",
    },
    stdout: "pipe",
    stderr: "inherit",
  });
  const child: Child = {
    url: "",
    pid: proc.pid,
    logErrors: [],
    logWarnings: 0,
    async stop() {
      proc.kill("SIGTERM");
      return Promise.race([
        proc.exited,
        Bun.sleep(15_000).then(() => {
          proc.kill("SIGKILL");
          return -9;
        }),
      ]);
    },
  };
  const { promise: listening, resolve, reject } = Promise.withResolvers<string>();
  const timer = setTimeout(() => reject(new Error("server did not start within 30 s")), 30_000);
  void (async () => {
    const decoder = new TextDecoder();
    let pending = "";
    for await (const chunk of proc.stdout) {
      pending += decoder.decode(chunk, { stream: true });
      const lines = pending.split("\n");
      pending = lines.pop()!;
      for (const line of lines) {
        if (line.includes('"level":"error"')) child.logErrors.push(line.slice(0, 400));
        else if (line.includes('"level":"warn"')) child.logWarnings++;
        const match = /"msg":"listening","url":"([^"]+)"/.exec(line);
        if (match) resolve(match[1]!);
      }
    }
  })();
  child.url = await listening.finally(() => clearTimeout(timer));
  return child;
}

const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? NaN) / 1024;
const openFds = (pid: number) => readdirSync(`/proc/${pid}/fd`).length;
/** TCP sockets of a process by inode: local and remote port, and whether it is listening. */
function tcpSockets(pid: number): Map<string, { local: number; remote: number; listening: boolean }> {
  const sockets = new Map<string, { local: number; remote: number; listening: boolean }>();
  for (const table of ["tcp", "tcp6"]) {
    let text: string;
    try {
      text = readFileSync(`/proc/${pid}/net/${table}`, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length < 10) continue;
      const port = (address: string) => parseInt(address.split(":").at(-1)!, 16);
      sockets.set(cols[9]!, { local: port(cols[1]!), remote: port(cols[2]!), listening: cols[3] === "0A" });
    }
  }
  return sockets;
}

/**
 * Open descriptors by kind, for telling what grew: files by path, TCP sockets by role (the
 * listener, clients' connections to the server, the server's connections to the receiver).
 */
function fdKinds(pid: number, serverPort: number): Map<string, number> {
  const kinds = new Map<string, number>();
  const tcp = tcpSockets(pid);
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    let target: string;
    try {
      target = readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      continue; // closed while listing
    }
    const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
    let kind = target.replace(/:\[\d+\]$/, "");
    if (inode) {
      const socket = tcp.get(inode);
      if (!socket) kind = "socket (not TCP: a pipe or unix socket)";
      else if (socket.listening) kind = "socket: listening";
      else if (socket.local === serverPort) kind = "socket: a client's connection to the server";
      else if (socket.remote === receiver.port) kind = "socket: the server's connection to the receiver";
      else kind = `socket: other TCP (remote port ${socket.remote})`;
    }
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
  }
  return kinds;
}

// ---------------------------------------------------------------------------------------------
// Traffic

interface Account {
  key: string;
  cookie: string;
  hooks: string[];
  creating: number;
  deliveriesHook: string;
}

const current = { latencies: [] as number[], requests: 0, errors: 0, busy: 0 };
const totals = { requests: 0, errors: 0, busy: 0, byAction: new Map<string, number>() };
const errorSamples: string[] = [];
let url = "";

async function call(action: string, path: string, init: RequestInit & { expect: number[] }): Promise<{ status: number; text: string } | undefined> {
  const started = performance.now();
  let failure: string | undefined;
  let answer: { status: number; text: string } | undefined;
  try {
    const res = await fetch(url + path, init);
    answer = { status: res.status, text: await res.text() };
    // Load shedding (render queue full) is the designed answer to overload, not a fault: counted apart.
    if (res.status === 503 && answer.text.includes('"SERVER_BUSY"')) {
      current.busy++;
      totals.busy++;
      answer = undefined;
    } else if (!init.expect.includes(res.status)) failure = `${action}: ${res.status} ${answer.text.slice(0, 200)}`;
  } catch (error) {
    failure = `${action}: ${(error as Error).message}`;
  }
  current.latencies.push(performance.now() - started);
  current.requests++;
  totals.requests++;
  totals.byAction.set(action, (totals.byAction.get(action) ?? 0) + 1);
  if (failure) {
    current.errors++;
    totals.errors++;
    if (errorSamples.length < 20) errorSamples.push(failure);
    return undefined;
  }
  return answer;
}

const json = (body: unknown, headers: Record<string, string> = {}) => ({
  body: JSON.stringify(body),
  headers: { "content-type": "application/json", ...headers },
});
const CACHED_BODIES = Array.from({ length: 5 }, (_, i) => ({
  title: `Soak card ${i}`,
  subtitle: "Mixed traffic, watched for leaks",
  theme: i % 2 ? "light" : "dark",
}));
let distinct = 0;

async function step(account: Account) {
  const roll = Math.random();
  const api = { "x-api-key": account.key };
  const session = { cookie: account.cookie };
  if (roll < 0.4) {
    await call("generate (cached)", "/api/generate", {
      method: "POST",
      ...json(CACHED_BODIES[Math.floor(Math.random() * CACHED_BODIES.length)], api),
      expect: [200],
    });
  } else if (roll < 0.42) {
    await call("generate (distinct)", "/api/generate", {
      method: "POST",
      ...json({ title: `Soak distinct ${distinct++}`, theme: "dark" }, api),
      expect: [200],
    });
  } else if (roll < 0.62) {
    await call("usage", "/api/user/usage", { headers: api, expect: [200] });
  } else if (roll < 0.66) {
    await call("templates", "/api/templates", { headers: api, expect: [200] });
  } else if (roll < 0.7) {
    await call("deliveries", `/api/webhooks/${account.deliveriesHook}/deliveries`, { headers: api, expect: [200] });
  } else if (roll < 0.78) {
    // Webhook CRUD on hooks subscribed to usage events only (they see little traffic). Creates
    // in flight count toward the account's 20, so the bookkeeping reserves a place first.
    const choice = Math.random();
    if (account.hooks.length + account.creating < 4 || (choice < 0.35 && account.hooks.length + account.creating < 12)) {
      account.creating++;
      const res = await call("webhook create", "/api/webhooks", {
        method: "POST",
        ...json({ url: hookUrl(`/crud/${distinct}`), events: ["usage.warning"], secret: "soak-secret-0123456789" }, api),
        expect: [201],
      });
      account.creating--;
      if (res) account.hooks.push((JSON.parse(res.text) as { id: string }).id);
    } else if (account.hooks.length === 0) {
      await call("webhook list", "/api/webhooks", { headers: api, expect: [200] });
    } else if (choice < 0.65) {
      const id = account.hooks[Math.floor(Math.random() * account.hooks.length)]!;
      await call("webhook update", `/api/webhooks/${id}`, {
        method: "PUT",
        ...json({ url: hookUrl(`/crud/u${distinct}`), events: ["usage.warning", "usage.reset"] }, api),
        expect: [200],
      });
    } else {
      const id = account.hooks.splice(Math.floor(Math.random() * account.hooks.length), 1)[0]!;
      await call("webhook delete", `/api/webhooks/${id}`, { method: "DELETE", headers: api, expect: [200] });
    }
    if (Math.random() < 0.3) await call("webhook list", "/api/webhooks", { headers: api, expect: [200] });
  } else if (roll < 0.8) {
    await call("webhook test send", "/api/webhooks/test", { method: "POST", ...json({ webhook_id: account.deliveriesHook }, api), expect: [200] });
  } else {
    const page = ["/dashboard", "/dashboard/api/me", "/dashboard/api/usage", "/dashboard/api/webhooks", "/dashboard/api/templates"][
      Math.floor(Math.random() * 5)
    ]!;
    await call("dashboard read", page, { headers: session, expect: [200] });
  }
}

async function setUpAccount(i: number): Promise<Account> {
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
  const created = await fetch(`${url}/admin/accounts`, {
    method: "POST",
    ...json({ email: `soak${i}@example.com`, plan: "custom", quota: 100_000_000, requests_per_second: 10_000 }, admin),
  });
  if (created.status !== 201) throw new Error(`account: ${created.status} ${await created.text()}`);
  const key = ((await created.json()) as { api_key: string }).api_key;
  const hook = await fetch(`${url}/api/webhooks`, {
    method: "POST",
    ...json(
      { url: hookUrl(`/events/${i}`), events: ["image.generated", "usage.warning", "usage.limit_reached"], secret: "soak-secret-0123456789" },
      { "x-api-key": key },
    ),
  });
  if (hook.status !== 201) throw new Error(`webhook: ${hook.status} ${await hook.text()}`);
  const signIn = await fetch(`${url}/dashboard/api/session`, { method: "POST", ...json({ api_key: key }, { origin: url }) });
  if (signIn.status !== 200) throw new Error(`sign-in: ${signIn.status} ${await signIn.text()}`);
  return { key, cookie: signIn.headers.get("set-cookie")!.split(";")[0]!, hooks: [], creating: 0, deliveriesHook: ((await hook.json()) as { id: string }).id };
}

/** From the server's /metrics: pending jobs (all kinds) and the main thread's JS heap in use. */
async function scrape(): Promise<{ jobs: number; heapMb: number }> {
  const text = await (await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).text();
  let jobs = 0;
  for (const match of text.matchAll(/^ogsmith_jobs_pending\{[^}]*\} (\d+)/gm)) jobs += Number(match[1]);
  const heap = Number(/^ogsmith_nodejs_heap_size_used_bytes (\S+)/m.exec(text)?.[1] ?? NaN);
  return { jobs, heapMb: heap / 1024 / 1024 };
}

// ---------------------------------------------------------------------------------------------

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
const pad = (value: string | number, width: number) => String(value).padStart(width);

interface Sample {
  t: number;
  requests: number;
  p50: number;
  p99: number;
  errors: number;
  busy: number;
  rss: number;
  heap: number;
  fds: number;
  jobs: number;
}

async function main() {
  console.log(
    `soak: ${MINUTES} min at ~${RATE} req/s, ${ACCOUNTS} accounts, warm-up ${WARM_UP_S} s, sample every ${INTERVAL_S} s; ${availableParallelism()} cores, bun ${Bun.version}\n`,
  );
  const dir = mkdtempSync(join(tmpdir(), "ogsmith-soak-"));
  const server = await startServer(dir);
  url = server.url;
  const samples: Sample[] = [];
  let idleFdsBefore = 0;
  let idleFdsAfter = 0;
  let kindsBefore = new Map<string, number>();
  let kindsAfter = new Map<string, number>();
  let exitCode: number | undefined;
  try {
    const accounts = await Promise.all(Array.from({ length: ACCOUNTS }, (_, i) => setUpAccount(i)));
    // Renders wait for the workers to warm up; one request per cached body settles that. Then
    // distinct renders fill the 24 MiB PNG cache, which otherwise grows through the first
    // minutes of the run by design and would read as a leak.
    for (const body of CACHED_BODIES) await fetch(`${url}/api/generate`, { method: "POST", ...json(body, { "x-api-key": accounts[0]!.key }) });
    const prefillStarted = performance.now();
    const prefill = Number(args.prefill);
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (distinct < prefill) {
          const res = await fetch(`${url}/api/generate`, {
            method: "POST",
            ...json({ title: `Soak distinct ${distinct++}`, theme: "dark" }, { "x-api-key": accounts[0]!.key }),
          });
          await res.arrayBuffer();
        }
      }),
    );
    console.log(
      `prefill: ${prefill} distinct renders in ${((performance.now() - prefillStarted) / 1000).toFixed(1)} s, server RSS ${rssMb(server.pid).toFixed(0)} MB\n`,
    );
    await Bun.sleep(1_000);
    idleFdsBefore = openFds(server.pid);
    kindsBefore = fdKinds(server.pid, Number(new URL(url).port));

    const started = performance.now();
    const endAt = started + MINUTES * 60_000;
    // Paced load: each worker starts its next request when its schedule says, not as fast as it can.
    const workers = 16;
    const perWorkerGapMs = (1000 * workers) / RATE;
    const load = Promise.all(
      Array.from({ length: workers }, async (_, w) => {
        let next = performance.now() + Math.random() * perWorkerGapMs;
        while (performance.now() < endAt) {
          const wait = next - performance.now();
          if (wait > 0) await Bun.sleep(wait);
          next += perWorkerGapMs;
          await step(accounts[w % ACCOUNTS]!);
        }
      }),
    );

    console.log(
      "|   t s | requests | req/s | p50 ms | p99 ms | errors | 503 busy | RSS MB | JS heap MB | fds | jobs pending | delivered ok | injected 500 | injected timeout |",
    );
    console.log(
      "|------:|---------:|------:|-------:|-------:|-------:|---------:|-------:|-----------:|----:|-------------:|-------------:|-------------:|-----------------:|",
    );
    const sampler = (async () => {
      let tick = started;
      while (performance.now() < endAt) {
        tick += INTERVAL_S * 1000;
        await Bun.sleep(Math.max(0, tick - performance.now()));
        const sorted = current.latencies.sort((a, b) => a - b);
        const scraped = await scrape();
        const sample: Sample = {
          t: Math.round((performance.now() - started) / 1000),
          requests: current.requests,
          p50: quantile(sorted, 0.5),
          p99: quantile(sorted, 0.99),
          errors: current.errors,
          busy: current.busy,
          rss: rssMb(server.pid),
          fds: openFds(server.pid),
          heap: scraped.heapMb,
          jobs: scraped.jobs,
        };
        current.latencies = [];
        current.requests = 0;
        current.errors = 0;
        current.busy = 0;
        samples.push(sample);
        console.log(
          `| ${pad(sample.t, 5)} | ${pad(sample.requests, 8)} | ${pad((sample.requests / INTERVAL_S).toFixed(0), 5)} | ${pad(sample.p50.toFixed(1), 6)} | ${pad(sample.p99.toFixed(1), 6)} | ${pad(sample.errors, 6)} | ${pad(sample.busy, 8)} | ${pad(sample.rss.toFixed(0), 6)} | ${pad(sample.heap.toFixed(1), 10)} | ${pad(sample.fds, 3)} | ${pad(sample.jobs, 12)} | ${pad(injected.ok, 12)} | ${pad(injected.http500, 12)} | ${pad(injected.timeout, 16)} |`,
        );
      }
    })();
    await Promise.all([load, sampler]);

    // Quiet period: held deliveries end (6 s), idle connections close on both sides (8 s at
    // the receiver, 10 s at the server). Retries scheduled minutes ahead stay pending.
    await Bun.sleep(15_000);
    idleFdsAfter = openFds(server.pid);
    kindsAfter = fdKinds(server.pid, Number(new URL(url).port));
  } finally {
    exitCode = await server.stop();
    receiver.stop(true);
    rmSync(dir, { recursive: true, force: true });
  }

  // Medians of three samples: RSS breathes with garbage collection and renders in flight.
  const median3 = (list: Sample[]) => [...list].sort((a, b) => a.rss - b.rss)[Math.floor(list.length / 2)]!;
  const afterWarmUp = samples.findIndex((s) => s.t >= WARM_UP_S);
  const warm = median3(samples.slice(Math.max(0, afterWarmUp), Math.max(0, afterWarmUp) + 3));
  const last = median3(samples.slice(-3));
  const growth = (last.rss - warm.rss) / warm.rss;
  const memoryFlat = growth <= 0.1;
  const fdsFlat = idleFdsAfter <= idleFdsBefore + 5;
  const noErrors = totals.errors === 0 && server.logErrors.length === 0;
  const check = (ok: boolean) => (ok ? "ok" : "FAILED");
  const allP99 = samples.map((s) => s.p99).sort((a, b) => a - b);
  console.log(`
requests: ${totals.requests} (${[...totals.byAction].map(([a, n]) => `${a} ${n}`).join(", ")})
receiver: ${injected.ok} delivered (${eventIds.size} distinct events), ${injected.http500} injected 500s, ${injected.timeout} injected timeouts; server warnings logged: ${server.logWarnings}
p99 per window: best ${allP99[0]?.toFixed(1)} ms, worst ${allP99.at(-1)?.toFixed(1)} ms; server exit code after SIGTERM: ${exitCode}

verdict:
  JS heap (main thread): ${warm.heap.toFixed(1)} MB → ${last.heap.toFixed(1)} MB (the same samples)
  memory flat:       ${warm.rss.toFixed(0)} MB (median of the 3 samples after the ${WARM_UP_S} s warm-up) → ${last.rss.toFixed(0)} MB (median of the last 3) (${(growth * 100).toFixed(1)} %, limit 10 %)  ${check(memoryFlat)}
  no fd growth:      ${idleFdsBefore} open when idle before the load → ${idleFdsAfter} idle after it (limit +5)  ${check(fdsFlat)}
  no errors:         ${totals.errors} unexpected answers, ${server.logErrors.length} error lines in the server log (injected receiver faults excluded)  ${check(noErrors)}
  load shed:         ${totals.busy} × 503 SERVER_BUSY (render queue full: the box could not keep up with the renders asked of it)`);
  const changed = [...new Set([...kindsBefore.keys(), ...kindsAfter.keys()])].filter((kind) => kindsBefore.get(kind) !== kindsAfter.get(kind));
  for (const kind of changed) console.log(`    fds ${kind}: ${kindsBefore.get(kind) ?? 0} → ${kindsAfter.get(kind) ?? 0}`);
  for (const sample of errorSamples) console.log(`    answer: ${sample}`);
  for (const line of server.logErrors.slice(0, 10)) console.log(`    log: ${line}`);
  process.exit(memoryFlat && fdsFlat && noErrors ? 0 : 1);
}

await main();
