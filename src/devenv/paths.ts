// Where the local control plane finds the package (its tools modules, config/) and keeps its cache of built tools.
import { stat } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The package root: this file lives in src/devenv/ (or dist/devenv/ once built). */
export const repoRoot: string = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** The Go tools modules, one folder per upstream tool. */
export const toolsModulesDir: string = join(repoRoot, "tools");

/**
 * The cache of built tools, outside the repository: `$FLUXGATE_CACHE_DIR`, else
 * `$XDG_CACHE_HOME/fluxgate`, else `~/.cache/fluxgate`.
 */
export function cacheRoot(): string {
  const explicit = process.env["FLUXGATE_CACHE_DIR"];
  if (explicit !== undefined && explicit !== "") return resolve(explicit);
  const xdg = process.env["XDG_CACHE_HOME"];
  const base = xdg !== undefined && xdg !== "" ? xdg : join(homedir(), ".cache");
  return join(base, "fluxgate");
}

/** Whether something exists at `path` (a file or a directory). */
export async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}
