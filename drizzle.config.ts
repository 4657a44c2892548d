import { defineConfig } from "drizzle-kit";

// `bun run db:generate` writes a new SQL migration under migrations/ from the schema files.
// Add the new file to src/db/embedded-migrations.ts (a test fails until you do).
export default defineConfig({
  dialect: "sqlite",
  schema: "./src/db/schema/index.ts",
  out: "./migrations",
});
