/**
 * Wires the core once for any face: the server, the CLI commands and the tests all build the
 * same objects from a Config, so nothing is configured twice.
 */
import { AccountService } from "./accounts/accounts.ts";
import { AccountBoundCache } from "./accounts/versions.ts";
import { ApiError } from "./errors.ts";
import { KeyCache } from "./metering/key-cache.ts";
import { systemClock, TestClock, type Clock } from "./clock.ts";
import type { Config } from "./config.ts";
import type { EmailAlerts } from "./email/alerts.ts";
import { createEmailAlerts } from "./email/index.ts";
import type { Mailer } from "./email/mailer.ts";
import { JobQueue } from "./events/jobs.ts";
import { Outbox } from "./events/outbox.ts";
import { createLogger, type Logger } from "./logger.ts";
import { Metering } from "./metering/quota.ts";
import { type RateDecision, SlidingWindowLimiter, type RateLimiter } from "./metering/rate-limit.ts";
import type { RedisRateLimiter } from "./metering/redis-rate-limit.ts";
import { SessionService } from "./sessions/sessions.ts";
import { SigningKeyService } from "./signing/keys.ts";
import { AccountFontService } from "./render/fonts/account-fonts.ts";
import { AccountTemplateService } from "./templates/account-templates.ts";
import { createStore } from "./store/index.ts";
import type { SigningKeyOwner, Store } from "./store/types.ts";
import type { RetryRandom } from "./webhooks/delivery-job.ts";
import { createWebhooks } from "./webhooks/index.ts";
import type { WebhookService } from "./webhooks/service.ts";

export interface Services {
  config: Config;
  clock: Clock;
  /** Present only with OG_TEST_CLOCK. */
  testClock: TestClock | undefined;
  /** Everything kept (SQLite file or PostgreSQL, from the config). */
  store: Store;
  logger: Logger;
  accounts: AccountService<RateDecision>;
  metering: Metering;
  /** Per-key per-second rate: in memory, or shared in Redis with OG_REDIS_URL. */
  limiter: RateLimiter;
  outbox: Outbox;
  /** The job table (webhook deliveries, emails); kinds register here, the worker runs them. */
  jobs: JobQueue;
  webhooks: WebhookService;
  /** Email alerts (usage thresholds, disabled webhooks): an `email` job kind in the same job table. */
  email: EmailAlerts;
  mailer: Mailer;
  /** Dashboard sessions. */
  sessions: SessionService;
  /** Signing keys of public image URLs. */
  signingKeys: SigningKeyService;
  /** Templates accounts design as data, with their versions. */
  accountTemplates: AccountTemplateService;
  /** Fonts accounts upload for their templates. */
  accountFonts: AccountFontService;
  close(): Promise<void>;
}

export interface ServicesOptions {
  logger?: Logger;
  /**
   * The webhook retry jitter's random source, uniform in [0, 1) (default Math.random). Not
   * configuration: tests on the test clock pass `() => 0.5` to get exactly the nominal delays.
   */
  retryRandom?: RetryRandom;
  /**
   * SQLite: the commit count shared with the server's checkpoint thread (`CommitSignal`,
   * store/sqlite/checkpointer.ts); absent outside the server.
   */
  sqliteCommits?: SharedArrayBuffer;
  /** How long a store call retries a database locked by another connection (StoreOptions; default 3 s). Not configuration: tests widen it. */
  lockWaitMs?: number;
}

export async function createServices(config: Config, options: ServicesOptions = {}): Promise<Services> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const store = await createStore(config, { commits: options.sqliteCommits, lockWaitMs: options.lockWaitMs });
  const testClock = config.testClock ? await openTestClock(store) : undefined;
  const clock: Clock = testClock ?? systemClock;
  const outbox = new Outbox();
  const jobs = new JobQueue(store, clock);
  // Jobs this store queued (an event's deliveries, an email alert) and, with PostgreSQL, jobs any
  // instance queued may be due now: the worker looks at once. A change that queued none (a counted
  // image of an account without webhooks) costs the worker nothing.
  store.onJobsAvailable(() => jobs.notify());
  const { webhooks, delivery } = createWebhooks({ store, clock, config, jobs, retryRandom: options.retryRandom });
  const { alerts: email, mailer } = createEmailAlerts({ store, config, outbox, jobs, delivery, logger });
  const limiter: RateLimiter = config.redisUrl ? await redisLimiter(config.redisUrl, clock, logger) : new SlidingWindowLimiter(clock);
  const caches = cachesFor(limiter, store, logger);
  const unannounced = await guardUnannouncedChanges(store, caches !== undefined);
  const accounts = new AccountService(store, clock, caches?.keys, unannounced);
  // Only the serving process reclaims (serve.ts), and it is the one process reserving on a SQLite
  // file; PostgreSQL keeps one tally per instance.
  const metering = new Metering(store, clock, outbox, logger, { reclaims: true });
  const accountFonts = new AccountFontService(store.fonts, clock);
  return {
    config,
    clock,
    testClock,
    store,
    logger,
    accounts,
    metering,
    limiter,
    outbox,
    jobs,
    webhooks,
    email,
    mailer,
    sessions: new SessionService(store, clock, accounts),
    signingKeys: new SigningKeyService(store, clock, caches?.signingKeys, unannounced),
    accountTemplates: new AccountTemplateService(store.templates, clock, accountFonts),
    accountFonts,
    close: async () => {
      mailer.close();
      caches?.signingKeys.close();
      await limiter.close?.();
      await metering.close();
      await store.close();
    },
  };
}

/** The shared limiter; Redis errors are logged at most every 10 s (a dead Redis errors on every reconnect). */
async function redisLimiter(url: string, clock: Clock, logger: Logger): Promise<RedisRateLimiter> {
  // Imported only when asked for: the embedded default loads no Redis client.
  const { RedisRateLimiter } = await import("./metering/redis-rate-limit.ts");
  let lastLogged = 0;
  return new RedisRateLimiter({
    url,
    clock,
    onError: (error) => {
      const now = Date.now();
      if (now - lastLogged < 10_000) return;
      lastLogged = now;
      logger.warn("redis unavailable", { error: error.message });
    },
  });
}

/**
 * With Redis (several instances), the API gate's key lookups and public URLs' signing-key
 * resolutions are kept in process and validated by the account's version in Redis (for API
 * keys, on the rate limit's own round trip); without it there is one process and nothing to share.
 */
function cachesFor(limiter: RateLimiter, store: Store, logger: Logger) {
  // On SQLite one process serves the file, and its store remembers key owners itself until
  // another process commits (the CLI's changes included): nothing to validate through Redis.
  if (!("admitVersioned" in limiter) || store.kind !== "postgres") return undefined;
  const versions = limiter as RedisRateLimiter;
  const onEndLost = (accountId: string, error: Error) =>
    logger.warn("recording the end of an account change in Redis failed; retrying", { account_id: accountId, error: error.message });
  return {
    keys: new KeyCache(versions, (keyHash) => store.findAccountByKeyHash(keyHash), onEndLost),
    signingKeys: new AccountBoundCache<SigningKeyOwner>(
      versions,
      (id) => store.findSigningKey(id),
      (owner) => owner.account.id,
      onEndLost,
    ),
  };
}

/**
 * On PostgreSQL, an instance with caches marks the database; a process on it without them (no
 * OG_REDIS_URL: the CLI from a shell, say) then refuses to change keys, limits or signing keys,
 * which the caches would not see (src/store/postgres/account-caches.ts). Undefined: no check.
 */
async function guardUnannouncedChanges(store: Store, cached: boolean): Promise<(() => Promise<void>) | undefined> {
  if (store.kind !== "postgres") return undefined;
  const { markAccountCaches, accountCachesMarked } = await import("./store/postgres/account-caches.ts");
  const postgres = store as never;
  if (cached) {
    await markAccountCaches(postgres);
    return undefined;
  }
  return async () => {
    if (!(await accountCachesMarked(postgres))) return;
    throw new ApiError(
      "SERVICE_UNAVAILABLE",
      "Instances on this database keep keys in memory and learn of changes through Redis: set OG_REDIS_URL to theirs to change keys, limits or signing keys.",
    );
  };
}

/** With several instances on PostgreSQL, the test clock is shared by all of them. */
async function openTestClock(store: Store): Promise<TestClock> {
  if (store.kind !== "postgres") return new TestClock();
  const { ClusterTestClock } = await import("./store/postgres/cluster-clock.ts");
  return ClusterTestClock.open(store as never);
}
