/**
 * The command line that runs this program again, for hints printed to the operator: the path of
 * the compiled binary as it would be typed from here, or `bun run ogsmith` from the source tree
 * (package.json's `ogsmith` script, which works wherever `bun run start` does).
 */
import { basename, dirname, relative } from "node:path";
import { isCompiledBinary } from "../compiled.ts";

export function selfCommand(): string {
  if (!isCompiledBinary) return "bun run ogsmith";
  const executable = process.execPath;
  const onPath = (process.env.PATH ?? "").split(":").includes(dirname(executable));
  if (onPath) return basename(executable);
  const rel = relative(process.cwd(), executable);
  return rel.startsWith("..") || rel.startsWith("/") ? executable : `./${rel}`;
}
