/**
 * Every setting, parsed and validated once (the table is in docs/operations.md). The rest of the code receives a Config
 * and never reads process.env. A bad value stops start-up with one clear line (ConfigError).
 */
import { readFileSync, statSync } from "node:fs";
import { availableParallelism } from "node:os";
import { dirname, join } from "node:path";

export interface Config {
  port: number;
  host: string;
  dbPath: string;
  /** `OG_DATABASE_URL` (postgres://…): the PostgreSQL store instead of the SQLite file. */
  databaseUrl: string | undefined;
  adminToken: string | undefined;
  allowPrivateNetworks: boolean;
  testClock: boolean;
  renderWorkers: number;
  /** OG_RENDER_TIMEOUT_MS: a render still running after this is killed with its render process (422 RENDER_FAILED). */
  renderTimeoutMs: number;
  /** OG_RENDER_MEMORY_MB: a render process holding more resident memory than this is killed (422 RENDER_FAILED). */
  renderMemoryMb: number;
  templatesDir: string | undefined;
  fontsDir: string | undefined;
  smtpUrl: string | undefined;
  /** PEM file of extra CA certificates trusted for SMTP TLS (a private or self-signed mail server). */
  smtpCaFile: string | undefined;
  emailFrom: string;
  baseUrl: string;
  /**
   * The origin of OG_BASE_URL when it is set: the only Host this server answers (others get 421)
   * and the only Origin the dashboard accepts. Undefined: any Host, Origin = the Host's origin.
   */
  publicOrigin: string | undefined;
  /** Bearer token that reads /metrics (OG_METRICS_TOKEN); the admin token reads it too. */
  metricsToken: string | undefined;
  /** OG_METRICS_PUBLIC: /metrics answers without a token. */
  metricsPublic: boolean;
  bootstrap: boolean;
  logLevel: "debug" | "info" | "warn" | "error" | "silent";
  /** Persistent render cache directory; undefined = off (OG_CACHE_MAX_BYTES=0, or an in-memory database with no OG_CACHE_DIR). */
  cacheDir: string | undefined;
  cacheMaxBytes: number;
  /** Redis for the shared per-second rate limit (several instances); unset = in process memory. */
  redisUrl: string | undefined;
  /** all: HTTP and jobs; api: HTTP only; worker: jobs only (HTTP answers /healthz, /readyz, /metrics). */
  role: "all" | "api" | "worker";
  /** What draws the cards (OG_RENDER_ENGINE): satori + resvg, or takumi (docs/engines.md). */
  renderEngine: "satori" | "takumi";
  /** `OG_SIGNING_SECRET`: the signing key secret `ogsmith sign` uses when no --secret-file is given; the server never reads it. */
  signingSecret: string | undefined;
  /** Settings this version no longer reads that are set anyway: one line each for the start-up log. */
  retired: string[];
}

export class ConfigError extends Error {
  override name = "ConfigError";
}

type Env = Record<string, string | undefined>;

const TRUE = new Set(["1", "true", "yes", "on"]);
const FALSE = new Set(["0", "false", "no", "off", ""]);

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined) return fallback;
  const value = raw.trim().toLowerCase();
  if (TRUE.has(value)) return true;
  if (FALSE.has(value)) return false;
  throw new ConfigError(`${name} must be a boolean (true/false/1/0), got "${raw}"`);
}

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === "") return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const value = Number(raw.trim());
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

function optional(env: Env, name: string): string | undefined {
  const raw = env[name]?.trim();
  return raw ? raw : undefined;
}

function url(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = optional(env, name);
  if (raw === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} is not a valid URL`);
  }
  if (!protocols.includes(parsed.protocol)) throw new ConfigError(`${name} must use ${protocols.join(" or ")}`);
  return raw;
}

function readableDir(name: string, path: string | undefined): string | undefined {
  if (path === undefined) return undefined;
  try {
    const stat = statSync(path);
    if (!stat.isDirectory()) throw new Error();
  } catch {
    throw new ConfigError(`${name} is not a readable directory: ${path}`);
  }
  return path;
}

function readableFile(name: string, path: string | undefined): string | undefined {
  if (path === undefined) return undefined;
  try {
    if (!statSync(path).isFile()) throw new Error();
    readFileSync(path);
  } catch {
    throw new ConfigError(`${name} is not a readable file: ${path}`);
  }
  return path;
}

/** Flags given on the command line win over the environment. */
/** The SQLite file when neither OG_DB_PATH nor --db names one (relative to the working directory). */
export const DEFAULT_DB_PATH = "./data/ogsmith.db";

export interface ConfigOverrides {
  port?: number;
  host?: string;
  dbPath?: string;
}

export function loadConfig(env: Env = process.env, overrides: ConfigOverrides = {}): Config {
  const port = overrides.port ?? int(env, "PORT", 3000, 0, 65535);
  const logLevel = (optional(env, "OG_LOG_LEVEL") ?? "info") as Config["logLevel"];
  if (!["debug", "info", "warn", "error", "silent"].includes(logLevel)) {
    throw new ConfigError(`OG_LOG_LEVEL must be one of debug, info, warn, error, silent, got "${logLevel}"`);
  }
  const adminToken = optional(env, "OG_ADMIN_TOKEN");
  if (adminToken !== undefined && adminToken.length < 16) {
    throw new ConfigError("OG_ADMIN_TOKEN must be at least 16 characters");
  }
  const metricsToken = optional(env, "OG_METRICS_TOKEN");
  if (metricsToken !== undefined && metricsToken.length < 16) {
    throw new ConfigError("OG_METRICS_TOKEN must be at least 16 characters");
  }
  const baseUrl = url(env, "OG_BASE_URL", ["http:", "https:"]);
  const dbPath = overrides.dbPath ?? optional(env, "OG_DB_PATH") ?? DEFAULT_DB_PATH;
  const cacheMaxBytes = int(env, "OG_CACHE_MAX_BYTES", 1024 * 1024 * 1024, 0, Number.MAX_SAFE_INTEGER);
  // By default the cache lives beside the database (./data/cache for the default ./data/ogsmith.db),
  // so a service pointed at another data directory brings its cache along; a :memory: database
  // is a throwaway service, which gets no disk cache unless one is named.
  const cacheDir = cacheMaxBytes === 0 ? undefined : (optional(env, "OG_CACHE_DIR") ?? (dbPath === ":memory:" ? undefined : join(dirname(dbPath), "cache")));
  const role = (optional(env, "OG_ROLE") ?? "all") as Config["role"];
  if (!["all", "api", "worker"].includes(role)) throw new ConfigError(`OG_ROLE must be one of all, api, worker, got "${role}"`);
  const databaseUrl = url(env, "OG_DATABASE_URL", ["postgres:", "postgresql:"]);
  const renderEngine = (optional(env, "OG_RENDER_ENGINE")?.toLowerCase() ?? "satori") as Config["renderEngine"];
  if (!["satori", "takumi"].includes(renderEngine)) throw new ConfigError(`OG_RENDER_ENGINE must be one of satori, takumi, got "${env.OG_RENDER_ENGINE}"`);
  const testClock = bool(env, "OG_TEST_CLOCK", false);
  return {
    role,
    port,
    host: overrides.host ?? optional(env, "HOST") ?? "0.0.0.0",
    dbPath,
    databaseUrl,
    adminToken,
    allowPrivateNetworks: bool(env, "OG_ALLOW_PRIVATE_NETWORKS", false),
    testClock,
    renderWorkers: int(env, "OG_RENDER_WORKERS", availableParallelism(), 1, 256),
    renderTimeoutMs: int(env, "OG_RENDER_TIMEOUT_MS", 5_000, 100, 600_000),
    renderMemoryMb: int(env, "OG_RENDER_MEMORY_MB", 1024, 128, 1024 * 1024),
    templatesDir: readableDir("OG_TEMPLATES_DIR", optional(env, "OG_TEMPLATES_DIR")),
    fontsDir: readableDir("OG_FONTS_DIR", optional(env, "OG_FONTS_DIR")),
    smtpUrl: url(env, "SMTP_URL", ["smtp:", "smtps:"]),
    smtpCaFile: readableFile("OG_SMTP_CA_FILE", optional(env, "OG_SMTP_CA_FILE")),
    emailFrom: optional(env, "OG_EMAIL_FROM") ?? "ogsmith <alerts@localhost>",
    baseUrl: (baseUrl ?? `http://localhost:${port}`).replace(/\/+$/, ""),
    publicOrigin: baseUrl === undefined ? undefined : new URL(baseUrl).origin,
    metricsToken,
    metricsPublic: bool(env, "OG_METRICS_PUBLIC", false),
    bootstrap: bool(env, "OG_BOOTSTRAP", true),
    logLevel,
    cacheDir,
    cacheMaxBytes,
    redisUrl: url(env, "OG_REDIS_URL", ["redis:", "rediss:"]),
    renderEngine,
    signingSecret: optional(env, "OG_SIGNING_SECRET"),
    retired: Object.entries(RETIRED).flatMap(([name, line]) => (env[name] === undefined ? [] : [line])),
  };
}

/** Settings that are gone, and what to do instead: a value set for one is logged, never fatal. */
const RETIRED: Record<string, string> = {
  OG_HTTP_THREADS:
    "OG_HTTP_THREADS is gone and ignored: one ogsmith serve answers HTTP on one thread; for more throughput, run several instances (docs/cluster.md)",
};
