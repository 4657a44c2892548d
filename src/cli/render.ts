/** `ogsmith render`: render images with no server and no quota (static-site builds, DESIGN §1). */
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import type { Config } from "../config.ts";
import { createInProcessRenderer } from "../render/engine.ts";
import { parseRenderRequest } from "../render/request.ts";
import { createTemplateRegistry } from "../templates/registry.ts";
import { UsageError } from "./output.ts";

export async function runRender(_config: Config, argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      json: { type: "string" },
      output: { type: "string", short: "o" },
    },
  });
  if (!values.json || !values.output) throw new UsageError("Usage: ogsmith render --json '<request body>' -o out.png");
  let body: unknown;
  try {
    body = JSON.parse(values.json);
  } catch (error) {
    throw new UsageError(`--json is not valid JSON: ${(error as Error).message}`);
  }
  const templates = await createTemplateRegistry();
  const renderer = await createInProcessRenderer(templates);
  try {
    const result = await renderer.render(parseRenderRequest(body, templates));
    writeFileSync(values.output, result.bytes);
    console.log(`${values.output}: ${result.width}×${result.height} PNG, ${result.bytes.byteLength} bytes, ${result.generationTimeMs} ms`);
    return 0;
  } finally {
    await renderer.close();
  }
}
