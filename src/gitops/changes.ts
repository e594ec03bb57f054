// File changes planned by init, split and migrate: shown as a unified diff (--dry-run) or written to the repository.

import { mkdir, readdir, readFile, rename, rmdir, unlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { createTwoFilesPatch, FILE_HEADERS_ONLY } from "diff";
import { ToolFailedError } from "./errors.ts";

/** One file's planned content. `before`/`after` null means the file does not exist before/after. */
export interface FileChange {
  /** Relative to the repository root, "/" separators. */
  path: string;
  before: string | null;
  after: string | null;
}

/** Only the changes that change something, sorted by path. */
export function effective(changes: readonly FileChange[]): FileChange[] {
  return changes.filter((c) => c.before !== c.after).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * The changes as one git-style unified diff (`--- a/x`, `+++ b/x`, `/dev/null` for a new or removed file).
 *
 * @example unifiedDiff([{ path: "fluxgate.yaml", before: null, after: "kind: Repository\n" }])
 */
export function unifiedDiff(changes: readonly FileChange[]): string {
  return effective(changes)
    .map((c) =>
      createTwoFilesPatch(
        c.before === null ? "/dev/null" : `a/${c.path}`,
        c.after === null ? "/dev/null" : `b/${c.path}`,
        c.before ?? "",
        c.after ?? "",
        undefined,
        undefined,
        {
          context: 3,
          headerOptions: FILE_HEADERS_ONLY,
        },
      ),
    )
    .join("");
}

/** One line per changed file: `created x`, `updated y`, `removed z`. */
export function summary(changes: readonly FileChange[]): string[] {
  return effective(changes).map((c) => `${c.before === null ? "created" : c.after === null ? "removed" : "updated"} ${c.path}`);
}

/**
 * Reads the current content of each path (null when missing), so a planner can work on text alone.
 */
export async function readFiles(root: string, paths: Iterable<string>): Promise<Map<string, string | null>> {
  const out = new Map<string, string | null>();
  for (const path of paths) {
    if (out.has(path)) continue;
    try {
      out.set(path, await readFile(join(root, path), "utf8"));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
      out.set(path, null);
    }
  }
  return out;
}

/**
 * Writes the changes under `root`: each file through a temporary sibling and a rename, removed
 * files deleted, and directories left empty by a removal deleted too. Refuses, before writing
 * anything, when a file changed on disk since it was planned.
 */
export async function writeChanges(root: string, changes: readonly FileChange[]): Promise<void> {
  const todo = effective(changes);
  const now = await readFiles(
    root,
    todo.map((c) => c.path),
  );
  for (const c of todo) {
    if (now.get(c.path) !== c.before) throw new ToolFailedError(`${c.path} changed on disk while fluxgate was planning; run the command again`);
  }
  for (const c of todo) {
    const file = join(root, c.path);
    if (c.after === null) {
      await unlink(file);
      await removeEmptyParents(root, dirname(c.path));
    } else {
      await mkdir(dirname(file), { recursive: true });
      const temp = `${file}.fluxgate-${process.pid}.tmp`;
      await writeFile(temp, c.after);
      await rename(temp, file);
    }
  }
}

async function removeEmptyParents(root: string, dir: string): Promise<void> {
  for (let d = dir; d !== "." && d !== "" && d !== "/"; d = dirname(d)) {
    const abs = join(root, d);
    const left = await readdir(abs).catch(() => null);
    if (left === null || left.length > 0) return;
    await rmdir(abs);
  }
}
