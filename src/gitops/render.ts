// Renders a cluster as Flux would: its root Kustomization, then every Flux Kustomization found in what it applies.
//
// Each Flux Kustomization is built with the real kustomize through a small wrapper kustomization
// (in a temporary directory) that does what kustomize-controller adds: the generated
// kustomization of a directory that has none, targetNamespace, namePrefix/nameSuffix, patches,
// images, components, commonMetadata, and postBuild substitution. Builds run in parallel (the
// runner's pool) and are cached by a hash of everything they read.

import { createHash } from "node:crypto";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, posix, relative, resolve, sep } from "node:path";
import { parse, stringify } from "yaml";
import { fluxPath, join2, type RepoFiles } from "./files.ts";
import { v1KustomizationSpec } from "./flux-versions.ts";
import type { KustomizeRunner } from "./kustomize.ts";
import { FLUX_NAMESPACE, ROOT_KUSTOMIZATION, SOURCE_NAME } from "./layout.ts";
import { substitute, substitutions, takeOrigin, wrapperSpec } from "./flux-build.ts";
import { field, isFluxKustomization, isJson, refKey, refOf, str, type Json, type ObjectRef } from "./objects.ts";

/** A manifest rendered by one Flux Kustomization. */
export interface RenderedObject {
  ref: ObjectRef;
  body: Json;
  /** The source file it came from (repository path), when kustomize could say. */
  file: string | null;
}

/** A Flux Kustomization of a cluster and what it renders. */
export interface RenderedKustomization {
  name: string;
  namespace: string;
  /** Repository path it applies. */
  path: string;
  /** The manifest, as its parent rendered it; null for a root that is not in Git. */
  body: Json | null;
  /** The file that declares it; null for a root that is not in Git. */
  file: string | null;
  /** `namespace/name` of the Kustomization that applies it; null for a root. */
  appliedBy: string | null;
  objects: RenderedObject[];
  /** kustomize's message when the build failed. */
  error: string | null;
  /** Every local file the build read (repository paths). */
  inputs: string[];
}

/** Every Flux Kustomization of a cluster that takes its source from this repository, rendered. */
export interface RenderedCluster {
  name: string;
  path: string;
  kustomizations: RenderedKustomization[];
}

/** A Kustomization to start from: the cluster's bootstrap path, or one created outside Git (`flux create`). */
export interface RootSpec {
  name: string;
  namespace: string;
  path: string;
  /**
   * The source that is this repository, as `GitRepository/namespace/name`; "any" for an entry
   * point created outside Git whose source is not named: the GitRepository its children name,
   * whatever it is called, is then taken as this repository.
   */
  source?: string | undefined;
}

/** `namespace/name` of a Kustomization. */
export function kustomizationId(k: { namespace: string; name: string }): string {
  return `${k.namespace}/${k.name}`;
}

interface Build {
  objects: Array<{ ref: ObjectRef; body: Json; origin: string | null }>;
  error: string | null;
  /** Files read, relative to the Kustomization's path. */
  inputs: string[];
}

/** RootSpec.source of an entry point whose source is not named. */
export const ANY_SOURCE = "any";
const REMOTE = /^[a-z][a-z0-9+.-]*:\/\/|^(github\.com|gitlab\.com|bitbucket\.org)\/|\?ref=|^git@/i;

/** Renders clusters of one repository. Call `close()` when done, to remove the temporary wrappers. */
export class Renderer {
  private readonly files: RepoFiles;
  private readonly runner: KustomizeRunner;
  private readonly builds = new Map<string, Promise<Build>>();
  private readonly hashes = new Map<string, Promise<string>>();
  private temp: Promise<string> | null = null;
  private wrappers = 0;
  private uncached = 0;
  /** Builds answered from the cache (same inputs as an earlier build). */
  cacheHits = 0;

  constructor(files: RepoFiles, runner: KustomizeRunner) {
    this.files = files;
    this.runner = runner;
  }

  async close(): Promise<void> {
    if (this.temp !== null) await rm(await this.temp, { recursive: true, force: true });
  }

  /** The cluster's root Kustomization: `flux-system` applying its bootstrap path. */
  static bootstrapRoot(path: string): RootSpec {
    return { name: ROOT_KUSTOMIZATION, namespace: FLUX_NAMESPACE, path: join2(path) };
  }

  /**
   * Renders a cluster from its roots, following every Flux Kustomization whose source is this
   * repository (the root's GitRepository, its parent's source, or a window's gated copy of it).
   */
  async renderCluster(name: string, path: string, roots: readonly RootSpec[]): Promise<RenderedCluster> {
    const done = new Map<string, RenderedKustomization>();
    const sources = new Set([`GitRepository/${FLUX_NAMESPACE}/${SOURCE_NAME}`]);
    const deferred: Array<{ object: RenderedObject; parent: RenderedKustomization }> = [];

    const visit = async (k: RenderedKustomization, source: string): Promise<void> => {
      const any = source === ANY_SOURCE;
      const id = kustomizationId(k);
      const seen = done.get(id);
      if (seen !== undefined) {
        // The bootstrap root declares itself in Git (gotk-sync.yaml): keep its manifest.
        if (seen.body === null && k.body !== null && seen.path === k.path) Object.assign(seen, { body: k.body, file: k.file, appliedBy: k.appliedBy });
        return;
      }
      done.set(id, k);
      const build = await this.build(k);
      k.error = build.error;
      k.inputs = build.inputs.map((i) => join2(k.path, i));
      k.objects = build.objects.map((o) => ({ ref: o.ref, body: o.body, file: o.origin === null ? null : join2(k.path, o.origin) }));
      const children: Array<Promise<void>> = [];
      for (const o of k.objects) {
        if (!isFluxKustomization(o.ref)) continue;
        const ref = sourceOf(o);
        // The children of an entry point created outside Git name its source, whatever it is called.
        if (any && ref.startsWith("GitRepository/")) sources.add(ref);
        if (ref === source || sources.has(ref)) children.push(visit(childOf(o, k), ref));
        else deferred.push({ object: o, parent: k });
      }
      await Promise.all(children);
    };

    for (const r of roots) if (r.source !== undefined && r.source !== ANY_SOURCE) sources.add(r.source);
    await Promise.all(
      roots.map((r) =>
        visit(
          { name: r.name, namespace: r.namespace, path: join2(r.path), body: null, file: null, appliedBy: null, objects: [], error: null, inputs: [] },
          r.source ?? `GitRepository/${FLUX_NAMESPACE}/${SOURCE_NAME}`,
        ),
      ),
    );
    // Kustomizations that take a gated copy of this repository (Gate mode) are this repository's too.
    for (let round = 0; round < 3 && deferred.length > 0; round++) {
      for (const k of done.values()) {
        for (const o of k.objects) {
          if (o.ref.kind !== "ReconciliationWindow") continue;
          const upstream = field(o.body, "spec", "gate", "upstream");
          const gated = str(field(o.body, "spec", "gate", "gatedName"));
          if (gated === undefined || !isJson(upstream)) continue;
          if (sources.has(`${str(upstream.kind) ?? ""}/${o.ref.namespace}/${str(upstream.name) ?? ""}`))
            sources.add(`${str(upstream.kind) ?? ""}/${o.ref.namespace}/${gated}`);
        }
      }
      const next = deferred.splice(0).filter((d) => {
        if (sources.has(sourceOf(d.object))) return true;
        return false;
      });
      await Promise.all(next.map((d) => visit(childOf(d.object, d.parent), sourceOf(d.object))));
    }
    return { name, path: join2(path), kustomizations: [...done.values()].sort((a, b) => (kustomizationId(a) < kustomizationId(b) ? -1 : 1)) };
  }

  private async tempDir(): Promise<string> {
    this.temp ??= mkdtemp(join(tmpdir(), "fluxgate-render-"));
    return this.temp;
  }

  /** Builds one Flux Kustomization, or answers from the cache when its inputs were built before. */
  private async build(k: RenderedKustomization): Promise<Build> {
    const spec = isJson(k.body?.spec) ? v1KustomizationSpec(k.body.spec) : {};
    const entries = await this.entries(k.path);
    if (entries === null) return { objects: [], error: `path "./${k.path}" does not exist in the repository`, inputs: [] };
    const wrapper = wrapperSpec(spec, entries);
    const { remote, inputs } = await this.inputs(k.path, entries);
    const version = await this.runner.version();
    const key = remote
      ? `uncached:${this.uncached++}`
      : sha256(`${version}\n${JSON.stringify(wrapper)}\n${inputs.map((i) => `${posix.relative(k.path, i.path)}\0${i.hash}`).join("\n")}`);
    const cached = this.builds.get(key);
    if (cached !== undefined) {
      this.cacheHits++;
      return cached;
    }
    const relInputs = inputs.map((i) => posix.relative(k.path, i.path));
    const result = this.runBuild(k.path, wrapper, spec).then((b) => ({ ...b, inputs: relInputs }));
    this.builds.set(key, result);
    return result;
  }

  private async runBuild(path: string, wrapper: Json, spec: Json): Promise<Omit<Build, "inputs">> {
    const dir = join(await this.tempDir(), String(this.wrappers++));
    const up = relative(dir, this.files.abs(path)).split(sep).join("/");
    const resources = (wrapper.resources as string[]).map((r) => posix.join(up, r));
    const components = (wrapper.components as string[] | undefined)?.map((c) => posix.join(up, c));
    const content = { ...wrapper, resources, ...(components === undefined ? {} : { components }), buildMetadata: ["originAnnotations"] };
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, "kustomization.yaml"), stringify(content));
    const result = await this.runner.build(dir);
    if (!result.ok) return { objects: [], error: result.message.split(dir).join(".").split(`${up}/`).join("") };
    const vars = substitutions(spec);
    const objects: Build["objects"] = [];
    for (const doc of result.output.split(/^---\n/m)) {
      if (doc.trim() === "") continue;
      const text = vars !== null && !/kustomize\.toolkit\.fluxcd\.io\/substitute:\s*["']?disabled/.test(doc) ? substitute(doc, vars) : doc;
      const body: unknown = parse(text);
      if (!isJson(body)) continue;
      const origin = takeOrigin(body);
      const ref = refOf(body);
      if (ref === null) continue;
      const abs = origin === null ? null : resolve(dir, origin);
      const repoPath = abs === null ? null : this.files.rel(abs);
      objects.push({ ref, body, origin: repoPath === null ? null : posix.relative(path, repoPath) });
    }
    return { objects, error: null };
  }

  /**
   * What the Flux Kustomization's path contributes: the directory itself when it has a
   * kustomization file; otherwise what kustomize-controller generates — every .yaml/.yml file
   * below it and every subdirectory that has a kustomization file (not looked into further).
   * Null when the path does not exist. Paths are relative to `path`.
   */
  private async entries(path: string): Promise<string[] | null> {
    if (!(await this.files.isDir(path))) return null;
    if ((await this.files.kustomizationFile(path)) !== null) return ["."];
    const out: string[] = [];
    const scan = async (dir: string): Promise<void> => {
      for (const e of (await this.files.list(dir)) ?? []) {
        const p = join2(dir, e.name);
        if (e.dir) {
          if (e.name === ".git") continue;
          if ((await this.files.kustomizationFile(p)) !== null) out.push(posix.relative(path, p));
          else await scan(p);
        } else if (/\.ya?ml$/.test(e.name)) out.push(posix.relative(path, p));
      }
    };
    await scan(path);
    return out;
  }

  /** Every local file a build reads, with the hash of its content, and whether it may read something remote too. */
  private async inputs(path: string, entries: readonly string[]): Promise<{ remote: boolean; inputs: Array<{ path: string; hash: string }> }> {
    const seen = new Set<string>();
    const fileList: string[] = [];
    let remote = false;
    const addFile = (p: string): void => {
      if (!seen.has(p)) {
        seen.add(p);
        fileList.push(p);
      }
    };
    const addPath = async (p: string): Promise<void> => {
      if (await this.files.isDir(p)) await addKustomization(p);
      else addFile(p);
    };
    const addKustomization = async (dir: string): Promise<void> => {
      if (seen.has(`${dir}/`)) return;
      seen.add(`${dir}/`);
      const kfile = await this.files.kustomizationFile(dir);
      if (kfile === null) return;
      addFile(kfile);
      let k: unknown;
      try {
        k = parse((await this.files.text(kfile)) ?? "");
      } catch {
        return; // kustomize reports it; its output is not cached any differently
      }
      if (!isJson(k)) return;
      const refs: string[] = [];
      const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);
      for (const key of ["resources", "bases", "components", "crds", "configurations", "generators", "transformers", "validators"])
        refs.push(...strings(k[key]));
      for (const p of strings(k.patchesStrategicMerge)) if (!p.includes("\n") && !/^\s*(apiVersion|kind):/m.test(p)) refs.push(p);
      for (const key of ["patches", "patchesJson6902", "replacements"]) {
        for (const item of Array.isArray(k[key]) ? (k[key] as unknown[]) : []) {
          const p = str(field(item, "path"));
          if (p !== undefined) refs.push(p);
        }
      }
      for (const key of ["configMapGenerator", "secretGenerator"]) {
        for (const g of Array.isArray(k[key]) ? (k[key] as unknown[]) : []) {
          for (const f of strings(field(g, "files"))) refs.push(f.includes("=") ? f.slice(f.indexOf("=") + 1) : f);
          refs.push(...strings(field(g, "envs")));
          const env = str(field(g, "env"));
          if (env !== undefined) refs.push(env);
        }
      }
      const openapi = str(field(k, "openapi", "path"));
      if (openapi !== undefined) refs.push(openapi);
      if (k.helmCharts !== undefined || k.helmChartInflationGenerator !== undefined) remote = true;
      for (const r of refs) {
        if (REMOTE.test(r)) remote = true;
        else await addPath(join2(dir, r));
      }
    };
    for (const e of entries) await addPath(join2(path, e));
    return { remote, inputs: await Promise.all(fileList.sort().map(async (p) => ({ path: p, hash: await this.hash(p) }))) };
  }

  private hash(path: string): Promise<string> {
    let h = this.hashes.get(path);
    if (h === undefined) {
      h = this.files.text(path).then((t) => sha256(t ?? "\0missing"));
      this.hashes.set(path, h);
    }
    return h;
  }
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

function sourceOf(o: RenderedObject): string {
  const ref = field(o.body, "spec", "sourceRef");
  return `${str(field(ref, "kind")) ?? "GitRepository"}/${str(field(ref, "namespace")) ?? o.ref.namespace}/${str(field(ref, "name")) ?? ""}`;
}

function childOf(o: RenderedObject, parent: RenderedKustomization): RenderedKustomization {
  return {
    name: o.ref.name,
    namespace: o.ref.namespace,
    path: fluxPath(field(o.body, "spec", "path")),
    body: o.body,
    file: o.file,
    appliedBy: kustomizationId(parent),
    objects: [],
    error: null,
    inputs: [],
  };
}

/** Every object of a cluster with the Kustomizations that render it. */
export function objectsByKey(cluster: RenderedCluster): Map<string, Array<{ object: RenderedObject; by: RenderedKustomization }>> {
  const out = new Map<string, Array<{ object: RenderedObject; by: RenderedKustomization }>>();
  for (const k of cluster.kustomizations) {
    for (const o of k.objects) {
      const key = refKey(o.ref);
      const list = out.get(key);
      if (list === undefined) out.set(key, [{ object: o, by: k }]);
      else list.push({ object: o, by: k });
    }
  }
  return out;
}
