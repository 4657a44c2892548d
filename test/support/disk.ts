/**
 * A full disk, for real: a small tmpfs mounted under a test's directory (root only) and a file
 * that fills it. Used by the store-fault tests; no fake file system is involved.
 */
import { spawnSync } from "node:child_process";
import { closeSync, openSync, writeSync } from "node:fs";

/** Mounts a tmpfs of `size` on `dir`; false, with one printed line naming `who`, when that is not possible. */
export function mountTmpfs(dir: string, size: string, who: string): boolean {
  if (process.getuid?.() !== 0) {
    console.log(`${who}: skipping the disk-full test (needs root to mount a tmpfs)`);
    return false;
  }
  const mounted = spawnSync("mount", ["-t", "tmpfs", "-o", `size=${size}`, "tmpfs", dir], { encoding: "utf8" });
  if (mounted.status !== 0) {
    console.log(`${who}: skipping the disk-full test (mount failed: ${(mounted.stderr || mounted.error?.message || "").trim()})`);
    return false;
  }
  return true;
}

/** Writes zeros to `path` in `chunkBytes` pieces until the file system is full (less than a piece is left). */
export function fillDisk(path: string, chunkBytes = 64 * 1024): void {
  const fd = openSync(path, "w");
  const chunk = Buffer.alloc(chunkBytes);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOSPC") throw error;
  } finally {
    closeSync(fd);
  }
}
