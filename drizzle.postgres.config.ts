import { defineConfig } from "drizzle-kit";

// `bun run db:generate:postgres` writes a new SQL migration under migrations/postgres/ from the
// PostgreSQL schema. Add the new file to src/store/postgres/migrations.ts.
export default defineConfig({
  dialect: "postgresql",
  schema: "./src/store/postgres/schema.ts",
  out: "./migrations/postgres",
});
