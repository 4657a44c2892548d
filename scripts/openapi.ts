/**
 * Writes the OpenAPI document exactly as the server serves it (`GET /openapi.json`) to the file
 * named on the command line (or stdout), so CI can lint what clients actually get.
 * Starts the real service on port 0 against a throwaway in-memory database.
 */
import { writeFileSync } from "node:fs";
import { loadConfig } from "../src/config.ts";
import { silentLogger } from "../src/logger.ts";
import { startService } from "../src/serve.ts";

const config = loadConfig({
  OG_DB_PATH: ":memory:",
  PORT: "0",
  HOST: "127.0.0.1",
  OG_BOOTSTRAP: "false",
  OG_LOG_LEVEL: "silent",
  OG_RENDER_WORKERS: "1",
});
const service = await startService(config, { logger: silentLogger, print: () => {} });
try {
  const res = await fetch(`${service.url}/openapi.json`);
  if (!res.ok) throw new Error(`GET /openapi.json answered ${res.status}`);
  const text = JSON.stringify(await res.json(), null, 2) + "\n";
  const out = Bun.argv[2];
  if (out) writeFileSync(out, text);
  else process.stdout.write(text);
} finally {
  await service.stop();
}
