// HEAD's commit read from the files git keeps its refs in (HEAD, loose refs, packed-refs), without starting git.

import { readFile, stat } from "node:fs/promises";
import { isAbsolute, join } from "node:path";
import type { Git } from "./git.ts";

const OBJECT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
/** A ref name as git writes it: under refs/, no `..`, no empty or dot-led component. */
const REF_NAME = /^refs\/(?:[A-Za-z0-9_+@-][A-Za-z0-9._+@-]*\/)*[A-Za-z0-9_+@-][A-Za-z0-9._+@-]*$/;
/** Refs of the worktree itself (git-worktree(1), "Refs"); every other ref is shared by all worktrees. */
const PER_WORKTREE = /^refs\/(?:bisect|worktree|rewritten)\//;
/** How many symbolic refs are followed before giving up, as git does. */
const MAX_HOPS = 5;

/**
 * Reads which commit HEAD is at the way git stores it in files: HEAD names a branch, whose loose
 * ref file, or else its line in packed-refs, holds the commit id. The service looks at HEAD each
 * second while it is read, and starting `git rev-parse` for that held the event loop for 2–15 ms
 * (forking a process of a few hundred MiB). Anything these files cannot answer — a repository
 * whose refs are in a reftable, a branch with no commit yet, a file changing under the read —
 * gives `null`, and the caller asks git.
 *
 * @example const head = await (await HeadFiles.of(git)).commit() ?? (await git.text(["rev-parse", "HEAD"]));
 */
export class HeadFiles {
  /** The worktree's own git directory (its HEAD). */
  readonly gitDir: string;
  /** The directory of the refs every worktree shares. */
  readonly commonDir: string;
  private packed: { mtimeMs: number; size: number; refs: Map<string, string> } | null = null;

  private constructor(gitDir: string, commonDir: string) {
    this.gitDir = gitDir;
    this.commonDir = commonDir;
  }

  /** Where the working copy of `git` keeps its HEAD and refs, asked of git once. */
  static async of(git: Git): Promise<HeadFiles> {
    const [gitDir = "", common = ""] = (await git.text(["rev-parse", "--absolute-git-dir", "--git-common-dir"])).split("\n");
    return new HeadFiles(gitDir, isAbsolute(common) ? common : join(git.dir, common));
  }

  /** HEAD's commit id, or null when the files do not say it plainly. */
  async commit(): Promise<string | null> {
    try {
      let ref = "HEAD";
      for (let hop = 0; hop <= MAX_HOPS; hop++) {
        const text = ref === "HEAD" || PER_WORKTREE.test(ref) ? await readIfThere(join(this.gitDir, ref)) : await readIfThere(join(this.commonDir, ref));
        const value = text?.trim() ?? (await this.packedRef(ref));
        if (value === undefined) return null;
        if (OBJECT_ID.test(value)) return value;
        const target = value.startsWith("ref: ") ? value.slice(5).trim() : "";
        if (!REF_NAME.test(target) || target.split("/").some((part) => part.endsWith(".lock") || part.endsWith("."))) return null;
        ref = target;
      }
      return null;
    } catch {
      return null;
    }
  }

  /** A ref's id in packed-refs (read again only when the file changed), or undefined. */
  private async packedRef(ref: string): Promise<string | undefined> {
    if (ref === "HEAD") return undefined;
    const file = join(this.commonDir, "packed-refs");
    const info = await stat(file).catch(() => null);
    if (info === null) return undefined;
    if (this.packed === null || this.packed.mtimeMs !== info.mtimeMs || this.packed.size !== info.size) {
      const refs = new Map<string, string>();
      for (const line of (await readFile(file, "utf8")).split("\n")) {
        // "# pack-refs with: ..." is a header, "^<id>" the peeled id of the tag above.
        if (line.startsWith("#") || line.startsWith("^")) continue;
        const space = line.indexOf(" ");
        if (space > 0) refs.set(line.slice(space + 1).trim(), line.slice(0, space));
      }
      this.packed = { mtimeMs: info.mtimeMs, size: info.size, refs };
    }
    return this.packed.refs.get(ref);
  }
}

async function readIfThere(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT" || (e as NodeJS.ErrnoException).code === "ENOTDIR") return undefined;
    throw e;
  }
}
