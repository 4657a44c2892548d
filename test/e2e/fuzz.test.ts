/**
 * Property-based fuzzing of the whole HTTP surface (fast-check, fixed seed): every route the app
 * registers, called with generated methods, paths, headers (API-key variants, admin tokens,
 * content types, cookies, origins, Host) and bodies (shaped for the route, arbitrary JSON,
 * garbage bytes, oversized, chunked), plus requests written straight onto a socket (no Host,
 * odd methods and targets, bad versions, huge headers, lying lengths). For every case:
 *
 * - no 5xx except 503;
 * - every response carries X-Request-Id, and every 4xx/5xx is the JSON envelope whose code has
 *   that status; a socket request the app never saw is one of the runtime's own documented
 *   refusals (400/431/505 with no body, or a closed connection), and only for a request that
 *   has one of the defects that earn it;
 * - `used` changes only on a 200 from /api/generate (by exactly one);
 * - the process keeps answering /healthz.
 *
 * `OG_FUZZ_RUNS` (default 4000 HTTP cases, about 70 per route, a quarter as many socket cases) and `OG_FUZZ_SEED`
 * make a longer or different run: `OG_FUZZ_RUNS=100000 bun test test/e2e/fuzz.test.ts`.
 * Renders are the slow part, so bodies that could render on a key with quota left come from a
 * few fixed values (the PNG cache answers after the first) and everything else random on such
 * a key carries an unknown field, which validation always refuses.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { canonicalQuery, sign } from "../../src/signing/index.ts";
import fc from "fast-check";
import { errorStatus } from "../../src/errors.ts";
import { bodyLimitOf } from "../../src/http/body.ts";
import { pixelFont } from "../support/fonts.ts";
import { ADMIN_TOKEN, startTestService, type TestService } from "../support/harness.ts";
import { rawRequest, type RawResponse } from "../support/raw-http.ts";
import { startReceiver, type TestReceiver } from "../support/receiver.ts";
import { waitFor } from "../support/wait.ts";

const RUNS = Number(process.env.OG_FUZZ_RUNS ?? 4000);
const RAW_RUNS = Math.max(50, Math.round(RUNS / 4));
const SEED = Number(process.env.OG_FUZZ_SEED ?? 1313);
// Generous per-case allowance on a loaded 2-core box; the default run takes far less.
const TIMEOUT_MS = 120_000 + (RUNS + RAW_RUNS) * 40;

let s: TestService;
let receiver: TestReceiver;
const keys: Record<string, string> = {};
const ids: Record<string, string> = {};
let cookie = "";
let routes: { method: string; path: string }[] = [];
/** The signing key (of the "signer" account) that signs public image paths. */
let signer: { id: string; secret: string } | undefined;
/** Webhook ids seen in answers (created by the fuzz itself), for `:id` parameters. */
const webhookIds: string[] = [];
/** One of the webhook ids known when the case is generated (the list grows as the fuzz creates some). */
const knownWebhookId = fc.nat().map((i) => webhookIds[i % webhookIds.length]!);
/** Signing key ids of `main` (some deleted by the fuzz as it goes), for the signing-key routes' `:id`. */
const signingKeyIds: string[] = [];
/** A batch and a font of `main`'s (made by the setup), for the batch and font routes' `:id`. */
const batchIds: string[] = [];
const fontIds: string[] = [];
/** Account template ids `main` has (created by the setup and the fuzz), for the template routes' `:id`. */
const templateIds = ["fuzzcard"];
/** The starter designs shipped in the binary, for the dashboard's starter routes. */
const STARTER_IDS = readdirSync(join(import.meta.dir, "../../templates/starters"))
  .filter((f) => f.endsWith(".json"))
  .map((f) => f.slice(0, -5));
const knownTemplateId = fc.nat().map((i) => templateIds[i % templateIds.length]!);
const statusCounts = new Map<string, number>();
/** Statuses each route answered in the HTTP cases (route pattern → statuses). */
const coverage = new Map<string, Set<number>>();
let clientRefused = 0;

/** A 1×1 PNG as a data URI: a valid image field that needs no network. */
const PNG_1X1 = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

async function signIn(): Promise<string> {
  const attempt = () =>
    fetch(`${s.url}/dashboard/api/session`, {
      method: "POST",
      headers: { origin: s.url, "content-type": "application/json" },
      body: JSON.stringify({ api_key: keys.main }),
    });
  let res = await attempt();
  // The fuzz's own sign-in attempts (and its failed ones with random keys) use up the per-client
  // and per-key attempt limits: wait out the window on the test clock, as a person would.
  if (res.status === 429) {
    await s.advance(Number(res.headers.get("retry-after")));
    res = await attempt();
  }
  if (res.status !== 200) throw new Error(`sign-in failed: ${res.status}`);
  return res.headers.get("set-cookie")!.split(";")[0]!;
}

beforeAll(async () => {
  receiver = await startReceiver();
  receiver.respond({ status: 500 }, "/fail");
  receiver.respond({ status: 200, delayMs: 50 }, "/slow");
  // Private networks allowed so webhooks and image URLs can point at the loopback receiver.
  s = await startTestService({ OG_ALLOW_PRIVATE_NETWORKS: "1", OG_RENDER_WORKERS: "1" });
  const make = async (name: string, input: Parameters<TestService["createAccount"]>[0]) => {
    const { accountId, apiKey } = await s.createAccount({ email: `${name}@example.com`, ...input });
    keys[name] = apiKey;
    ids[name] = accountId;
  };
  await make("main", { plan: "custom", quota: 100_000_000, requests_per_second: 10_000 });
  await make("exhausted", { plan: "custom", quota: 1, requests_per_second: 10_000 });
  await make("canceled", { plan: "starter", status: "canceled" });
  await make("pastDue", { plan: "starter", status: "past_due" });
  await make("limited", { plan: "free" });
  // The admin routes' `:id`: these two may be patched and re-keyed by the fuzz at will.
  await make("spare", { plan: "free" });
  await make("other", { plan: "starter" });
  const used = await s.api("/api/generate", { key: keys.exhausted, json: { title: "Fuzz A" } });
  expect(used.status).toBe(200);
  const otherHook = await s.api("/api/webhooks", { key: keys.other, json: { url: receiver.url("/ok"), events: ["image.generated"], secret: "s".repeat(16) } });
  webhookIds.push(((await otherHook.json()) as { id: string }).id);
  for (const path of ["/ok", "/fail"]) {
    const hook = await s.api("/api/webhooks", {
      key: keys.main,
      json: { url: receiver.url(path), events: ["image.generated", "usage.warning"], secret: "s".repeat(16) },
    });
    webhookIds.push(((await hook.json()) as { id: string }).id);
  }
  // A signing key of its own account, so the public image route is reached past its signature
  // check (that account's usage is not one the usage property tracks).
  await make("signer", { plan: "custom", quota: 100_000_000, requests_per_second: 10_000 });
  const signingKey = await s.api("/api/signing-keys", { key: keys.signer, method: "POST" });
  expect(signingKey.status).toBe(201);
  signer = (await signingKey.json()) as { id: string; secret: string };
  await addMainTemplate();
  for (let i = 0; i < 3; i++) signingKeyIds.push(((await (await s.api("/api/signing-keys", { key: keys.main, method: "POST" })).json()) as { id: string }).id);
  const batch = await s.api("/api/batches", { key: keys.main, json: { items: [{ title: "Fuzz batch" }] } });
  expect(batch.status).toBe(202);
  batchIds.push(((await batch.json()) as { id: string }).id);
  // Its item is counted when drawn, in the background: done before the fuzz tracks main's usage.
  await waitFor(
    async () => ((await (await s.api(`/api/batches/${batchIds[0]}`, { key: keys.main })).json()) as { status: string }).status === "done",
    "the setup's batch to be drawn",
  );
  const fontForm = new FormData();
  fontForm.set("file", new Blob([pixelFont("Fuzz Mono") as Uint8Array<ArrayBuffer>]), "fuzz.otf");
  const font = await fetch(`${s.url}/api/fonts`, { method: "POST", headers: { "x-api-key": keys.main! }, body: fontForm });
  expect(font.status).toBe(201);
  fontIds.push(((await font.json()) as { id: string }).id);
  cookie = await signIn();
  routes = s.service.app.routes.filter((r) => !r.path.includes("*")).map((r) => ({ method: r.method.toUpperCase(), path: r.path }));
  expect(routes.length).toBeGreaterThan(30);
}, 60_000);

afterAll(async () => {
  await s?.stop();
  await receiver?.stop();
  const table = [...statusCounts]
    .sort()
    .map(([k, n]) => `${k}: ${n}`)
    .join(", ");
  console.log(`fuzz: ${RUNS} HTTP + ${RAW_RUNS} socket cases, seed ${SEED}; ${clientRefused} refused by the client library before sending; answers: ${table}`);
});

// ---------------------------------------------------------------------------------------------
// Generators

const RENDER_ROUTES = new Set(["POST /api/generate", "POST /dashboard/api/preview"]);
const TEMPLATE_FIELDS = [
  "template",
  "theme",
  "width",
  "height",
  "format",
  "title",
  "subtitle",
  "logo_url",
  "date",
  "time",
  "location",
  "speaker_name",
  "speaker_avatar_url",
  "author_name",
  "author_avatar_url",
  "reading_time",
  "category",
];
const EVENTS = ["image.generated", "usage.warning", "usage.limit_reached", "usage.reset"];

const printable = fc.string({ unit: fc.constantFrom(..." !\"#$%&'()*+,-./0123456789:;<=>?@ABCXYZ[\\]^_`abcxyz{|}~"), maxLength: 40 });
const anyText = fc.oneof(
  { arbitrary: fc.string({ maxLength: 30 }), weight: 3 },
  { arbitrary: fc.string({ unit: "grapheme", maxLength: 30 }), weight: 2 },
  { arbitrary: fc.string({ unit: "binary", maxLength: 30 }), weight: 1 },
  { arbitrary: fc.integer({ min: 190, max: 2200 }).map((n) => "é".repeat(n)), weight: 1 },
);
const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: anyText, weight: 4 },
  { arbitrary: fc.jsonValue({ maxDepth: 2 }), weight: 2 },
  { arbitrary: fc.constantFrom(null, true, 0, -1, 1e308, 1200, 2401, 199, 0.5, "", "  ", [], {}), weight: 2 },
);
const urlValue = fc.constantFrom(
  "http://127.0.0.1:1/x.png",
  "http://localhost:1/",
  "http://169.254.169.254/latest",
  "http://[::1]:1/",
  "https://[fd00:ec2::254]/",
  "ftp://example.invalid/x",
  "javascript:alert(1)",
  "data:image/png;base64,!!!",
  "data:text/html;base64,PGgxPg==",
  PNG_1X1,
  "http://0x7f.1/",
  "http://user:pass@127.0.0.1:1/",
  `http://127.0.0.1:1/${"a".repeat(2100)}`,
  "",
  "not a url",
);

/** A body shaped like the route's own, with values anywhere from valid to absurd. */
function shapedBody(route: string, renderSafe: boolean): fc.Arbitrary<unknown> {
  if (RENDER_ROUTES.has(route)) {
    // Valid bodies from a handful of values: after the first render each is a cache hit.
    const valid = fc.record(
      { title: fc.constantFrom("Fuzz A", "Fuzz B"), theme: fc.constantFrom("dark", "light"), template: fc.constantFrom("event", "blog") },
      { requiredKeys: ["title"] },
    );
    const random = fc.dictionary(fc.oneof(fc.constantFrom(...TEMPLATE_FIELDS), fc.string({ maxLength: 12 })), fc.oneof(anyValue, urlValue), { maxKeys: 8 });
    if (!renderSafe) return fc.oneof(valid, random, fc.record({ title: fc.constantFrom("Fuzz A"), logo_url: urlValue }));
    // An unknown field is always refused by validation, so nothing random ever renders here.
    return fc.oneof({ arbitrary: valid, weight: 1 }, { arbitrary: random.map((body) => ({ ...body, fuzz_unknown_field: 1 })), weight: 6 });
  }
  if (route.includes("/webhooks")) {
    // Valid bodies often enough that webhooks keep being created as the fuzz deletes them.
    const valid = fc.record(
      {
        url: fc.constantFrom(`http://127.0.0.1:${receiver.port}/ok`, `http://127.0.0.1:${receiver.port}/fail`, `http://127.0.0.1:${receiver.port}/slow`),
        events: fc.subarray(EVENTS, { minLength: 1 }),
        secret: fc.string({ minLength: 16, maxLength: 40 }),
        enabled: fc.boolean(),
      },
      { requiredKeys: ["url", "events", "secret"] },
    );
    const random = fc.record(
      {
        url: fc.oneof(
          fc.constantFrom(`http://127.0.0.1:${receiver.port}/ok`, `http://127.0.0.1:${receiver.port}/fail`, `http://127.0.0.1:${receiver.port}/slow`),
          urlValue,
          anyValue,
        ),
        events: fc.oneof(fc.subarray(EVENTS), fc.array(fc.oneof(fc.constantFrom(...EVENTS), anyValue), { maxLength: 5 }), anyValue),
        secret: fc.oneof(fc.string({ minLength: 16, maxLength: 40 }), anyValue),
        enabled: fc.oneof(fc.boolean(), anyValue),
        webhook_id: fc.oneof(knownWebhookId, anyValue),
        extra: anyValue,
      },
      { requiredKeys: [] },
    );
    return fc.oneof({ arbitrary: valid, weight: 1 }, { arbitrary: random, weight: 3 });
  }
  if (route.includes("/api/templates")) {
    const definition = fc.record(
      {
        id: fc.oneof(knownTemplateId, fc.constantFrom("event", "blog", "Bad Id", ""), fc.stringMatching(/^[a-z][a-z0-9_-]{0,8}$/), anyValue),
        name: fc.oneof(anyText, anyValue),
        html: fc.oneof({ arbitrary: fc.constantFrom(...TEMPLATE_HTML), weight: 4 }, { arbitrary: anyValue, weight: 1 }),
        fields: fc.oneof(
          { arbitrary: fc.constant(FUZZ_TEMPLATE.fields), weight: 4 },
          {
            arbitrary: fc.array(
              fc.record({
                name: fc.oneof(fc.constantFrom("title", "accent", "template"), anyValue),
                type: fc.oneof(fc.constantFrom("text", "color", "image_url"), anyValue),
              }),
              { maxLength: 3 },
            ),
            weight: 1,
          },
          { arbitrary: anyValue, weight: 1 },
        ),
        themes: fc.oneof(fc.constant({ dark: { bg: "#000000" }, light: { bg: "#ffffff" } }), anyValue),
        width: fc.oneof(fc.constantFrom(1200, 199, 2401), anyValue),
        sample: fc.oneof(fc.constant({ title: "Sample" }), anyValue),
        version: anyValue,
      },
      { requiredKeys: ["html"] },
    );
    const valid = fc.stringMatching(/^[a-z][a-z0-9]{2,8}$/).map((id) => ({ ...FUZZ_TEMPLATE, id: route.startsWith("PUT") ? undefined : id }));
    if (route.includes("/preview"))
      return fc.record(
        {
          template: fc.oneof(definition, anyValue),
          values: fc.oneof(fc.constant({ title: "Fuzz" }), anyValue),
          theme: fc.oneof(fc.constantFrom("dark", "light"), anyValue),
        },
        { requiredKeys: [] },
      );
    return fc.oneof({ arbitrary: valid, weight: 1 }, { arbitrary: definition, weight: 3 });
  }
  if (route.startsWith("POST /admin/clock")) {
    // Mostly small steps; now and then past a month boundary.
    return fc.record(
      {
        seconds: fc.oneof(
          { arbitrary: fc.integer({ min: -5, max: 600 }), weight: 8 },
          { arbitrary: fc.constantFrom(40 * 86_400, 1e12, 0.5, "60"), weight: 1 },
          { arbitrary: anyValue, weight: 1 },
        ),
      },
      { requiredKeys: [] },
    );
  }
  if (route.includes("/admin/accounts")) {
    return fc.record(
      {
        email: fc.oneof(fc.constantFrom("a@example.com", "not-an-email", ""), anyValue),
        plan: fc.oneof(fc.constantFrom("free", "starter", "pro", "agency", "publishing", "custom", "gold"), anyValue),
        status: fc.oneof(fc.constantFrom("active", "canceled", "past_due", "deleted"), anyValue),
        quota: fc.oneof(fc.integer({ min: -1, max: 200_000_000 }), anyValue),
        requests_per_second: fc.oneof(fc.integer({ min: -1, max: 20_000 }), anyValue),
      },
      { requiredKeys: [] },
    );
  }
  if (route.includes("/session")) return fc.record({ api_key: fc.oneof(fc.constant(keys.main), anyValue) }, { requiredKeys: [] });
  return fc.dictionary(fc.string({ maxLength: 10 }), anyValue, { maxKeys: 4 });
}

type BodyChoice =
  | { kind: "none" }
  | { kind: "json"; value: unknown }
  | { kind: "text"; text: string }
  | { kind: "bytes"; bytes: Uint8Array<ArrayBuffer> }
  | { kind: "huge"; bytes: number }
  | { kind: "chunked"; chunks: number; size: number };

function bodyArb(route: string, renderSafe: boolean): fc.Arbitrary<BodyChoice> {
  return fc.oneof(
    { arbitrary: fc.constant({ kind: "none" as const }), weight: 2 },
    { arbitrary: shapedBody(route, renderSafe).map((value) => ({ kind: "json" as const, value })), weight: 8 },
    {
      arbitrary: fc.jsonValue({ maxDepth: 3 }).map((value) => ({ kind: "json" as const, value: renderSafe && RENDER_ROUTES.has(route) ? [value] : value })),
      weight: 2,
    },
    { arbitrary: fc.string({ unit: "binary", maxLength: 200 }).map((text) => ({ kind: "text" as const, text })), weight: 2 },
    { arbitrary: fc.uint8Array({ maxLength: 200 }).map((bytes) => ({ kind: "bytes" as const, bytes })), weight: 1 },
    { arbitrary: fc.constantFrom(64 * 1024 + 1, 300_000, 1_100_000).map((bytes) => ({ kind: "huge" as const, bytes })), weight: 1 },
    {
      arbitrary: fc.record({ chunks: fc.constantFrom(1, 3, 80), size: fc.constantFrom(10, 1024) }).map((c) => ({ kind: "chunked" as const, ...c })),
      weight: 1,
    },
  );
}

const KEY_CHOICES = [
  "main",
  "main",
  "main",
  "main",
  "main",
  "main",
  "exhausted",
  "exhausted",
  "exhausted",
  "canceled",
  "pastDue",
  "limited",
  "none",
  "none",
  "empty",
  "spaces",
  "malformed",
  "unknown",
  "padded",
  "upper",
  "long",
] as const;
type KeyChoice = (typeof KEY_CHOICES)[number];
/** Key choices under which a valid body would be rendered (quota left, account active). */
const RENDERS = new Set<KeyChoice>(["main", "padded", "limited"]);

function keyValue(choice: KeyChoice, junk: string): string | undefined {
  switch (choice) {
    case "none":
      return undefined;
    case "empty":
      return "";
    case "spaces":
      return "   ";
    case "malformed":
      return junk;
    case "unknown":
      return "og_" + "A".repeat(32);
    case "padded":
      return `  ${keys.main}  `;
    case "upper":
      return keys.main!.toUpperCase();
    case "long":
      return "og_" + "a".repeat(8000);
    default:
      return keys[choice];
  }
}

/** A public image path signed with the fuzz's signing key: template, extension and query vary. */
const signedImagePath = () =>
  fc
    .record({
      template: fc.constantFrom("event", "blog", "nope", ""),
      ext: fc.constantFrom("png", "jpg", "webp", "gif"),
      params: fc.dictionary(fc.constantFrom(...TEMPLATE_FIELDS, "exp", "quality", "x"), printable, { maxKeys: 3 }),
    })
    .map(({ template, ext, params }) => {
      const query = canonicalQuery(params);
      return `/i/${signer!.id}/${sign(signer!.secret, template, ext, params)}/${template}.${ext}${query ? `?${query}` : ""}`;
    });

function pathFor(pattern: string, id: string): string {
  // A template's version: 1 (which its first version is) for a template the fuzz knows.
  return pattern.replace(/:[a-z]+/g, (name) => (name === ":version" ? (templateIds.includes(id) ? "1" : id) : id));
}

const idArb = (pattern: string) =>
  pattern.startsWith("/admin")
    ? fc.oneof(
        { arbitrary: fc.constantFrom(ids.spare!, ids.other!), weight: 4 },
        { arbitrary: fc.constantFrom("acc_" + "x".repeat(20)), weight: 1 },
        { arbitrary: printable.map(encodeURIComponent), weight: 1 },
      )
    : pattern.startsWith("/dashboard/api/starters")
      ? fc.oneof({ arbitrary: fc.constantFrom(...STARTER_IDS), weight: 4 }, { arbitrary: printable.map(encodeURIComponent), weight: 1 })
      : pattern.includes("/assets/")
        ? fc.oneof(fc.constantFrom("dashboard.js", "dashboard.css", "api.js", "nosuch.js"), printable.map(encodeURIComponent))
        : pattern.includes("/signing-keys/")
          ? fc.oneof(
              { arbitrary: fc.constantFrom(...signingKeyIds), weight: 2 },
              { arbitrary: knownWebhookId, weight: 1 },
              { arbitrary: printable.map(encodeURIComponent), weight: 1 },
            )
          : pattern.includes("/batches/") || pattern.includes("/fonts/")
            ? fc.oneof(
                { arbitrary: fc.constantFrom(...(pattern.includes("/batches/") ? batchIds : fontIds)), weight: 3 },
                { arbitrary: printable.map(encodeURIComponent), weight: 1 },
              )
            : pattern.startsWith("/api/templates") || pattern.startsWith("/dashboard/api/account-templates")
              ? fc.oneof(
                  { arbitrary: knownTemplateId, weight: 4 },
                  { arbitrary: fc.constantFrom("event", "blog", "nosuch"), weight: 1 },
                  { arbitrary: printable.map(encodeURIComponent), weight: 1 },
                )
              : fc.oneof(
                  { arbitrary: knownWebhookId, weight: 3 },
                  { arbitrary: printable.map(encodeURIComponent), weight: 1 },
                  { arbitrary: fc.constantFrom("wh_" + "0".repeat(20), "%00", "..", "x".repeat(1000)), weight: 1 },
                );

const pathMutation = fc.constantFrom(
  "exact",
  "exact",
  "exact",
  "exact",
  "exact",
  "exact",
  "exact",
  "exact",
  "slash",
  "query",
  "double",
  "upper",
  "suffix",
  "encoded",
  "dotdot",
  "random",
);

function mutatePath(path: string, how: string, extra: string): string {
  switch (how) {
    case "slash":
      return path + "/";
    case "query":
      return `${path}?${encodeURIComponent(extra)}=${encodeURIComponent(extra)}&title=x`;
    case "double":
      return path.replace("/", "//");
    case "upper":
      return path.toUpperCase();
    case "suffix":
      return `${path}/${encodeURIComponent(extra) || "x"}`;
    case "encoded":
      return path.replace(/[a-z]/, (c) => `%${c.charCodeAt(0).toString(16)}`);
    case "dotdot":
      return `${path}/../${path.split("/")[1] ?? ""}`;
    case "random":
      return "/" + encodeURIComponent(extra);
    default:
      return path;
  }
}

/** `arb` in `times` cases out of `outOf`, undefined otherwise. */
const sometimes = <T>(arb: fc.Arbitrary<T>, times: number, outOf: number): fc.Arbitrary<T | undefined> =>
  fc.oneof({ arbitrary: arb, weight: times }, { arbitrary: fc.constant(undefined), weight: outOf - times });

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"];
const CONTENT_TYPES = [
  "application/json",
  "application/json; charset=utf-8",
  "APPLICATION/JSON",
  "application/vnd.api+json",
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "",
  ";;;",
  "application/json; charset=latin1",
];

interface HttpCase {
  route: { method: string; path: string };
  method: string;
  path: string;
  key: KeyChoice;
  keyJunk: string;
  authorization?: string;
  contentType?: string;
  withCookie: "session" | "junk" | "none";
  origin?: string;
  host?: string;
  extra?: [string, string];
  body: BodyChoice;
}

const httpCase: () => fc.Arbitrary<HttpCase> = () =>
  fc
    .record({
      route: fc.constantFrom(...routes),
      key: fc.constantFrom(...KEY_CHOICES),
      withCookie: fc.constantFrom("session", "session", "session", "none", "junk") as fc.Arbitrary<HttpCase["withCookie"]>,
    })
    .chain(({ route, key, withCookie }) => {
      const routeId = `${route.method} ${route.path}`;
      // The dashboard preview renders with the session's account whatever the key says.
      const renderSafe = RENDERS.has(key) || (routeId === "POST /dashboard/api/preview" && withCookie === "session");
      return fc.record({
        route: fc.constant(route),
        key: fc.constant(key),
        withCookie: fc.constant(withCookie),
        method: fc.oneof({ arbitrary: fc.constant(route.method), weight: 6 }, { arbitrary: fc.constantFrom(...METHODS), weight: 2 }),
        path: route.path.startsWith("/i/")
          ? fc.oneof(
              { arbitrary: signedImagePath(), weight: 1 },
              {
                arbitrary: fc.tuple(idArb(route.path), pathMutation, printable).map(([id, how, extra]) => mutatePath(pathFor(route.path, id), how, extra)),
                weight: 2,
              },
            )
          : fc.tuple(idArb(route.path), pathMutation, printable).map(([id, how, extra]) => mutatePath(pathFor(route.path, id), how, extra)),
        keyJunk: printable,
        authorization: sometimes(
          fc.constantFrom(`Bearer ${ADMIN_TOKEN}`, `Bearer ${ADMIN_TOKEN}`, "Bearer wrong-token-0123456789", `bearer ${ADMIN_TOKEN}`, "Basic YTpi", "Bearer"),
          1,
          2,
        ),
        contentType: sometimes(fc.constantFrom(...CONTENT_TYPES), 1, 4),
        origin: sometimes(fc.constantFrom(s.url, s.url, s.url, s.url, s.url, "http://evil.example", "null", s.url + "/"), 3, 4),
        host: sometimes(fc.constantFrom("localhost", "a b", "[", "", "web", "%zz"), 1, 8),
        extra: sometimes(fc.tuple(fc.stringMatching(/^[a-z][a-z0-9-]{0,15}$/), printable), 1, 2),
        body: bodyArb(routeId, renderSafe),
      });
    });

// ---------------------------------------------------------------------------------------------
// Checking answers

const KNOWN_CODES = errorStatus as Record<string, number>;

function count(label: string) {
  statusCounts.set(label, (statusCounts.get(label) ?? 0) + 1);
}

/** The service's own answer: request id always, no 5xx but 503, errors as the envelope. */
function checkAnswer(what: string, method: string, status: number, headers: (name: string) => string | null | undefined, body: string) {
  count(String(status));
  expect(headers("x-request-id"), `${what}: no X-Request-Id`).toMatch(/^req_[A-Za-z0-9]{20}$/);
  expect(status >= 500 && status !== 503, `${what}: answered ${status}: ${body.slice(0, 300)}`).toBe(false);
  if (status < 400 || method === "HEAD") return;
  let parsed: { error?: unknown; code?: unknown; message?: unknown; details?: unknown };
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new Error(`${what}: ${status} with a body that is not JSON: ${body.slice(0, 200)}`);
  }
  expect(parsed.error, what).toBe(true);
  expect(typeof parsed.message, what).toBe("string");
  expect(KNOWN_CODES[String(parsed.code)], `${what}: code ${String(parsed.code)} for status ${status}`).toBe(status);
  if (parsed.details !== undefined) {
    expect(Array.isArray(parsed.details), what).toBe(true);
    for (const d of parsed.details as { field?: unknown; message?: unknown }[])
      expect(typeof d.field === "string" && typeof d.message === "string", what).toBe(true);
  }
}

/** Usage bookkeeping: `used` for the two accounts with quota tracking, as last read. */
const lastUsed: Record<string, number> = {};

async function readUsed(name: "main" | "exhausted"): Promise<number> {
  const res = await fetch(`${s.url}/api/user/usage`, { headers: { "x-api-key": keys[name]! } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { used: number }).used;
}

/** After a case: `used` moved by exactly the 200s of /api/generate it got (0 or 1). */
async function checkUsage(what: string, keyOwner: "main" | "exhausted" | undefined, generated200: boolean, clockMoved: boolean) {
  if (clockMoved) {
    lastUsed.main = await readUsed("main");
    lastUsed.exhausted = await readUsed("exhausted");
    return;
  }
  for (const name of ["main", "exhausted"] as const) {
    if (name !== "main" && keyOwner !== name) continue;
    const now = await readUsed(name);
    const expected = lastUsed[name]! + (generated200 && keyOwner === name ? 1 : 0);
    expect(now, `${what}: ${name}.used went ${lastUsed[name]} → ${now}`).toBe(expected);
    lastUsed[name] = now;
  }
}

/** A few account template definitions: valid ones (small, quick to check) and near misses. */
const TEMPLATE_HTML = [
  '<div style="display:flex;width:100%;height:100%;background:#123456;color:{{accent}}"><h1>{{title}}</h1></div>',
  '<div style="display:flex">{{#title}}<p>{{title}}</p>{{/title}}{{^title}}<p>none</p>{{/title}}</div>',
  '<div style="display:flex;background:var(--bg)">{{title}}</div>',
  "<script>alert(1)</script>",
  '<div onclick="x()">{{title}}</div>',
  '<img src="http://127.0.0.1:1/x.png">',
  "<div>{{undeclared}}</div>",
  "<div>{{#title}}</div>",
];
const FUZZ_TEMPLATE = {
  id: "fuzzcard",
  html: TEMPLATE_HTML[0],
  fields: [
    { name: "title", type: "text", required: true },
    { name: "accent", type: "color" },
  ],
};

async function addMainTemplate() {
  const created = await s.api("/api/templates", { key: keys.main, json: FUZZ_TEMPLATE });
  expect(created.status).toBe(201);
}

/** `main` keeps `fuzzcard` for the routes that need a template to exist (making room under the 50 if it must). */
async function ensureMainTemplate() {
  if ((await s.api("/api/templates/fuzzcard", { key: keys.main })).status === 200) return;
  if ((await s.api("/api/templates", { key: keys.main, json: FUZZ_TEMPLATE })).status === 201) return;
  const listed = (await (await s.api("/api/templates", { key: keys.main })).json()) as { data: { id: string; source: string }[] };
  const spare = listed.data.find((t) => t.source === "account")!;
  expect((await s.api(`/api/templates/${spare.id}`, { key: keys.main, method: "DELETE" })).status).toBe(200);
  await addMainTemplate();
}

async function addMainWebhook() {
  const hook = await s.api("/api/webhooks", { key: keys.main, json: { url: receiver.url("/ok"), events: ["image.generated"], secret: "s".repeat(16) } });
  expect(hook.status).toBe(201);
  webhookIds.push(((await hook.json()) as { id: string }).id);
}

/**
 * The test clock stands still, so the keys' 1-second rate windows never slide on their own: a
 * long run would use up even 10,000 requests per second. A second on the clock every 1,000
 * cases frees them (and the usage bookkeeping and the session follow the clock).
 */
async function slideWindows() {
  await s.advance(1);
  lastUsed.main = await readUsed("main");
  lastUsed.exhausted = await readUsed("exhausted");
  cookie = await signIn();
}

async function expectHealthy() {
  const res = await fetch(`${s.url}/healthz`);
  expect(res.status).toBe(200);
}

function requestBody(body: BodyChoice): BodyInit | undefined {
  switch (body.kind) {
    case "none":
      return undefined;
    case "json":
      return JSON.stringify(body.value) ?? "null";
    case "text":
      return body.text;
    case "bytes":
      return body.bytes as Uint8Array<ArrayBuffer>;
    case "huge":
      return JSON.stringify({ title: "x", subtitle: "y".repeat(body.bytes) });
    case "chunked": {
      const piece = new TextEncoder().encode("{".padEnd(body.size, " "));
      let left = body.chunks;
      return new ReadableStream({
        pull(controller) {
          if (left-- > 0) controller.enqueue(piece);
          else controller.close();
        },
      });
    }
  }
}

// ---------------------------------------------------------------------------------------------

describe("fuzz: generated requests over every route", () => {
  test(
    "HTTP cases: no 5xx but 503, the envelope with a request id, used moves only on generate 200s",
    async () => {
      lastUsed.main = await readUsed("main");
      lastUsed.exhausted = await readUsed("exhausted");
      let n = 0;
      await fc.assert(
        fc.asyncProperty(httpCase(), async (c) => {
          const headers: Record<string, string> = {};
          const key = keyValue(c.key, c.keyJunk);
          if (key !== undefined) headers["x-api-key"] = key;
          if (c.authorization) headers.authorization = c.authorization;
          if (c.contentType !== undefined && c.body.kind !== "none") headers["content-type"] = c.contentType;
          else if (c.body.kind !== "none") headers["content-type"] = "application/json";
          if (c.withCookie === "session") headers.cookie = cookie;
          else if (c.withCookie === "junk") headers.cookie = `ogsmith_session=${c.keyJunk.replace(/[;\s]/g, "")}`;
          if (c.origin) headers.origin = c.origin;
          if (c.host !== undefined) headers.host = c.host;
          if (c.extra && !["host", "content-length", "transfer-encoding", "connection", "expect", "upgrade"].includes(c.extra[0]))
            headers[c.extra[0]] = c.extra[1];
          const method = c.method;
          const body = method === "GET" || method === "HEAD" ? undefined : requestBody(c.body);
          const what = `${method} ${c.path.slice(0, 120)} (route ${c.route.method} ${c.route.path}, key ${c.key}, body ${c.body.kind})`;
          const clockBefore = s.now();
          let res: Response;
          try {
            res = await fetch(s.url + c.path, { method, headers, body, redirect: "manual", duplex: "half" } as RequestInit);
          } catch (error) {
            // The client library refusing to send it (a header value or method it will not
            // write) is no answer to judge; anything else (a reset, a closed socket) is a failure.
            const message = (error as Error).message;
            if (!/invalid|header|method|forbidden/i.test(message)) throw new Error(`${what}: fetch failed: ${message}`);
            clientRefused++;
            count("client-refused");
            await expectHealthy();
            return;
          }
          const text = method === "HEAD" ? "" : await res.text();
          checkAnswer(what, method, res.status, (name) => res.headers.get(name), text);
          if (method === c.route.method && !c.path.includes("?")) {
            const seen = coverage.get(`${c.route.method} ${c.route.path}`) ?? new Set();
            coverage.set(`${c.route.method} ${c.route.path}`, seen.add(res.status));
          }
          const isGenerate = method === "POST" && c.route.path === "/api/generate";
          if (isGenerate && res.status === 200) expect(res.headers.get("content-type")).toBe("image/png");
          // Collect webhook ids the fuzz created, for later `:id` parameters; replace one it
          // deleted, so the account keeps webhooks for the routes that need one to exist.
          if (res.status === 201 && c.path.includes("webhooks")) webhookIds.push((JSON.parse(text) as { id: string }).id);
          if (res.status === 200 && method === "DELETE" && c.path.includes("webhooks")) await addMainWebhook();
          // Templates the fuzz made are used as `:id` later; the one it deletes comes back.
          if (res.status === 201 && /\/api\/(account-)?templates/.test(c.path)) templateIds.push((JSON.parse(text) as { id: string }).id);
          if (res.status === 200 && method === "DELETE" && /\/(api\/templates|api\/account-templates)\/fuzzcard/.test(c.path)) await ensureMainTemplate();
          const owner = c.key === "main" || c.key === "padded" ? "main" : c.key === "exhausted" ? "exhausted" : undefined;
          // Read from the service itself: a mutated path may reach the clock route too.
          const clockMoved = s.now() !== clockBefore;
          await checkUsage(what, owner, isGenerate && res.status === 200, clockMoved);
          // Signing out ends the shared session; sign in again so later cases still reach the dashboard.
          // Sessions also expire when the test clock passes their 12 hours.
          if ((method === "DELETE" && c.path.includes("session")) || clockMoved) cookie = await signIn();
          if (++n % 200 === 0) await expectHealthy();
          if (n % 1000 === 0) await slideWindows();
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
      await expectHealthy();
      // The run reached past the gates of every route: some answer other than 401/403/404/405.
      const gated = new Set([401, 403, 404, 405]);
      const unreached = routes.map((r) => `${r.method} ${r.path}`).filter((id) => ![...(coverage.get(id) ?? [])].some((status) => !gated.has(status)));
      console.log(`fuzz coverage: ${[...coverage].map(([id, set]) => `${id} [${[...set].sort().join(" ")}]`).join("; ")}`);
      // Short runs (OG_FUZZ_RUNS below the default) may not get that far on every route.
      if (RUNS >= 4000) expect(unreached).toEqual([]);
    },
    TIMEOUT_MS,
  );
});

// ---------------------------------------------------------------------------------------------
// Raw-socket cases

/** Method tokens Bun's parser accepts; anything else is refused before the app. */
const PARSER_METHODS = new Set([
  "GET",
  "POST",
  "PUT",
  "PATCH",
  "DELETE",
  "HEAD",
  "OPTIONS",
  "CONNECT",
  "TRACE",
  "PROPFIND",
  "QUERY",
  "M-SEARCH",
  "PURGE",
  "LINK",
  "SEARCH",
]);

interface RawCase {
  method: string;
  target: { text: string; odd: boolean };
  version: string;
  host: { lines: readonly string[]; odd: boolean };
  key: KeyChoice;
  headerLines: { text: string; odd: boolean }[];
  body: { head: string; payload: string | undefined; odd: boolean; chunkedCount?: number };
}

const rawTarget = () =>
  fc.oneof(
    { arbitrary: fc.tuple(fc.constantFrom(...routes), knownWebhookId).map(([r, id]) => ({ text: pathFor(r.path, id), odd: false })), weight: 18 },
    {
      arbitrary: fc
        .tuple(fc.constantFrom(...routes), pathMutation, printable)
        .map(([r, how, extra]) => ({ text: mutatePath(pathFor(r.path, "wh_x"), how, extra), odd: false })),
      weight: 6,
    },
    {
      arbitrary: fc
        .tuple(
          fc.constantFrom("http://", "https://", "HTTP://"),
          fc.constantFrom("a", "[", "a b", "%zz", "h:99999", "u@h", "example.com"),
          fc.constantFrom("/healthz", "/api/user/usage", "", "/x?y"),
        )
        .map(([scheme, host, path]) => ({
          text: scheme + host + path,
          // Spaces split the request line: the parser sees a bad version.
          odd: host.includes(" "),
        })),
      weight: 6,
    },
    {
      arbitrary: fc
        .constantFrom("*", "example.com:443", "ftp://a/b", "healthz", "/a b", "/a\x00b", "/a\x7fb", "/ä", `/${"x".repeat(17 * 1024)}`)
        .map((text) => ({ text, odd: true })),
      weight: 1,
    },
  );

const rawCase: () => fc.Arbitrary<RawCase> = () =>
  fc.record({
    method: fc.oneof(
      { arbitrary: fc.constantFrom("GET", "POST", "PUT", "DELETE"), weight: 18 },
      { arbitrary: fc.constantFrom("PATCH", "HEAD", "OPTIONS", "CONNECT", "TRACE", "PROPFIND", "QUERY"), weight: 6 },
      { arbitrary: fc.constantFrom("BREW", "get", "FOO", "G\tET", "", "GET GET"), weight: 1 },
    ),
    target: rawTarget(),
    version: fc.oneof(
      { arbitrary: fc.constant("HTTP/1.1"), weight: 24 },
      { arbitrary: fc.constant("HTTP/1.0"), weight: 9 },
      { arbitrary: fc.constantFrom("HTTP/2.0", "HTTP/1.2", "HTTP/0.9", "http/1.1", "HTTP/1.1 extra", ""), weight: 1 },
    ),
    host: fc.oneof(
      { arbitrary: fc.constant({ lines: ["Host: localhost"], odd: false }), weight: 18 },
      { arbitrary: fc.constant({ lines: [], odd: false }), weight: 6 },
      {
        arbitrary: fc.constantFrom("a b", "[", "", "%zz", "a:99999", "u@h", "ä", "web", "[::1]:1").map((h) => ({ lines: [`Host: ${h}`], odd: false })),
        weight: 6,
      },
      { arbitrary: fc.constant({ lines: ["Host: a", "Host: b"], odd: false }), weight: 3 },
    ),
    key: fc.constantFrom(...KEY_CHOICES),
    headerLines: fc.array(
      fc.oneof(
        { arbitrary: fc.tuple(fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,20}$/), printable).map(([n, v]) => ({ text: `${n}: ${v}`, odd: false })), weight: 18 },
        {
          arbitrary: fc
            .constantFrom(
              "Content-Type: application/json",
              "Content-Type: text/plain",
              "Connection: close",
              "Accept: */*",
              "Expect: 100-continue",
              "Cookie: ogsmith_session=x",
            )
            .map((text) => ({ text, odd: false })),
          weight: 12,
        },
        { arbitrary: fc.constantFrom("X-Utf8: ä€", "X-Empty:", "X-Tab: a\tb").map((text) => ({ text, odd: false })), weight: 3 },
        {
          arbitrary: fc
            .constantFrom("NoColon", "X-Ctl: a\x01b", "X-Nul: a\x00b", " Folded: x", `X-Big: ${"a".repeat(17 * 1024)}`, "Bad Name: x")
            .map((text) => ({ text, odd: true })),
          weight: 1,
        },
      ),
      { maxLength: 4 },
    ),
    body: fc.oneof(
      { arbitrary: fc.constant({ head: "", payload: undefined, odd: false }), weight: 12 },
      {
        arbitrary: fc
          .oneof(
            fc.constantFrom(
              '{"title":"Fuzz A","fuzz_unknown_field":1}',
              "{",
              "[]",
              "null",
              '{"url":"http://127.0.0.1:1/","events":["usage.reset"],"secret":"ssssssssssssssss"}',
            ),
            fc.string({ maxLength: 100 }),
          )
          .map((payload) => ({
            head: `Content-Length: ${Buffer.byteLength(payload)}\r\n`,
            payload,
            odd: false,
          })),
        weight: 12,
      },
      {
        arbitrary: fc.constantFrom(64 * 1024 + 1, 5_000_000, 1e12).map((n) => ({ head: `Content-Length: ${n}\r\n`, payload: undefined, odd: false })),
        weight: 3,
      },
      { arbitrary: fc.constantFrom(1, 100).map((n) => ({ head: "Transfer-Encoding: chunked\r\n", payload: "", odd: false, chunkedCount: n })), weight: 3 },
      {
        arbitrary: fc
          .constantFrom(
            "Content-Length: abc\r\n",
            "Content-Length: -1\r\n",
            "Content-Length: 1, 2\r\n",
            "Content-Length: 3\r\nTransfer-Encoding: chunked\r\n",
            "Transfer-Encoding: gzip\r\n",
            "Content-Length: 99999999999999999999999\r\n",
          )
          .map((head) => ({ head, payload: "", odd: true })),
        weight: 1,
      },
    ),
  });

function rawText(c: RawCase): { data: string; after?: AsyncIterable<Uint8Array> } {
  const key = keyValue(c.key, "og_junk");
  const lines = [`${c.method} ${c.target.text} ${c.version}`.replace(/ $/, ""), ...c.host.lines];
  if (key !== undefined) lines.push(`X-API-Key: ${key}`);
  for (const header of c.headerLines) lines.push(header.text);
  let data = lines.join("\r\n") + "\r\n" + c.body.head + "\r\n";
  let after: AsyncIterable<Uint8Array> | undefined;
  if (c.body.chunkedCount) {
    const count = c.body.chunkedCount;
    after = (async function* () {
      const chunk = Buffer.from(`400\r\n${"{".padEnd(1024, " ")}\r\n`);
      for (let i = 0; i < count; i++) yield chunk;
      yield Buffer.from("0\r\n\r\n");
    })();
  } else if (c.body.payload) data += c.body.payload;
  return { data, after };
}

/** Whether the runtime may refuse this request before the app: it has a defect that earns it. */
function runtimeMayAnswer(c: RawCase, data: string): boolean {
  if (!PARSER_METHODS.has(c.method)) return true;
  if (c.target.odd || c.body.odd || c.headerLines.some((h) => h.odd)) return true;
  if (c.version !== "HTTP/1.1" && c.version !== "HTTP/1.0") return true;
  if (c.version === "HTTP/1.1" && c.host.lines.length === 0) return true;
  // Chunked transfer coding does not exist in HTTP/1.0.
  if (c.version === "HTTP/1.0" && c.body.head.includes("Transfer-Encoding")) return true;
  // Header section over 16 KiB (a long target or a long key counts too).
  if (data.indexOf("\r\n\r\n") > 16 * 1024 - 100) return true;
  // A declared body that never comes, within the route's limit (1 MiB on the template routes):
  // the server waits for it, and the connection ends unanswered.
  const declared = /Content-Length: (\d+)/.exec(c.body.head);
  if (declared && c.body.payload === undefined && Number(declared[1]) <= bodyLimitOf(`http://localhost${c.target.text}`)) return true;
  return false;
}

describe("fuzz: requests written straight onto a socket", () => {
  test(
    "socket cases: the app's answers keep the rules; the runtime refuses only what earns it; the process stays up",
    async () => {
      lastUsed.main = await readUsed("main");
      lastUsed.exhausted = await readUsed("exhausted");
      let n = 0;
      await fc.assert(
        fc.asyncProperty(rawCase(), async (c) => {
          const { data, after } = rawText(c);
          const what = JSON.stringify(data.slice(0, 300));
          const res: RawResponse = await rawRequest(s.service.port, data, { timeoutMs: 15_000, after, noBody: c.method === "HEAD" });
          if (res.headers["x-request-id"] !== undefined) {
            checkAnswer(what, c.method, res.status, (name) => res.headers[name], res.body);
          } else {
            count(`runtime ${res.status}`);
            expect(
              runtimeMayAnswer(c, data),
              `the runtime answered ${res.status} to a request the app should have seen: ${what}\n${res.raw.slice(0, 300)}`,
            ).toBe(true);
            expect([0, 400, 431, 505], `${what}: ${res.raw.slice(0, 300)}`).toContain(res.status);
            if (res.status === 0) expect(res.closed, `${what}: neither answered nor closed`).toBe(true);
            expect(res.body).toBe("");
          }
          const isGenerate = c.method === "POST" && /^\/+api\/generate\/?(\?.*)?$/.test(c.target.text);
          const owner = c.key === "main" || c.key === "padded" ? "main" : c.key === "exhausted" ? "exhausted" : undefined;
          await checkUsage(what, owner, isGenerate && res.status === 200, false);
          if (++n % 100 === 0) await expectHealthy();
          if (n % 1000 === 0) await slideWindows();
        }),
        { numRuns: RAW_RUNS, seed: SEED, endOnFailure: true },
      );
      await expectHealthy();
    },
    TIMEOUT_MS,
  );
});
