// A cross-process lock (an atomically created directory holding the owner's pid) so parallel processes build a tool once.
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

/** True when a process with this pid exists (also one of another user). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

async function tryAcquire(path: string): Promise<boolean> {
  try {
    await mkdir(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    const owner = Number(await readFile(join(path, "pid"), "utf8").catch(() => "NaN"));
    // A lock whose owner died (or that has no owner yet written) is stale once the owner is gone.
    if (Number.isInteger(owner) && !alive(owner)) await rm(path, { recursive: true, force: true });
    return false;
  }
  await writeFile(join(path, "pid"), String(process.pid));
  return true;
}

/** Runs `fn` while holding the lock at `path`, waiting for another process that holds it. */
export async function withLock<T>(path: string, fn: () => Promise<T>): Promise<T> {
  while (!(await tryAcquire(path))) await sleep(1000);
  try {
    return await fn();
  } finally {
    await rm(path, { recursive: true, force: true });
  }
}
