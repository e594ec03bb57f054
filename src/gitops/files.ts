// Read-only access to a repository's files, each read once per command, plus the repository file fluxgate.yaml.

import { inContext } from "../errors.ts";
import { readdir, readFile, stat } from "node:fs/promises";
import { join, posix, relative, sep } from "node:path";
import { parseWith } from "../api/index.ts";
import { RepositoryInputError } from "./errors.ts";
import { REPOSITORY_FILE, RepositoryFileSchema, type RepositoryFile } from "./layout.ts";
import { readYaml } from "./yaml-read.ts";
import { isLabelKey, isLabelValue, LABEL_KEY_MESSAGE, LABEL_VALUE_MESSAGE } from "../api/kube-names.ts";

/** Names kustomize recognises for a kustomization file, in its order of preference. */
export const KUSTOMIZATION_FILES = ["kustomization.yaml", "kustomization.yml", "Kustomization"] as const;

/** Directories never looked into. */
const SKIPPED_DIRS = new Set([".git", "node_modules"]);

/** The files of one repository, read lazily and remembered. Paths are relative to the root, "/" separated. */
export class RepoFiles {
  readonly root: string;
  private readonly texts = new Map<string, Promise<string | null>>();
  private readonly dirs = new Map<string, Promise<Array<{ name: string; dir: boolean }> | null>>();

  constructor(root: string) {
    this.root = root;
  }

  /** Absolute path of a repository path. */
  abs(path: string): string {
    return join(this.root, path);
  }

  /** Repository path of an absolute path, or null when it lies outside the repository. */
  rel(abs: string): string | null {
    const r = relative(this.root, abs).split(sep).join("/");
    return r.startsWith("../") || r === ".." ? null : r;
  }

  /** The file's text, or null when there is no such file. */
  text(path: string): Promise<string | null> {
    let t = this.texts.get(path);
    if (t === undefined) {
      t = readFile(this.abs(path), "utf8").catch((e: NodeJS.ErrnoException) => {
        if (e.code === "ENOENT" || e.code === "EISDIR" || e.code === "ENOTDIR") return null;
        throw e;
      });
      this.texts.set(path, t);
    }
    return t;
  }

  /** The entries of a directory, or null when it is not one. */
  list(path: string): Promise<Array<{ name: string; dir: boolean }> | null> {
    let d = this.dirs.get(path);
    if (d === undefined) {
      d = readdir(this.abs(path), { withFileTypes: true })
        .then((entries) => entries.map((e) => ({ name: e.name, dir: e.isDirectory() })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)))
        .catch((e: NodeJS.ErrnoException) => {
          if (e.code === "ENOENT" || e.code === "ENOTDIR") return null;
          throw e;
        });
      this.dirs.set(path, d);
    }
    return d;
  }

  async isDir(path: string): Promise<boolean> {
    return (await this.list(path)) !== null;
  }

  /** The kustomization file of a directory (`kustomization.yaml`, `.yml` or `Kustomization`), or null. */
  async kustomizationFile(dir: string): Promise<string | null> {
    const entries = await this.list(dir);
    if (entries === null) return null;
    for (const name of KUSTOMIZATION_FILES) if (entries.some((e) => e.name === name && !e.dir)) return join2(dir, name);
    return null;
  }

  /** Every file below `dir` (recursively, skipping .git and node_modules), sorted. */
  async walk(dir = ""): Promise<string[]> {
    const out: string[] = [];
    const entries = (await this.list(dir)) ?? [];
    for (const e of entries) {
      const path = join2(dir, e.name);
      if (e.dir) {
        if (!SKIPPED_DIRS.has(e.name)) out.push(...(await this.walk(path)));
      } else out.push(path);
    }
    return out;
  }
}

/** Joins repository paths and normalises `.` and `..`; "" is the root. */
export function join2(...parts: string[]): string {
  const joined = posix.normalize(parts.filter((p) => p !== "" && p !== ".").join("/") || ".");
  return joined === "." ? "" : joined.replace(/\/$/, "");
}

/** A repository path of a Flux `spec.path` ("./clusters/x", "clusters/x/", "" for the root). */
export function fluxPath(path: unknown): string {
  return typeof path === "string" ? join2(path.replace(/^\.\/?/, "").replace(/^\/+/, "")) : "";
}

/** Checks that `root` is a directory. */
export async function requireDirectory(root: string, what: string): Promise<void> {
  const s = await stat(root).catch(() => null);
  if (s === null || !s.isDirectory()) throw new RepositoryInputError(`${what} ${root}: no such directory`);
}

/** Reads and validates fluxgate.yaml; null when the repository has none. */
export async function readRepositoryFile(files: RepoFiles): Promise<RepositoryFile | null> {
  const text = await files.text(REPOSITORY_FILE);
  if (text === null) return null;
  return parseRepositoryFile(text);
}

/**
 * A repository-relative path that stays inside the repository: relative, "/"-separated, no "..".
 * Cluster paths in fluxgate.yaml are joined with file names by every command and by the Config Service.
 */
export function isSafeRelativePath(path: string): boolean {
  if (path.includes("\\") || path.includes("\0") || path.startsWith("/")) return false;
  return path.split("/").every((segment) => segment !== "" && segment !== "." && segment !== "..");
}

/**
 * Validates the text of fluxgate.yaml, for every command and the Config Service alike: YAML within
 * the bounds of readYaml, the schema, unique type names, unique cluster names, cluster paths inside
 * the repository and unique. Throws a RepositoryInputError naming each problem.
 */
export function parseRepositoryFile(text: string): RepositoryFile {
  const read = readYaml(text);
  if (read.problem !== null) throw new RepositoryInputError(`${REPOSITORY_FILE}: ${read.problem}`);
  const file = inContext({ field: REPOSITORY_FILE, as: RepositoryInputError }, () => parseWith(RepositoryFileSchema, read.value)) as RepositoryFile;
  // One pass with a set: a fleet of 10,000 clusters is checked in linear time.
  const twice = <T>(xs: readonly T[]): T | undefined => {
    const seen = new Set<T>();
    for (const x of xs) {
      if (seen.has(x)) return x;
      seen.add(x);
    }
    return undefined;
  };
  const dupType = twice(file.types.map((t) => t.name));
  if (dupType !== undefined) throw new RepositoryInputError(`${REPOSITORY_FILE}: type "${dupType}" is listed twice`);
  const dupCluster = twice(file.clusters.map((c) => c.name));
  if (dupCluster !== undefined) throw new RepositoryInputError(`${REPOSITORY_FILE}: cluster "${dupCluster}" is listed twice`);
  for (const [i, c] of file.clusters.entries()) {
    if (!isSafeRelativePath(c.path)) {
      throw new RepositoryInputError(
        `${REPOSITORY_FILE}: clusters[${i}].path: "${c.path}" must be a relative path inside the repository, with "/" separators and no ".."`,
      );
    }
  }
  for (const c of file.clusters) checkLabels(c.name, c.labels);
  const dupPath = twice(file.clusters.map((c) => join2(c.path)));
  if (dupPath !== undefined) throw new RepositoryInputError(`${REPOSITORY_FILE}: two clusters have the path "${dupPath}"`);
  return file;
}

/** Checks a cluster's labels: Kubernetes label keys with string values that are label values. */
function checkLabels(cluster: string, labels: Readonly<Record<string, unknown>> | undefined): void {
  for (const [key, value] of Object.entries(labels ?? {})) {
    const at = `${REPOSITORY_FILE}: cluster "${cluster}": label "${key.slice(0, 80)}"`;
    if (!isLabelKey(key)) throw new RepositoryInputError(`${at}: the key ${LABEL_KEY_MESSAGE}`);
    if (typeof value !== "string") throw new RepositoryInputError(`${at}: the value must be a string (write ${JSON.stringify(String(value))} in quotes)`);
    if (!isLabelValue(value)) throw new RepositoryInputError(`${at}: "${value.slice(0, 80)}" ${LABEL_VALUE_MESSAGE}`);
  }
}
