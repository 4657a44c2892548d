/**
 * Account fonts in SQLite (../ports/fonts.ts). SQLite's single writer makes the per-account
 * limits exact.
 */
import type { FontLimits, FontRecord, FontStore, NewFont } from "../ports/fonts.ts";
import { LEAVES_KEYS, type SqliteConnection } from "./connection.ts";

const RECORD = `id, account_id AS accountId, family, weight, style, format, bytes, glyphs, variable, digest, created_at AS createdAt`;

type Row = Omit<FontRecord, "variable"> & { variable: number };
const record = (row: Row): FontRecord => ({ ...row, variable: row.variable === 1 });

export class SqliteFontStore implements FontStore {
  constructor(private readonly c: SqliteConnection) {}

  put(font: NewFont, limits: FontLimits): Promise<{ font: FontRecord; replaced?: FontRecord } | "too_many" | "too_large"> {
    return this.c.write(() => {
      const key = font.family.toLowerCase();
      const old = this.c
        .sql(`SELECT ${RECORD} FROM account_fonts WHERE account_id = ? AND family_key = ? AND weight = ? AND style = ?`)
        .get(font.accountId, key, font.weight, font.style) as Row | null;
      const held = this.c.sql("SELECT count(*) AS n, coalesce(sum(bytes), 0) AS total FROM account_fonts WHERE account_id = ?").get(font.accountId) as {
        n: number;
        total: number;
      };
      const count = held.n - (old ? 1 : 0) + 1;
      const total = held.total - (old?.bytes ?? 0) + font.bytes;
      if (count > limits.maxFonts) return "too_many" as const;
      if (total > limits.maxBytes) return "too_large" as const;
      if (old) this.c.sql("DELETE FROM account_fonts WHERE id = ?").run(old.id);
      this.c
        .sql(
          "INSERT INTO account_fonts (id, account_id, family, family_key, weight, style, format, bytes, glyphs, variable, digest, data, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .run(
          font.id,
          font.accountId,
          font.family,
          key,
          font.weight,
          font.style,
          font.format,
          font.bytes,
          font.glyphs,
          font.variable ? 1 : 0,
          font.digest,
          font.data,
          font.now,
        );
      const { data: _data, now, ...rest } = font;
      return { font: { ...rest, createdAt: now }, ...(old ? { replaced: record(old) } : {}) };
    }, LEAVES_KEYS);
  }

  list(accountId: string): Promise<FontRecord[]> {
    return this.c.read(() =>
      (this.c.sql(`SELECT ${RECORD} FROM account_fonts WHERE account_id = ? ORDER BY family_key, weight, style`).all(accountId) as Row[]).map(record),
    );
  }

  delete(accountId: string, id: string): Promise<boolean> {
    return this.c.write(() => this.c.sql("DELETE FROM account_fonts WHERE account_id = ? AND id = ?").run(accountId, id).changes > 0, LEAVES_KEYS);
  }

  data(digest: string): Promise<Uint8Array | undefined> {
    return this.c.read(() => {
      const row = this.c.sql("SELECT data FROM account_fonts WHERE digest = ? LIMIT 1").get(digest) as { data: Uint8Array } | null;
      return row ? new Uint8Array(row.data) : undefined;
    });
  }
}
