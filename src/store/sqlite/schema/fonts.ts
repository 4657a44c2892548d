import { blob, index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { accounts } from "./accounts.ts";

/**
 * Account fonts: the uploaded file with what was read from it. One face per (account, family,
 * weight, style); `family_key` is the family lowercased, what templates are matched by.
 */
export const accountFonts = sqliteTable(
  "account_fonts",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    family: text("family").notNull(),
    familyKey: text("family_key").notNull(),
    weight: integer("weight").notNull(),
    style: text("style").notNull(),
    format: text("format").notNull(),
    bytes: integer("bytes").notNull(),
    glyphs: integer("glyphs").notNull(),
    variable: integer("variable", { mode: "boolean" }).notNull(),
    /** Lowercase hex SHA-256 of `data`: what render processes ask for, part of an image's content address. */
    digest: text("digest").notNull(),
    data: blob("data", { mode: "buffer" }).notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (table) => [
    uniqueIndex("account_fonts_face").on(table.accountId, table.familyKey, table.weight, table.style),
    index("account_fonts_digest").on(table.digest),
  ],
);
