// Reading a commit of the fleet's repository: its YAML files, listed and read in one batch each, without a checkout.

import { MAX_YAML_BYTES } from "../gitops/yaml-read.ts";
import type { Git } from "./git.ts";
import type { FileAt } from "./model.ts";

/** The YAML files under `paths` at `commit`, with their blob ids. */
export async function yamlFilesAt(git: Git, commit: string, paths: readonly string[]): Promise<FileAt[]> {
  // -l gives each blob's size: a blob too large to be a manifest is listed but never read (readYaml refuses it).
  const listing = await git.run(["ls-tree", "-r", "-z", "-l", "--full-tree", commit, "--", ...paths]);
  const entries = listing.stdout
    .split("\0")
    .filter((line) => line !== "")
    .map((line) => {
      const tab = line.indexOf("\t");
      const [, type, blob, size] = line.slice(0, tab).trim().split(/\s+/);
      return { type, blob: blob as string, size: Number(size), path: line.slice(tab + 1) };
    })
    .filter((e) => e.type === "blob" && e.path.endsWith(".yaml"));
  const small = entries.filter((e) => e.size <= MAX_YAML_BYTES);
  const texts = new Map<string, string>();
  if (small.length > 0) {
    // The batch output is "<id> blob <size>\n<content>\n" per object; sizes are in bytes, so it is read as bytes.
    const bytes = await git.bytes(["cat-file", "--batch"], { input: small.map((e) => `${e.blob}\n`).join("") });
    let at = 0;
    for (const entry of small) {
      const eol = bytes.indexOf(10, at);
      const size = Number(bytes.subarray(at, eol).toString("utf8").split(" ")[2]);
      const start = eol + 1;
      texts.set(entry.path, bytes.subarray(start, start + size).toString("utf8"));
      at = start + size + 1;
    }
  }
  return entries.map((e) => ({ path: e.path, blob: e.blob, size: e.size, text: texts.get(e.path) ?? "" }));
}
