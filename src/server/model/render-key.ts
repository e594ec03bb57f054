// The content key of a cluster's fleet-window render: everything kustomize reads of its windows/ folder, so an edit of any of it renders the cluster again.

import { createHash } from "node:crypto";
import { posix } from "node:path";
import { CLUSTER_IDENTITY_NAME, CLUSTER_IDENTITY_NAMESPACE } from "../../api/index.ts";
import { isJson, type Json } from "../../gitops/objects.ts";
import { readYaml } from "../../gitops/yaml-read.ts";
import { collectInputPaths } from "./kustomization-inputs.ts";
import { classify, type ClusterModel, type FileAt } from "./model.ts";

/** What the render key needs of a cluster's windows/kustomization.yaml, read once per blob. */
export interface KustomizationReading {
  /** The kustomization's part of the key: its content (canonical JSON), or its blob when it cannot be read. */
  text: string;
  /** Repository paths its `resources` list (files of the folder kustomize reads as objects). */
  resources: ReadonlySet<string>;
  /** Repository paths it names anywhere else (patch files, generators, components...). */
  referenced: ReadonlySet<string>;
  /**
   * True when nothing in it reads the content of the cluster's own windows and overrides: no
   * field but `resources`, `patches` and metadata-like fields, and every patch targets, by exact
   * name, a fleet window the folder includes. Then the cluster's own manifests change the fleet
   * windows' render only through what kustomize checks of every resource (its YAML and its id).
   */
  narrow: boolean;
}

/** Fields of a kustomization that transform every object the same way without reading any object's content. */
const NARROW_FIELDS = new Set(["apiVersion", "kind", "metadata", "resources", "patches", "namespace", "commonLabels", "commonAnnotations", "labels"]);

/** A patch target's name kustomize matches only against itself (its names are regular expressions; '.' matches anything). */
const PLAIN_NAME = /^[a-z0-9-]+$/;

/**
 * Reads a cluster's windows/kustomization.yaml for the render key. `includes` are the fleet
 * windows it includes (by `resources`).
 */
export function readKustomization(model: ClusterModel, file: FileAt, includes: readonly string[]): KustomizationReading {
  const resources = new Set<string>();
  const referenced = new Set<string>();
  const read = readYaml(file.text, file.size);
  const k = read.value;
  // Not a kustomization kustomize can read: its bytes are the key (the folder fails to build).
  if (read.problem !== null || !isJson(k)) return { text: `${file.path.slice(model.windowsDir.length)}\0${file.blob}`, resources, referenced, narrow: false };
  // What kustomize reads of it, not its bytes: comments (fluxgate init writes one naming the
  // cluster), layout, quoting and the order of keys change nothing it builds, so clusters whose
  // files differ only so share one build.
  const text = canonical(k);
  const at = (p: string): string => posix.normalize(posix.join(model.windowsDir, p));
  for (const r of Array.isArray(k.resources) ? k.resources : []) if (typeof r === "string") resources.add(at(r));
  collectInputPaths(k, (p) => referenced.add(at(p)));
  const patches = Array.isArray(k.patches) ? (k.patches as unknown[]) : [];
  const narrow =
    Object.keys(k).every((f) => NARROW_FIELDS.has(f)) &&
    patches.every((p) => {
      const target = isJson(p) ? p.target : undefined;
      if (!isJson(target) || Object.keys(target).some((f) => f !== "kind" && f !== "name" && f !== "group" && f !== "version" && f !== "namespace"))
        return false;
      return target.kind === "ReconciliationWindow" && typeof target.name === "string" && PLAIN_NAME.test(target.name) && includes.includes(target.name);
    });
  return { text, resources, referenced, narrow };
}

/** A parsed YAML value as JSON with the keys of every mapping sorted: one text for one content. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (isJson(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v));
}

/**
 * The key of what a cluster's fleet windows are rendered from: its kustomization (as content), every other
 * file of its windows/ folder, and the fleet bases it includes. Paths are relative to the folder,
 * so clusters alike share one render.
 *
 * A window or override of the cluster's own that the kustomization lists only in `resources`
 * enters the key by what kustomize checks of it (that it is YAML, its kind, name and namespace,
 * the shape of its labels and annotations),
 * not by its whole text, when the kustomization is `narrow`: then nothing reads its content into
 * the fleet windows, and clusters whose own windows differ (as every real cluster's do) still
 * share a build, and a write of one of them renders nothing again. Any other file enters by its
 * blob: a patch file (`patches: - path: zone-patch.yaml`) that looks like a window by its name is
 * still read by kustomize into the fleet window, and a file nothing names costs a render only
 * when it changes. Without `narrow` (a patch by label or without target, replacements, generators...)
 * every file enters by its blob.
 *
 * The cluster's identity file (fluxgate-cluster.yaml of the fleet folder's layout) enters, when the
 * kustomization is `narrow`, by all but the values of its `data` (identityManifestOf): they name the
 * cluster and its labels, which differ from cluster to cluster, and nothing reads them into a window
 * (the fields of a narrow kustomization transform metadata, never a ConfigMap's data). Clusters
 * that differ only in it share one build, and each cluster's identity picks its fleet windows and
 * freezes from it afterwards (fleet-model.ts), as its controller does.
 */
export function renderKey(
  model: ClusterModel,
  reading: KustomizationReading,
  folder: readonly FileAt[],
  bases: readonly FileAt[],
  identityManifest: (file: FileAt) => Json | null = (f) => identityManifestOf(f.text, f.size),
): string {
  const manifests = new Map<string, unknown>();
  for (const w of model.windows) if (w.fleet === null) manifests.set(w.path, w.manifest);
  for (const o of model.overrides) manifests.set(o.path, o.manifest);
  const parts = [`kustomization\0${reading.text}`];
  for (const f of folder) {
    if (f.path === model.kustomization?.path) continue;
    const rel = f.path.slice(model.windowsDir.length);
    const kind = classify(model.entry, f.path);
    const listed = reading.narrow && reading.resources.has(f.path) && !reading.referenced.has(f.path);
    const own = listed && kind !== null && kind.kind !== "kustomization";
    const id = own ? identity(manifests.get(f.path)) : null;
    // The cluster's identity file (fluxgate-cluster.yaml) by its kind and name: every cluster's says
    // another name and labels, and nothing reads them into the windows; the cluster's identity
    // selects among the shared render afterwards (fleet-model.ts), as the controller does.
    const named = listed && id === null && f.path === identityPath(model) ? identityManifest(f) : null;
    const idOfIdentity = named === null ? null : identityFileKey(named);
    if (id !== null) parts.push(`${rel}\0id\0${id}`);
    else if (idOfIdentity !== null) parts.push(`${rel}\0identity\0${idOfIdentity}`);
    else parts.push(`${rel}\0${f.blob}`);
  }
  for (const f of bases) parts.push(`${f.path}\0${f.blob}`);
  return createHash("sha256").update(parts.sort().join("\n")).digest("hex");
}

/** An identity ConfigMap in the render key: all but the values of its data, once per manifest read. */
function identityFileKey(manifest: Json): string {
  let found = identityKeys.get(manifest);
  if (found === undefined) identityKeys.set(manifest, (found = canonical({ ...manifest, data: Object.keys(manifest.data as Json).sort() })));
  return found;
}
const identityKeys = new WeakMap<Json, string>();

/** Where a cluster's identity file is, in its windows/ folder. */
export function identityPath(model: ClusterModel): string {
  return `${model.windowsDir}/${CLUSTER_IDENTITY_NAME}.yaml`;
}

/** Keys of an identity ConfigMap besides `data`: whatever else it says could reach kustomize's output otherwise. */
const IDENTITY_FIELDS = new Set(["apiVersion", "kind", "metadata", "data"]);

/**
 * The identity ConfigMap a file holds, when it holds just that: one YAML document, a v1 ConfigMap
 * flux-system/fluxgate-cluster with only apiVersion, kind, metadata and string `data`. Null for
 * anything else: then the file enters the render key by its blob, and the cluster is rendered on its own.
 */
export function identityManifestOf(text: string, size?: number): Json | null {
  const read = readYaml(text, size);
  const m = read.value;
  if (read.problem !== null || !isJson(m) || Object.keys(m).some((k) => !IDENTITY_FIELDS.has(k))) return null;
  if (m.apiVersion !== "v1" || m.kind !== "ConfigMap" || !isJson(m.metadata) || !isJson(m.data)) return null;
  if (m.metadata.name !== CLUSTER_IDENTITY_NAME || m.metadata.namespace !== CLUSTER_IDENTITY_NAMESPACE) return null;
  return Object.values(m.data).every((v) => typeof v === "string") ? m : null;
}

/**
 * What kustomize checks of a resource: its kind, name and namespace, and that its labels and
 * annotations are maps of strings (it refuses an object whose are not). Null when it is not a
 * readable object: then its blob is the key.
 */
function identity(manifest: unknown): string | null {
  if (!isJson(manifest)) return null;
  let found = identities.get(manifest);
  if (found === undefined) identities.set(manifest, (found = identityOf(manifest)));
  return found;
}

/** identity() of each manifest read, kept while the manifest is: a fleet change keys every cluster again, its own windows unchanged. */
const identities = new WeakMap<Json, string>();

function identityOf(manifest: Json): string {
  const metadata = isJson(manifest.metadata) ? manifest.metadata : {};
  const shape = (v: unknown): string =>
    v === undefined || v === null ? "none" : isJson(v) && Object.values(v).every((x) => typeof x === "string") ? "map" : "other";
  return JSON.stringify([
    manifest.apiVersion ?? null,
    manifest.kind ?? null,
    metadata.name ?? null,
    metadata.namespace ?? null,
    shape(metadata.labels),
    shape(metadata.annotations),
    isJson(manifest.metadata),
  ]);
}
