/**
 * A process and its children as the OS sees them (Linux /proc): who they are, how much CPU they
 * have used and how much memory they hold. The sandbox tests measure the serving process and its
 * render processes with these, from outside.
 */
import { readFileSync } from "node:fs";

/** The direct children of `pid` (its render processes). */
export function childrenOf(pid: number): number[] {
  const out = Bun.spawnSync(["pgrep", "-P", String(pid)]).stdout.toString();
  return out
    .split("\n")
    .map((line) => Number(line.trim()))
    .filter((n) => Number.isInteger(n) && n > 0);
}

/**
 * Whether `pid` is still running: a zombie (dead, not yet reaped by whoever adopted it — an
 * orphan's new parent may reap late) runs nothing and holds no memory, so it counts as gone.
 */
export function processExists(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

/** CPU time used by `pid` so far, in seconds (user + system); 0 once it is gone. */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    // Fields after the command (which may hold spaces) start after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** Resident memory of `pid` in bytes; 0 once it is gone. */
export function residentBytes(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+)\s*kB/.exec(readFileSync(`/proc/${pid}/status`, "latin1"));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** The process and its children. */
export const tree = (pid: number): number[] => [pid, ...childrenOf(pid)];

export const treeResidentBytes = (pid: number): number => tree(pid).reduce((sum, p) => sum + residentBytes(p), 0);

/**
 * The tree's CPU use over the next `windowMs`, as a share of one core (children that start or
 * end within the window count for what they used while seen).
 */
export async function treeCpuShare(pid: number, windowMs = 300): Promise<number> {
  const before = new Map(tree(pid).map((p) => [p, cpuSeconds(p)]));
  const started = performance.now();
  await Bun.sleep(windowMs);
  const elapsed = (performance.now() - started) / 1000;
  let used = 0;
  for (const p of tree(pid)) used += cpuSeconds(p) - (before.get(p) ?? 0);
  return used / elapsed;
}

/** Samples the tree's resident memory every `everyMs` until stopped; `peak` is the largest seen. */
export function watchTreeMemory(pid: number, everyMs = 50): { readonly peak: number; stop(): number } {
  let peak = treeResidentBytes(pid);
  const timer = setInterval(() => {
    peak = Math.max(peak, treeResidentBytes(pid));
  }, everyMs);
  return {
    get peak() {
      return peak;
    },
    stop() {
      clearInterval(timer);
      peak = Math.max(peak, treeResidentBytes(pid));
      return peak;
    },
  };
}
