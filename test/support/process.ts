/** Child processes for end-to-end tests of the CLI and the compiled binary. */
import type { Subprocess } from "bun";

export const REPO_ROOT = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");

/** Reads a child's stdout until `pattern` matches, or fails after `timeoutMs` (real time). */
export async function waitForOutput(
  stream: ReadableStream<Uint8Array>,
  pattern: RegExp,
  timeoutMs = 20_000,
): Promise<{ match: RegExpMatchArray; text: string; rest: () => Promise<string> }> {
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

/**
 * Starts `serve` from source as a child on an unused loopback port, with `env` over the settings
 * every such test wants (the admin token, loopback calls allowed, no bootstrap account, info logs
 * for the "listening" line, one render worker), and waits for it to listen. The child is added to
 * `children` for the caller's afterAll to kill. Its output is read to the end afterwards, so a
 * chatty child never blocks on a full pipe.
 */
export async function spawnServe(options: {
  adminToken: string;
  env: Record<string, string>;
  children: Subprocess[];
  timeoutMs?: number;
}): Promise<{ proc: Subprocess<"ignore", "pipe", "pipe">; url: string }> {
  const proc = Bun.spawn(["bun", `${REPO_ROOT}/src/main.ts`, "serve"], {
    cwd: REPO_ROOT, // the tsconfig (JSX runtime of the templates) is found from the working directory
    env: {
      ...process.env,
      PORT: "0",
      HOST: "127.0.0.1",
      OG_ADMIN_TOKEN: options.adminToken,
      OG_ALLOW_PRIVATE_NETWORKS: "1",
      OG_BOOTSTRAP: "false",
      OG_LOG_LEVEL: "info",
      OG_RENDER_WORKERS: "1",
      ...options.env,
    },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  options.children.push(proc);
  const { match, rest } = await waitForOutput(proc.stdout, /"msg":"listening","url":"([^"]+)"/, options.timeoutMs);
  void rest().catch(() => {});
  return { proc, url: match[1]! };
}
