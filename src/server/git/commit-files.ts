// Reading a commit of the fleet's repository without a checkout: its YAML files, or all its files written to a directory (for kustomize).

import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { isSafeRelativePath } from "../../gitops/files.ts";
import { MAX_YAML_BYTES } from "../../gitops/yaml-read.ts";
import type { Git } from "./git.ts";
import type { FileAt } from "../model/model.ts";
import { inSlices } from "../model/slices.ts";

interface Entry {
  mode: string;
  type: string;
  blob: string;
  size: number;
  path: string;
}

/** The blobs under `paths` at `commit` (all of them without `paths`), with their modes and sizes. */
async function listBlobs(git: Git, commit: string, paths: readonly string[]): Promise<Entry[]> {
  // -l gives each blob's size, so that a blob too large to read is listed but never read.
  const listing = await git.run(["ls-tree", "-r", "-z", "-l", "--full-tree", commit, ...(paths.length === 0 ? [] : ["--", ...paths])]);
  return listing.stdout
    .split("\0")
    .filter((line) => line !== "")
    .map((line) => {
      const tab = line.indexOf("\t");
      const [mode, type, blob, size] = line.slice(0, tab).trim().split(/\s+/);
      return { mode: mode as string, type: type as string, blob: blob as string, size: Number(size), path: line.slice(tab + 1) };
    })
    .filter((e) => e.type === "blob");
}

/** The contents of `entries`, read in one `git cat-file --batch`. */
async function readBlobs(git: Git, entries: readonly Entry[]): Promise<Map<string, Buffer>> {
  const contents = new Map<string, Buffer>();
  if (entries.length === 0) return contents;
  // The batch output is "<id> blob <size>\n<content>\n" per object; sizes are in bytes, so it is read as bytes.
  const bytes = await git.bytes(["cat-file", "--batch"], { input: entries.map((e) => `${e.blob}\n`).join("") });
  // In turns of the event loop: a commit of a fleet freeze is thousands of blobs.
  let at = 0;
  await inSlices(entries, (entry) => {
    const eol = bytes.indexOf(10, at);
    const size = Number(bytes.subarray(at, eol).toString("latin1").split(" ")[2]);
    const start = eol + 1;
    contents.set(entry.path, bytes.subarray(start, start + size));
    at = start + size + 1;
  });
  return contents;
}

/**
 * The YAML files under `paths` at `commit`, with their blob ids. `known` gives texts by blob id
 * (those of an earlier commit): only the blobs it lacks are read.
 */
export async function yamlFilesAt(git: Git, commit: string, paths: readonly string[], known?: ReadonlyMap<string, string>): Promise<FileAt[]> {
  // Many pathspecs make git match every file against each of them: past a few, the whole tree is
  // listed once and the files under `paths` picked out here, a lookup per directory of each file.
  const many = paths.length > 16;
  const under = new Set(paths.map((p) => p.replace(/\/+$/, "")));
  const inside = (path: string): boolean => {
    if (under.has(path)) return true;
    for (let at = path.lastIndexOf("/"); at > 0; at = path.lastIndexOf("/", at - 1)) if (under.has(path.slice(0, at))) return true;
    return false;
  };
  const entries = (await listBlobs(git, commit, many ? [] : paths)).filter((e) => e.path.endsWith(".yaml") && (!many || inside(e.path)));
  // A blob too large to be a manifest is listed but never read (readYaml refuses it).
  const texts = await readBlobs(
    git,
    entries.filter((e) => e.size <= MAX_YAML_BYTES && known?.has(e.blob) !== true),
  );
  return entries.map((e) => ({ path: e.path, blob: e.blob, size: e.size, text: known?.get(e.blob) ?? texts.get(e.path)?.toString("utf8") ?? "" }));
}

/** A YAML file that differs between two commits: its file at the second, or null when the second has none at its path. */
export interface ChangedFile {
  path: string;
  file: FileAt | null;
}

/** Modes of what ls-tree lists as a blob: files and symbolic links (a submodule is a commit, not read). */
const BLOB_MODES = new Set(["100644", "100755", "120000"]);

/**
 * The YAML files that differ between commits `from` and `to` (`git diff-tree`, no rename detection:
 * a renamed file is one deleted and one added), each with its file at `to`, read as yamlFilesAt
 * reads it (a blob too large to be a manifest is listed with its size and an empty text).
 *
 * @example const changed = await changedYamlFiles(git, parent, commit); // [{ path: "clusters/a/windows/x.yaml", file: {...} }]
 */
export async function changedYamlFiles(git: Git, from: string, to: string): Promise<ChangedFile[]> {
  // -z raw lines: ":<old mode> <new mode> <old id> <new id> <status>\0<path>\0".
  const { stdout } = await git.run(["diff-tree", "-r", "-z", "--no-renames", "--no-commit-id", from, to]);
  const fields = stdout.split("\0");
  // Each loop in turns of the event loop: a fleet freeze changes thousands of files.
  const pairs = Array.from({ length: Math.floor(fields.length / 2) }, (_, i) => i * 2);
  const listed = await inSlices(pairs, (i): { path: string; entry: Entry | null } | null => {
    const [, mode, , blob] = (fields[i] as string).slice(1).split(" ");
    const path = fields[i + 1] as string;
    if (!path.endsWith(".yaml")) return null;
    return { path, entry: BLOB_MODES.has(mode as string) ? { mode: mode as string, type: "blob", blob: blob as string, size: 0, path } : null };
  });
  const changed = listed.filter((c) => c !== null);
  const entries = changed.flatMap((c) => (c.entry === null ? [] : [c.entry]));
  if (entries.length > 0) {
    // Sizes first: a blob too large to be a manifest is never read.
    const checked = await git.run(["cat-file", "--batch-check"], { input: entries.map((e) => `${e.blob}\n`).join("") });
    const lines = checked.stdout.split("\n");
    await inSlices(entries, (entry, i) => {
      entry.size = Number(lines[i]?.split(" ")[2]);
    });
  }
  const texts = await readBlobs(
    git,
    entries.filter((e) => e.size <= MAX_YAML_BYTES),
  );
  return await inSlices(changed, ({ path, entry }) => ({
    path,
    file: entry === null ? null : { path, blob: entry.blob, size: entry.size, text: texts.get(path)?.toString("utf8") ?? "" },
  }));
}

/**
 * Writes the files of `commit` below `dir`, as a checkout would, for tools that read a directory
 * (kustomize). Symbolic links and submodules are left out: a link could lead kustomize out of `dir`.
 */
export async function writeCommit(git: Git, commit: string, dir: string): Promise<void> {
  const entries = (await listBlobs(git, commit, [])).filter((e) => (e.mode === "100644" || e.mode === "100755") && isSafeRelativePath(e.path));
  const contents = await readBlobs(git, entries);
  for (const e of entries) {
    const file = join(dir, e.path);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, contents.get(e.path) ?? Buffer.alloc(0));
  }
}
