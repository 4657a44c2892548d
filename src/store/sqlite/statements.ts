/**
 * Compiled statements the store keeps for the life of its connection: the SQLite store's one
 * query style (SQL text, values always bound, rows aliased to records: ../records.ts).
 *
 * Compiling SQL costs ≈ 7 µs, and drizzle building a query from its builder ≈ 24 µs more: a
 * primary-key read through drizzle measured ≈ 46 µs against ≈ 3 µs for a compiled statement run
 * again (bench/store-calls.ts measures each store call). `StatementCache` keeps one compiled
 * statement per SQL text. bun:sqlite's own cache (`Database.query`) holds 20 texts, evicts the
 * oldest and finds a text by a linear search; the store runs more than 20 texts, so a busy mix of
 * requests and jobs would evict and recompile its hot statements over and over. The texts are
 * the store's own constants, so the cache is bounded by the code.
 *
 * They are finalized when the store closes the connection (`Database.close(true)`).
 */
import type { Statement } from "bun:sqlite";
import type { Db } from "./database.ts";

export class StatementCache {
  private readonly statements = new Map<string, Statement>();

  constructor(private readonly db: Db) {}

  get(text: string): Statement {
    let statement = this.statements.get(text);
    if (!statement) {
      statement = this.db.$client.prepare(text);
      this.statements.set(text, statement);
    }
    return statement;
  }

  get size(): number {
    return this.statements.size;
  }
}
