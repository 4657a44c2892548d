/**
 * How much memory a render process holds right now (resident set, bytes), read by the serving
 * process so that a render stuck in native code can still be measured and killed.
 *
 * - Linux: `/proc/<pid>/status` (VmRSS, in kB whatever the page size), a read of a few µs.
 * - macOS and the BSDs: one `ps -o pid=,rss=` for every process at once, asynchronously.
 * - Windows: no reader; the deadline still holds (docs/render-bounds.md says so).
 */
import { readFileSync } from "node:fs";

export type ResidentMemoryReader = (pids: number[]) => Promise<Map<number, number>>;

function linuxReader(pids: number[]): Promise<Map<number, number>> {
  const sizes = new Map<number, number>();
  for (const pid of pids) {
    try {
      const status = readFileSync(`/proc/${pid}/status`, "latin1");
      const match = /VmRSS:\s+(\d+)\s*kB/.exec(status);
      if (match) sizes.set(pid, Number(match[1]) * 1024);
    } catch {
      // Gone between the listing and the read: its exit is handled elsewhere.
    }
  }
  return Promise.resolve(sizes);
}

async function psReader(pids: number[]): Promise<Map<number, number>> {
  const sizes = new Map<number, number>();
  if (pids.length === 0) return sizes;
  const ps = Bun.spawn(["ps", "-o", "pid=,rss=", "-p", pids.join(",")], { stdout: "pipe", stderr: "ignore" });
  const text = await new Response(ps.stdout).text();
  await ps.exited;
  for (const line of text.split("\n")) {
    const [pid, rss] = line.trim().split(/\s+/).map(Number);
    if (Number.isInteger(pid) && Number.isFinite(rss)) sizes.set(pid!, rss! * 1024);
  }
  return sizes;
}

/** The reader for this platform, or undefined where none exists (Windows). */
export function residentMemoryReader(platform: NodeJS.Platform = process.platform): ResidentMemoryReader | undefined {
  if (platform === "linux") return linuxReader;
  if (platform === "win32") return undefined;
  return psReader;
}
