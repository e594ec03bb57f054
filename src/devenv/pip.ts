// Python packages the oracles use, installed with pip into the tools cache: a folder per package and version, made once.

import { spawn } from "node:child_process";
import { mkdir, rename, rm } from "node:fs/promises";
import { ToolBuildError } from "./errors.ts";
import { withLock } from "./lock.ts";
import { cacheRoot } from "./paths.ts";

/**
 * Installs `requirement` (`name==version`) with pip into `dir`, unless `ready()` says it is there, and returns `dir`. pip writes into a
 * folder beside it that is renamed when complete, so a failed or interrupted install leaves nothing half-made in `dir`.
 */
export async function pipInstallOnce(dir: string, requirement: string, ready: () => Promise<boolean>, log: (line: string) => void): Promise<string> {
  if (await ready()) return dir;
  await mkdir(cacheRoot(), { recursive: true });
  return withLock(`${dir}.lock`, async () => {
    if (await ready()) return dir;
    const partial = `${dir}.partial`;
    await rm(partial, { recursive: true, force: true });
    log(`installing Python's ${requirement} with pip into ${dir}`);
    await new Promise<void>((resolve, reject) => {
      const child = spawn("python3", ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--target", partial, requirement], {
        stdio: ["ignore", "inherit", "pipe"],
      });
      let stderr = "";
      child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
      child.on("error", (e) => reject(new ToolBuildError(`python3 did not start (${e.message}): install Python 3 with pip`, { cause: e })));
      child.on("close", (code) =>
        code === 0 ? resolve() : reject(new ToolBuildError(`pip could not install ${requirement} (exit ${String(code)}): ${stderr.trim()}`)),
      );
    });
    await rm(dir, { recursive: true, force: true });
    await rename(partial, dir);
    return dir;
  });
}
