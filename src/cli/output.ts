/** Printing for the operator commands: a readable table by default, JSON with --json. */
export function printRecord(record: Record<string, unknown>, json: boolean): void {
  if (json) {
    console.log(JSON.stringify(record, null, 2));
    return;
  }
  const width = Math.max(...Object.keys(record).map((k) => k.length));
  for (const [key, value] of Object.entries(record)) {
    console.log(`${key.padEnd(width)}  ${typeof value === "object" && value !== null ? JSON.stringify(value) : String(value ?? "-")}`);
  }
}

export function printTable(rows: Record<string, unknown>[], columns: string[]): void {
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => String(r[c] ?? "-").length)));
  console.log(columns.map((c, i) => c.toUpperCase().padEnd(widths[i]!)).join("  "));
  for (const row of rows) console.log(columns.map((c, i) => String(row[c] ?? "-").padEnd(widths[i]!)).join("  "));
}

export class UsageError extends Error {
  override name = "UsageError";
}
