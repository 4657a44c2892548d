import { foreignKey, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { accounts } from "./accounts.ts";

/**
 * Account templates: one row per template of an account (ids are per account). The row carries
 * the newest version number, so an update takes the next one with a single conditional write;
 * the versions themselves are in `account_template_versions`.
 */
export const accountTemplates = sqliteTable(
  "account_templates",
  {
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    /** The template id, unique within the account. */
    id: text("id").notNull(),
    /** The newest version (1 at creation). */
    latestVersion: integer("latest_version").notNull(),
    createdAt: integer("created_at").notNull(),
    /** When the newest version was written. */
    updatedAt: integer("updated_at").notNull(),
  },
  (table) => [primaryKey({ columns: [table.accountId, table.id] })],
);

/** The versions kept of each template (the newest 100); deleting the template deletes them. */
export const accountTemplateVersions = sqliteTable(
  "account_template_versions",
  {
    accountId: text("account_id").notNull(),
    templateId: text("template_id").notNull(),
    version: integer("version").notNull(),
    /** The validated definition as JSON text. */
    definition: text("definition").notNull(),
    /** Lowercase hex SHA-256 of `definition`: part of the rendered images' content address. */
    digest: text("digest").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.accountId, table.templateId, table.version] }),
    foreignKey({ columns: [table.accountId, table.templateId], foreignColumns: [accountTemplates.accountId, accountTemplates.id] }).onDelete("cascade"),
  ],
);
