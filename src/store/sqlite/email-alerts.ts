/** Reading email alerts in SQLite (../ports/email-alerts.ts); they are raised and settled through ./tx.ts. */
import type { EmailAlertRecord, EmailAlertsPort } from "../ports/email-alerts.ts";
import { columns, EMAIL_ALERT, toEmailAlert } from "../records.ts";
import type { SqliteConnection } from "./connection.ts";

const ALERT_COLUMNS = columns(EMAIL_ALERT);

type Row = Record<string, unknown>;

export class SqliteEmailAlerts implements EmailAlertsPort {
  constructor(private readonly c: SqliteConnection) {}

  getEmailAlert(id: string): Promise<EmailAlertRecord | undefined> {
    return this.c.read(() => {
      const row = this.c.sql(`SELECT ${ALERT_COLUMNS} FROM email_alerts WHERE id = ?`).get(id) as Row | null;
      return row ? toEmailAlert(row) : undefined;
    });
  }

  recentEmailAlerts(accountId: string, limit: number): Promise<EmailAlertRecord[]> {
    return this.c.read(() =>
      (
        this.c.sql(`SELECT ${ALERT_COLUMNS} FROM email_alerts WHERE account_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ?`).all(accountId, limit) as Row[]
      ).map(toEmailAlert),
    );
  }
}
