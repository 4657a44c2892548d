/**
 * Webhooks and their delivery log in SQLite (../ports/webhooks.ts). A webhook's update and its
 * log's writes are the core's routines (src/webhooks), run through `transact` (./store.ts).
 */
import type { DeliveryAttemptRecord, WebhookRecord, WebhooksPort } from "../ports/webhooks.ts";
import { columns, DELIVERY_ATTEMPT, toDeliveryAttempt, toWebhook, WEBHOOK } from "../records.ts";
import { LEAVES_KEYS, type SqliteConnection } from "./connection.ts";

const WEBHOOK_COLUMNS = columns(WEBHOOK);
const ATTEMPT_COLUMNS = columns(DELIVERY_ATTEMPT);

type Row = Record<string, unknown>;

export class SqliteWebhooks implements WebhooksPort {
  constructor(private readonly c: SqliteConnection) {}

  createWebhook(w: WebhookRecord, maxPerAccount: number): Promise<WebhookRecord | "limit_reached"> {
    return this.c.write(() => {
      const { n } = this.c.sql("SELECT count(*) AS n FROM webhooks WHERE account_id = ?").get(w.accountId) as { n: number };
      if (n >= maxPerAccount) return "limit_reached" as const;
      const row = this.c
        .sql(
          `INSERT INTO webhooks (id, account_id, url, events, secret, status, disabled_reason, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${WEBHOOK_COLUMNS}`,
        )
        .get(w.id, w.accountId, w.url, JSON.stringify(w.events), w.secret, w.status, w.disabledReason, w.createdAt, w.updatedAt) as Row;
      return toWebhook(row);
    }, LEAVES_KEYS);
  }

  deleteWebhook(accountId: string, id: string): Promise<boolean> {
    // Its jobs (pending ones included) and its log go by foreign-key cascade, in this statement.
    return this.c.write(() => this.c.sql("DELETE FROM webhooks WHERE id = ? AND account_id = ?").run(id, accountId).changes > 0, LEAVES_KEYS);
  }

  getWebhook(accountId: string, id: string): Promise<WebhookRecord | undefined> {
    return this.c.read(() => this.#get(accountId, id));
  }

  #get(accountId: string, id: string): WebhookRecord | undefined {
    const row = this.c.sql(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE id = ? AND account_id = ?`).get(id, accountId) as Row | null;
    return row ? toWebhook(row) : undefined;
  }

  getWebhookById(id: string): Promise<WebhookRecord | undefined> {
    return this.c.read(() => {
      const row = this.c.sql(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE id = ?`).get(id) as Row | null;
      return row ? toWebhook(row) : undefined;
    });
  }

  listWebhooks(accountId: string, options: { enabledOnly?: boolean } = {}): Promise<WebhookRecord[]> {
    const status = options.enabledOnly ? " AND status = 'enabled'" : "";
    return this.c.read(() =>
      (this.c.sql(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE account_id = ?${status} ORDER BY created_at, rowid`).all(accountId) as Row[]).map(toWebhook),
    );
  }

  listDeliveryAttempts(webhookId: string, limit: number): Promise<DeliveryAttemptRecord[]> {
    return this.c.read(() =>
      (
        this.c
          .sql(`SELECT ${ATTEMPT_COLUMNS} FROM delivery_attempts WHERE webhook_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ?`)
          .all(webhookId, limit) as Row[]
      ).map(toDeliveryAttempt),
    );
  }
}
