/**
 * Account fonts in PostgreSQL (../ports/fonts.ts), shaped like ../sqlite/fonts.ts. Exact across
 * instances: storing locks the account's row, so the per-account limits hold.
 */
import type { FontLimits, FontRecord, FontStore, NewFont } from "../ports/fonts.ts";
import type { PostgresConnection } from "./connection.ts";

const RECORD = `id, account_id as "accountId", family, weight, style, format, bytes, glyphs, variable, digest, created_at as "createdAt"`;

export class PostgresFontStore implements FontStore {
  constructor(private readonly c: PostgresConnection) {}

  put(font: NewFont, limits: FontLimits): Promise<{ font: FontRecord; replaced?: FontRecord } | "too_many" | "too_large"> {
    const key = font.family.toLowerCase();
    return this.c.write(async (tx) => {
      // The account row lock serializes uploads per account, so the limits hold across instances.
      await tx`select id from accounts where id = ${font.accountId} for update`;
      const [old] = (await tx`select ${tx.unsafe(RECORD)} from account_fonts
        where account_id = ${font.accountId} and family_key = ${key} and weight = ${font.weight} and style = ${font.style}`) as unknown as FontRecord[];
      const [held] =
        (await tx`select count(*)::int as n, coalesce(sum(bytes), 0)::bigint as total from account_fonts where account_id = ${font.accountId}`) as unknown as [
          { n: number; total: number },
        ];
      const count = held.n - (old ? 1 : 0) + 1;
      const total = Number(held.total) - (old?.bytes ?? 0) + font.bytes;
      if (count > limits.maxFonts) return "too_many" as const;
      if (total > limits.maxBytes) return "too_large" as const;
      if (old) await tx`delete from account_fonts where id = ${old.id}`;
      await tx`insert into account_fonts (id, account_id, family, family_key, weight, style, format, bytes, glyphs, variable, digest, data, created_at)
        values (${font.id}, ${font.accountId}, ${font.family}, ${key}, ${font.weight}, ${font.style}, ${font.format}, ${font.bytes}, ${font.glyphs}, ${font.variable}, ${font.digest}, ${Buffer.from(font.data.buffer, font.data.byteOffset, font.data.byteLength)}, ${font.now})`;
      const { data: _data, now, ...rest } = font;
      return { font: { ...rest, createdAt: now }, ...(old ? { replaced: old } : {}) };
    });
  }

  list(accountId: string): Promise<FontRecord[]> {
    return this.c.run(
      async (sql) =>
        (await sql`select ${sql.unsafe(RECORD)} from account_fonts where account_id = ${accountId} order by family_key collate "C", weight, style collate "C"`) as unknown as FontRecord[],
    );
  }

  delete(accountId: string, id: string): Promise<boolean> {
    return this.c.run(async (sql) => (await sql`delete from account_fonts where account_id = ${accountId} and id = ${id} returning id`).length > 0);
  }

  data(digest: string): Promise<Uint8Array | undefined> {
    return this.c.run(async (sql) => {
      const [row] = await sql`select data from account_fonts where digest = ${digest} limit 1`;
      return row ? new Uint8Array(row.data as Buffer) : undefined;
    });
  }
}
