/**
 * The postgres.js client as every PostgreSQL module uses it. A file of its own so that the store
 * and the templates adapter can name `Sql` without importing the opener (index.ts), which
 * imports them.
 */
import postgres from "postgres";

export type Sql = postgres.Sql<{ bigint: number }>;

export function connect(url: string, options: { max?: number; idleTimeout?: number } = {}): Sql {
  return postgres(url, {
    max: options.max ?? 20,
    connect_timeout: 3,
    // Fixed, short reconnect backoff: the default grows to ~20 s after an outage.
    backoff: () => 0.1,
    idle_timeout: options.idleTimeout ?? 60,
    onnotice: () => {},
    // Epoch-ms columns are bigint: numbers, not strings (they stay far below 2^53).
    types: { bigint: { to: 20, from: [20], serialize: (x: number) => String(x), parse: (x: string) => Number(x) } },
  }) as unknown as Sql;
}
