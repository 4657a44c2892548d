/** Reading email alerts in PostgreSQL (../ports/email-alerts.ts); they are raised and settled through ./tx.ts. */
import type { EmailAlertRecord, EmailAlertsPort } from "../ports/email-alerts.ts";
import { columns, EMAIL_ALERT, toEmailAlert } from "../records.ts";
import type { PostgresConnection } from "./connection.ts";

const ALERT_COLUMNS = columns(EMAIL_ALERT);

export class PostgresEmailAlerts implements EmailAlertsPort {
  constructor(private readonly c: PostgresConnection) {}

  getEmailAlert(id: string): Promise<EmailAlertRecord | undefined> {
    return this.c.run(async (sql) => {
      const [row] = await sql`select ${sql.unsafe(ALERT_COLUMNS)} from email_alerts where id = ${id}`;
      return row ? toEmailAlert(row) : undefined;
    });
  }

  recentEmailAlerts(accountId: string, limit: number): Promise<EmailAlertRecord[]> {
    return this.c.run(async (sql) =>
      (await sql`select ${sql.unsafe(ALERT_COLUMNS)} from email_alerts where account_id = ${accountId} order by created_at desc, seq desc limit ${limit}`).map(
        toEmailAlert,
      ),
    );
  }
}
