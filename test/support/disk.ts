/**
 * A full disk, for real: a small tmpfs mounted under a test's directory (root only) and a file
 * that fills it. Used by the store-fault tests; no fake file system is involved.
 */
import { spawnSync } from "node:child_process";
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

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

/**
 * Runs `body` with a fresh directory (`base`) holding a 4 MiB tmpfs at `mountDir`, then unmounts
 * and removes both. Without root (or when mounting fails) says so in one line and runs nothing.
 */
export async function withSmallDisk(who: string, body: (dirs: { base: string; mountDir: string }) => Promise<void>): Promise<void> {
  const base = mkdtempSync(join(tmpdir(), `ogsmith-${who}-`));
  const mountDir = join(base, "mnt");
  mkdirSync(mountDir);
  if (!mountTmpfs(mountDir, "4m", who)) {
    rmSync(base, { recursive: true, force: true });
    return;
  }
  try {
    await body({ base, mountDir });
  } finally {
    // Lazy: a handle a stopped server's collector has not released yet must not keep it mounted.
    spawnSync("umount", ["-l", mountDir]);
    rmSync(base, { recursive: true, force: true });
  }
}
