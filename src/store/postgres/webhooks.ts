/**
 * Webhooks and their delivery log in PostgreSQL (../ports/webhooks.ts). A webhook's update and
 * its log's writes are the core's routines (src/webhooks), run through `transact` (./store.ts).
 */
import type { DeliveryAttemptRecord, WebhookRecord, WebhooksPort } from "../ports/webhooks.ts";
import { columns, DELIVERY_ATTEMPT, toDeliveryAttempt, toWebhook, WEBHOOK } from "../records.ts";
import type { PostgresConnection } from "./connection.ts";

const WEBHOOK_COLUMNS = columns(WEBHOOK);
const ATTEMPT_COLUMNS = columns(DELIVERY_ATTEMPT);

export class PostgresWebhooks implements WebhooksPort {
  constructor(private readonly c: PostgresConnection) {}

  createWebhook(w: WebhookRecord, maxPerAccount: number): Promise<WebhookRecord | "limit_reached"> {
    return this.c.write(async (tx) => {
      // The account row lock serializes creations per account, so the limit holds across instances.
      await tx`select id from accounts where id = ${w.accountId} for update`;
      const [{ n }] = (await tx`select count(*)::int as n from webhooks where account_id = ${w.accountId}`) as unknown as [{ n: number }];
      if (n >= maxPerAccount) return "limit_reached" as const;
      const [row] = await tx`insert into webhooks (id, account_id, url, events, secret, status, disabled_reason, created_at, updated_at)
        values (${w.id}, ${w.accountId}, ${w.url}, ${JSON.stringify(w.events)}, ${w.secret}, ${w.status}, ${w.disabledReason}, ${w.createdAt}, ${w.updatedAt})
        returning ${tx.unsafe(WEBHOOK_COLUMNS)}`;
      return toWebhook(row!);
    });
  }

  deleteWebhook(accountId: string, id: string): Promise<boolean> {
    // Its jobs and its log go by foreign-key cascade. The jobs are locked first, in the order
    // settling a delivery locks them (job, then webhook): deleting the webhook row first would
    // hold it while waiting for a job that a settlement holds while waiting for the webhook.
    return this.c.write(async (tx) => {
      await tx`select id from jobs where webhook_id = ${id} order by id for update`;
      return (await tx`delete from webhooks where id = ${id} and account_id = ${accountId} returning id`).length > 0;
    });
  }

  getWebhook(accountId: string, id: string): Promise<WebhookRecord | undefined> {
    return this.c.run(async (sql) => {
      const [row] = await sql`select ${sql.unsafe(WEBHOOK_COLUMNS)} from webhooks where id = ${id} and account_id = ${accountId}`;
      return row ? toWebhook(row) : undefined;
    });
  }

  getWebhookById(id: string): Promise<WebhookRecord | undefined> {
    return this.c.run(async (sql) => {
      const [row] = await sql`select ${sql.unsafe(WEBHOOK_COLUMNS)} from webhooks where id = ${id}`;
      return row ? toWebhook(row) : undefined;
    });
  }

  listWebhooks(accountId: string, options: { enabledOnly?: boolean } = {}): Promise<WebhookRecord[]> {
    return this.c.run(async (sql) =>
      (
        await sql`select ${sql.unsafe(WEBHOOK_COLUMNS)} from webhooks where account_id = ${accountId} ${options.enabledOnly ? sql`and status = 'enabled'` : sql``} order by created_at, seq`
      ).map(toWebhook),
    );
  }

  listDeliveryAttempts(webhookId: string, limit: number): Promise<DeliveryAttemptRecord[]> {
    return this.c.run(async (sql) =>
      (
        await sql`select ${sql.unsafe(ATTEMPT_COLUMNS)} from delivery_attempts where webhook_id = ${webhookId} order by created_at desc, seq desc limit ${limit}`
      ).map(toDeliveryAttempt),
    );
  }
}
