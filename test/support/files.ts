// Repositories on disk for tests: written from a map of files, removed, and read back whole to show what a command changed.

import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";

/** Writes the files into a new temporary directory and returns it. */
export async function writeRepo(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "fluxgate-repo-"));
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  return dir;
}

export async function removeRepo(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

/** Every file under dir with its content, to show that a command changed nothing. */
export async function snapshot(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (d: string): Promise<void> => {
    for (const e of await readdir(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else out.set(relative(dir, p), await readFile(p, "utf8"));
    }
  };
  await walk(dir);
  return out;
}
