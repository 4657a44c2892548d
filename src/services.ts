/**
 * Wires the core once for any face: the server, the CLI commands and the tests all build the
 * same objects from a Config, so nothing is configured twice.
 */
import { AccountService } from "./accounts/accounts.ts";
import { systemClock, TestClock, type Clock } from "./clock.ts";
import type { Config } from "./config.ts";
import { openDatabase, type Db } from "./db/client.ts";
import { Outbox } from "./events/outbox.ts";
import { createLogger, type Logger } from "./logger.ts";
import { Metering } from "./metering/quota.ts";
import { SlidingWindowLimiter } from "./metering/rate-limit.ts";

export interface Services {
  config: Config;
  clock: Clock;
  /** Present only with OG_TEST_CLOCK. */
  testClock: TestClock | undefined;
  db: Db;
  logger: Logger;
  accounts: AccountService;
  metering: Metering;
  limiter: SlidingWindowLimiter;
  outbox: Outbox;
  close(): void;
}

export function createServices(config: Config, options: { logger?: Logger } = {}): Services {
  const testClock = config.testClock ? new TestClock() : undefined;
  const clock: Clock = testClock ?? systemClock;
  const db = openDatabase(config.dbPath);
  const outbox = new Outbox();
  return {
    config,
    clock,
    testClock,
    db,
    logger: options.logger ?? createLogger(config.logLevel),
    accounts: new AccountService(db, clock),
    metering: new Metering(db, clock, outbox),
    limiter: new SlidingWindowLimiter(clock),
    outbox,
    close: () => db.$client.close(),
  };
}
