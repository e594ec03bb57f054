// `fluxgate release --all`: gives back every field fluxgate's field manager owns on Flux objects, without fluxgate's CRDs or controller (the way out of an
// uninstall gone wrong).

import { type FluxObject } from "../kube/flux.ts";
import { apiVersionOf, TARGET_RESOURCES, WINDOWS, type Resource } from "../kube/resources.ts";
import { OperationalError, UsageError } from "./errors.ts";
import { machine } from "./format/machine.ts";
import { PATCH } from "../kube/connection.ts";
import { statusCodeOf } from "../kube/errors.ts";
import type { KubernetesObject, V1ManagedFieldsEntry } from "../kube/types.ts";
import { clusterError, connect, list, type Cluster, type ClusterFlags } from "./kube.ts";
import { CONTROLLER_NAMESPACE, FIELD_MANAGER, GATED_BY, RELEASED_FROM } from "../api/constants.ts";
import { kube, outputOf, type CommandResult, type Values } from "./command.ts";

/** Runs `fluxgate release --all` (its spec: specs.ts). */
export function runRelease(v: Values): Promise<CommandResult> {
  return release({
    ...kube(v),
    all: v.all === true,
    allNamespaces: v["all-namespaces"] === true,
    dryRun: v["dry-run"] === true,
    output: outputOf(v.output, ["text", "json", "yaml"] as const, "text"),
  });
}

export interface ReleaseOptions extends ClusterFlags {
  /** Required: release everything fluxgate owns in scope (there is no per-object release). */
  all: boolean;
  allNamespaces: boolean;
  /** List what would be done; change nothing. */
  dryRun: boolean;
  output: "text" | "json" | "yaml";
}

const GATED_KINDS = new Set(["GitRepository", "OCIRepository"]);

/** One Flux object whose fields fluxgate owned. */
export interface ReleasedTarget {
  kind: string;
  namespace: string;
  name: string;
  /** The fields fluxgate owned, as paths: `spec.suspend`, `metadata.annotations[reconcile.fluxcd.io/requestedAt]`. */
  fields: string[];
  suspendBefore: boolean;
  /** After the release (as the dry run expects it: unset unless another manager also sets it). */
  suspendAfter: boolean;
  /** Other managers that own spec.suspend, which keep it. */
  alsoSetBy: string[];
}

/** A gated source fluxgate created for a Gate-mode window: kept, no longer owned by the window. */
export interface KeptSource {
  kind: string;
  namespace: string;
  name: string;
  window: string;
  /** The commit or digest it is pinned to. */
  pinned: string | null;
  /** Whether fluxgate's ownerReference was on it (and is removed). */
  ownerReferenceRemoved: boolean;
  /** Targets that take their artifact from it (KIND/NAMESPACE/NAME): point them back at the upstream. */
  referencedBy: string[];
}

export interface ReleaseResult {
  dryRun: boolean;
  released: ReleasedTarget[];
  gatedSources: KeptSource[];
  notes: string[];
}

interface FieldsV1 {
  [key: string]: FieldsV1 | undefined;
}

/** The leaf paths of a managedFields `fieldsV1` tree, as people write them. */
export function fieldPaths(fields: FieldsV1 | undefined, prefix = ""): string[] {
  const out: string[] = [];
  for (const [key, child] of Object.entries(fields ?? {})) {
    if (key === ".") continue;
    const name = key.replace(/^[fkv]:/, "");
    const path =
      prefix === ""
        ? name
        : /^(metadata\.(annotations|labels))$/.test(prefix) || key.startsWith("k:") || key.startsWith("v:")
          ? `${prefix}[${name}]`
          : `${prefix}.${name}`;
    const leaf = child === undefined || Object.keys(child).filter((k) => k !== ".").length === 0;
    if (leaf) out.push(path);
    else out.push(...fieldPaths(child, path));
  }
  return out;
}

/** fluxgate's own server-side-apply entries of an object (not status). */
function fluxgateEntries(obj: KubernetesObject): V1ManagedFieldsEntry[] {
  return (obj.metadata?.managedFields ?? []).filter((m) => m.manager === FIELD_MANAGER && m.operation === "Apply" && (m.subresource ?? "") === "");
}

function suspendManagers(obj: KubernetesObject): string[] {
  return (obj.metadata?.managedFields ?? [])
    .filter((m) => m.manager !== FIELD_MANAGER && (m.subresource ?? "") === "" && (m.fieldsV1 as FieldsV1 | undefined)?.["f:spec"]?.["f:suspend"] !== undefined)
    .map((m) => m.manager ?? "unknown");
}

function isGated(obj: KubernetesObject): boolean {
  if (!GATED_KINDS.has(obj.kind ?? "")) return false;
  const labels = obj.metadata?.labels ?? {};
  // A gated source, or one a deleted Gate window let go of (it follows upstream until unused): fluxgate applied its whole spec, which must stay.
  return (
    labels[GATED_BY] !== undefined ||
    labels[RELEASED_FROM] !== undefined ||
    (obj.metadata?.ownerReferences ?? []).some((o) => o.kind === "ReconciliationWindow" && o.apiVersion.startsWith("fluxgate.io/"))
  );
}

/** The sources a target takes its artifact from, as KIND/NAMESPACE/NAME (Kustomization sourceRef; HelmRelease chartRef or chart sourceRef). */
function sourcesOf(target: FluxObject): string[] {
  const namespace = target.metadata?.namespace ?? "";
  const spec = target.spec as { sourceRef?: Ref; chartRef?: Ref; chart?: { spec?: { sourceRef?: Ref } } } | undefined;
  return [spec?.sourceRef, spec?.chartRef, spec?.chart?.spec?.sourceRef]
    .filter((r): r is Ref => r !== undefined)
    .map((r) => `${r.kind}/${r.namespace ?? namespace}/${r.name}`);
}
interface Ref {
  kind: string;
  name: string;
  namespace?: string;
}

/** Lists one kind in scope; undefined when the API server does not serve it (its CRD is not installed). */
async function listServed(c: Cluster, resource: Resource, namespace: string | undefined): Promise<FluxObject[] | undefined> {
  try {
    return await list<FluxObject>(c, resource, namespace);
  } catch (e) {
    if (statusCodeOf((e as Error).cause) === 404) return undefined;
    throw e;
  }
}

async function giveUp(c: Cluster, resource: Resource, obj: KubernetesObject): Promise<FluxObject> {
  const { group, version, plural } = resource;
  const namespace = obj.metadata?.namespace ?? "";
  const name = obj.metadata?.name ?? "";
  try {
    // An applied object with no fields: every field fluxgate owned alone goes away, shared ones lose fluxgate as an owner.
    return (await c.connection.custom.patchNamespacedCustomObject(
      {
        group,
        version,
        plural,
        namespace,
        name,
        body: { apiVersion: apiVersionOf(resource), kind: resource.kind, metadata: { name, namespace } },
        fieldManager: FIELD_MANAGER,
        force: true,
      },
      PATCH.apply,
    )) as FluxObject;
  } catch (e) {
    throw clusterError(e, { verb: "patch", resource, namespace, name }, c);
  }
}

async function dropOwnerReferences(c: Cluster, resource: Resource, obj: KubernetesObject, indexes: readonly number[]): Promise<void> {
  const { group, version, plural } = resource;
  const namespace = obj.metadata?.namespace ?? "";
  const name = obj.metadata?.name ?? "";
  const refs = obj.metadata?.ownerReferences ?? [];
  // From the last, each guarded by its uid: a list changed meanwhile fails the patch instead of removing another reference.
  const body = [...indexes]
    .sort((a, b) => b - a)
    .flatMap((i) => [
      { op: "test", path: `/metadata/ownerReferences/${i}/uid`, value: refs[i]?.uid },
      { op: "remove", path: `/metadata/ownerReferences/${i}` },
    ]);
  try {
    await c.connection.custom.patchNamespacedCustomObject({ group, version, plural, namespace, name, body, fieldManager: FIELD_MANAGER }, PATCH.json);
  } catch (e) {
    throw clusterError(e, { verb: "patch", resource, namespace, name }, c);
  }
}

/**
 * Gives back what fluxgate holds on the Flux objects in scope, by its field manager, with no need
 * for fluxgate's CRDs: targets lose every field fluxgate owned (a suspended one resumes), gated
 * sources lose the ownerReference to their window (so garbage collection cannot delete them).
 *
 * @example await release({ all: true, allNamespaces: true, dryRun: true, output: "text" })
 */
export async function release(options: ReleaseOptions): Promise<string> {
  if (!options.all) {
    throw new UsageError(
      "release needs --all: it gives back every field fluxgate owns on the Flux objects of the namespace (-A: of every namespace)\nSee what it would do first with: fluxgate release --all --dry-run",
    );
  }
  const c = connect(options);
  const scope = options.allNamespaces ? undefined : c.namespace;
  const where = scope === undefined ? "any namespace" : `namespace ${scope}`;
  const result: ReleaseResult = { dryRun: options.dryRun, released: [], gatedSources: [], notes: [] };

  const objects: { resource: Resource; items: FluxObject[] }[] = [];
  for (const resource of Object.values(TARGET_RESOURCES)) {
    const items = await listServed(c, resource, scope);
    if (items === undefined) result.notes.push(`${resource.kind}: not served by the cluster (its CRD is not installed); nothing to release`);
    else objects.push({ resource, items });
  }
  const referrers = new Map<string, string[]>();
  for (const { items } of objects) {
    for (const t of items) {
      for (const source of sourcesOf(t))
        referrers.set(source, [...(referrers.get(source) ?? []), `${t.kind ?? ""}/${t.metadata?.namespace ?? ""}/${t.metadata?.name ?? ""}`]);
    }
  }

  for (const { resource, items } of objects) {
    for (const obj of items) {
      const namespace = obj.metadata?.namespace ?? "";
      const name = obj.metadata?.name ?? "";
      if (isGated(obj)) {
        const owned = (obj.metadata?.ownerReferences ?? []).flatMap((o, i) =>
          o.kind === "ReconciliationWindow" && o.apiVersion.startsWith("fluxgate.io/") ? [i] : [],
        );
        const ref = obj.spec?.ref as { commit?: string; digest?: string } | undefined;
        result.gatedSources.push({
          kind: resource.kind,
          namespace,
          name,
          window: obj.metadata?.labels?.[GATED_BY] ?? obj.metadata?.labels?.[RELEASED_FROM] ?? obj.metadata?.ownerReferences?.[owned[0] ?? 0]?.name ?? "",
          pinned: ref?.commit ?? ref?.digest ?? null,
          ownerReferenceRemoved: owned.length > 0,
          referencedBy: (referrers.get(`${resource.kind}/${namespace}/${name}`) ?? []).sort(),
        });
        if (owned.length > 0 && !options.dryRun) await dropOwnerReferences(c, resource, obj, owned);
        continue;
      }
      const entries = fluxgateEntries(obj);
      if (entries.length === 0) continue;
      const fields = entries.flatMap((m) => fieldPaths(m.fieldsV1 as FieldsV1 | undefined));
      const others = suspendManagers(obj);
      const before = obj.spec?.suspend === true;
      let after = others.length > 0 ? before : false;
      if (!options.dryRun) after = (await giveUp(c, resource, obj)).spec?.suspend === true;
      result.released.push({ kind: resource.kind, namespace, name, fields, suspendBefore: before, suspendAfter: after, alsoSetBy: others });
    }
  }

  // A running controller would take the targets back at once.
  try {
    const windows = await list(c, WINDOWS, scope);
    if (windows.length > 0) {
      result.notes.push(
        `${windows.length} ReconciliationWindow(s) still exist in ${where}: a running fluxgate controller takes their targets again; stop it first (kubectl -n ${CONTROLLER_NAMESPACE} scale deployment fluxgate-controller --replicas=0)`,
      );
    }
  } catch (e) {
    if (!(e instanceof OperationalError) || statusCodeOf(e.cause) !== 404) throw e;
  }

  if (options.output !== "text") return machine(result, options.output);
  return text(result, where);
}

function text(r: ReleaseResult, where: string): string {
  const lines: string[] = [];
  const would = r.dryRun ? "Would release" : "Released";
  for (const t of r.released) {
    const suspend =
      t.suspendBefore === t.suspendAfter
        ? `spec.suspend stays ${String(t.suspendAfter)}${t.alsoSetBy.length > 0 ? ` (also set by ${t.alsoSetBy.join(", ")})` : ""}`
        : `spec.suspend ${String(t.suspendBefore)} → ${t.suspendAfter ? "true" : "unset (resumed)"}`;
    lines.push(`${would} ${t.kind} ${t.namespace}/${t.name}: ${suspend}; ${r.dryRun ? "fluxgate gives up" : "fluxgate gave up"} ${t.fields.join(", ")}`);
    if (t.suspendAfter && t.alsoSetBy.length > 0)
      lines.push(
        `  still suspended: remove spec.suspend from what ${t.alsoSetBy.join(", ")} applies (e.g. the parent Kustomization's manifest in Git), or run flux resume`,
      );
  }
  for (const s of r.gatedSources) {
    const owner = s.ownerReferenceRemoved
      ? `${r.dryRun ? "would remove" : "removed"} its ownerReference to window ${s.window}, so garbage collection cannot delete it`
      : "it has no ownerReference to a window";
    const users = s.referencedBy.length > 0 ? `point ${s.referencedBy.join(", ")} back at the upstream source` : "no target in scope uses it";
    lines.push(
      `Kept gated source ${s.kind} ${s.namespace}/${s.name} (of window ${s.window}, pinned to ${s.pinned ?? "nothing"}): ${owner}; ${users}, then delete it`,
    );
  }
  if (r.released.length === 0 && r.gatedSources.length === 0) lines.push(`fluxgate owns no field of any Flux object in ${where}: nothing to release.`);
  else
    lines.push(
      `${r.dryRun ? "Dry run: would release" : "Released"} ${r.released.length} object(s), kept ${r.gatedSources.length} gated source(s) in ${where}.${r.dryRun ? " Nothing was changed." : ""}`,
    );
  for (const n of r.notes) lines.push(`Note: ${n}`);
  return `${lines.join("\n")}\n`;
}
