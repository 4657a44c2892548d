/** Child processes for end-to-end tests of the CLI and the compiled binary. */
import type { Subprocess } from "bun";

export const REPO_ROOT = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");

/** Reads a child's stdout until `pattern` matches, or fails after `timeoutMs` (real time). */
export async function waitForOutput(stream: ReadableStream<Uint8Array>, pattern: RegExp, timeoutMs = 20_000): Promise<{ match: RegExpMatchArray; text: string; rest: () => Promise<string> }> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let text = "";
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const chunk = await Promise.race([reader.read(), Bun.sleep(Math.max(0, deadline - Date.now())).then(() => undefined)]);
    if (!chunk || chunk.done) break;
    text += decoder.decode(chunk.value, { stream: true });
    const match = text.match(pattern);
    if (match) {
      return {
        match,
        text,
        rest: async () => {
          let more = "";
          for (;;) {
            const next = await reader.read();
            if (next.done) return text + more;
            more += decoder.decode(next.value, { stream: true });
          }
        },
      };
    }
  }
  throw new Error(`output did not match ${pattern} within ${timeoutMs} ms; got:\n${text}`);
}

export async function runCli(args: string[], env: Record<string, string> = {}, cwd = REPO_ROOT): Promise<{ code: number; stdout: string; stderr: string }> {
  const proc = Bun.spawn(["bun", `${REPO_ROOT}/src/main.ts`, ...args], { cwd, env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

export async function killAndWait(proc: Subprocess, signal: NodeJS.Signals = "SIGTERM"): Promise<number> {
  proc.kill(signal);
  return proc.exited;
}
