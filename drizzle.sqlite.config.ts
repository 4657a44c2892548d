import { defineConfig } from "drizzle-kit";

// `bun x drizzle-kit generate --config drizzle.sqlite.config.ts` (`bun run db:generate:sqlite`)
// writes a new SQL migration under migrations/sqlite/ from the schema files. Add the new file to
// src/store/sqlite/migrations.ts (a test fails until you do).
export default defineConfig({
  dialect: "sqlite",
  schema: "./src/store/sqlite/schema/index.ts",
  out: "./migrations/sqlite",
});
