// Reading Flux objects: suspend and who owns it, whether a reconciliation is in flight, what revision waits.

import type { KubernetesObject, V1ManagedFieldsEntry } from "./types.ts";
import { FIELD_MANAGER, PARENT_RECONCILE, PARENT_RECONCILE_DISABLED } from "../api/constants.ts";
import { objectKey } from "../policy/select.ts";

export interface FluxCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}

/** The parts of a Flux object (target or source) fluxgate reads. */
export interface FluxObject extends KubernetesObject {
  spec?: {
    suspend?: boolean;
    sourceRef?: { kind: string; name: string; namespace?: string };
    [key: string]: unknown;
  };
  status?: {
    conditions?: FluxCondition[];
    lastAppliedRevision?: string;
    lastAttemptedRevision?: string;
    lastHandledReconcileAt?: string;
    helmChart?: string;
    artifact?: { revision?: string; lastUpdateTime?: string };
    [key: string]: unknown;
  };
}

/** Labels kustomize-controller puts on every object a Kustomization applied: its name and namespace. */
const PARENT_NAME_LABEL = "kustomize.toolkit.fluxcd.io/name";
const PARENT_NAMESPACE_LABEL = "kustomize.toolkit.fluxcd.io/namespace";

/** Field managers of the Flux controllers that apply objects from Git. */
const FLUX_APPLIERS = new Set(["kustomize-controller", "helm-controller"]);

/** The Kustomization that applied the object from Git, from the labels kustomize-controller sets, or null. */
export function parentOf(obj: KubernetesObject): { namespace: string; name: string } | null {
  const labels = obj.metadata?.labels ?? {};
  const name = labels[PARENT_NAME_LABEL];
  const namespace = labels[PARENT_NAMESPACE_LABEL];
  return name === undefined || namespace === undefined ? null : { namespace, name };
}

/** Who a field manager is, as far as advice goes: a Flux controller applying Git, a person's tool, or something else. */
export function managerKind(manager: string): "flux" | "person" | "other" {
  if (FLUX_APPLIERS.has(manager)) return "flux";
  // kubectl (apply, edit, patch, client-side-apply) and the flux CLI (flux suspend/resume).
  if (/^kubectl(-|$)/.test(manager) || /^flux(-|$)/.test(manager)) return "person";
  return "other";
}

/** What to do about a manager that set spec.suspend against a window, in a sentence for people. */
export function revertAdvice(manager: string, parent: { namespace: string; name: string } | null): string {
  switch (managerKind(manager)) {
    case "flux":
      return `remove spec.suspend from the manifest in Git${parent === null ? "" : ` that the parent Kustomization ${parent.namespace}/${parent.name} applies`}: fluxgate owns it`;
    case "person":
      return "to let changes through outside the window, use `fluxgate open` (a WindowOverride with a reason and an end) instead of changing spec.suspend by hand";
    case "other":
      return `stop manager "${manager}" from writing spec.suspend: fluxgate owns it while a window selects the object`;
  }
}

/** `GitRepository/gitops` from an object key `GitRepository/flux-system/gitops`. */
export function kindAndName(key: string): string {
  const [kind, , name] = key.split("/", 3);
  return `${kind ?? ""}/${name ?? ""}`;
}

export function keyOf(obj: KubernetesObject): string {
  return objectKey(obj.kind ?? "", obj.metadata?.namespace ?? "", obj.metadata?.name ?? "");
}

interface FieldsV1 {
  [key: string]: FieldsV1 | undefined;
}

function ownsField(fields: unknown, path: readonly string[]): boolean {
  let node = fields as FieldsV1 | undefined;
  for (const part of path) {
    if (node === undefined || typeof node !== "object") return false;
    node = node[part];
  }
  return node !== undefined;
}

const SUSPEND_PATH = ["f:spec", "f:suspend"] as const;
/** fluxgate's hold of the parent Kustomization (see parentHeld). */
const HOLD_PATH = ["f:metadata", "f:annotations", `f:${PARENT_RECONCILE}`] as const;

/** The managers that own `spec.suspend`, latest write first. */
export function suspendOwners(obj: FluxObject): { manager: string; operation: string; time: string }[] {
  return (obj.metadata?.managedFields ?? [])
    .filter((m) => ownsField(m.fieldsV1, SUSPEND_PATH))
    .map((m) => ({ manager: m.manager ?? "unknown", operation: m.operation ?? "", time: m.time instanceof Date ? m.time.toISOString() : String(m.time ?? "") }))
    .sort((a, b) => (a.time < b.time ? 1 : a.time > b.time ? -1 : 0));
}

/** True when fluxgate owns `spec.suspend` (or any field) of the object. */
export function managedByFluxgate(obj: FluxObject): boolean {
  return (obj.metadata?.managedFields ?? []).some((m) => m.manager === FIELD_MANAGER && m.operation === "Apply");
}

export function ownsSuspend(obj: FluxObject): boolean {
  return (obj.metadata?.managedFields ?? []).some((m) => m.manager === FIELD_MANAGER && ownsField(m.fieldsV1, SUSPEND_PATH));
}

/** When fluxgate last changed a field it applies (its managedFields entry, to the second), or undefined. */
export function fluxgateWroteAt(obj: FluxObject): number | undefined {
  const entry = (obj.metadata?.managedFields ?? []).find((m) => m.manager === FIELD_MANAGER && m.operation === "Apply");
  if (entry?.time === undefined) return undefined;
  const at = entry.time instanceof Date ? entry.time.getTime() : Date.parse(String(entry.time));
  return Number.isNaN(at) ? undefined : at;
}

/** True when the object carries the annotation that keeps its parent Kustomization from applying it, as fluxgate set it. */
export function parentHeld(obj: FluxObject): boolean {
  return obj.metadata?.annotations?.[PARENT_RECONCILE] === PARENT_RECONCILE_DISABLED && ownsField(fluxgateFields(obj), HOLD_PATH);
}

function fluxgateFields(obj: FluxObject): unknown {
  return (obj.metadata?.managedFields ?? []).find((m) => m.manager === FIELD_MANAGER && m.operation === "Apply")?.fieldsV1;
}

/** kubectl's copy of the whole object in an annotation: never read by fluxgate, often the largest part of an object. */
const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

/** The fields of a managedFields entry that the readers above look at, or undefined when they look at none. */
function trimManagedFields(entry: V1ManagedFieldsEntry): V1ManagedFieldsEntry | undefined {
  const ours = entry.manager === FIELD_MANAGER;
  const suspend = ownsField(entry.fieldsV1, SUSPEND_PATH);
  if (!ours && !suspend) return undefined;
  const hold = ours && ownsField(entry.fieldsV1, HOLD_PATH);
  const fieldsV1 = {
    ...(suspend ? { "f:spec": { "f:suspend": {} } } : {}),
    ...(hold ? { "f:metadata": { "f:annotations": { [`f:${PARENT_RECONCILE}`]: {} } } } : {}),
  };
  return {
    manager: entry.manager,
    operation: entry.operation,
    time: entry.time,
    ...(entry.subresource !== undefined ? { subresource: entry.subresource } : {}),
    fieldsV1,
  };
}

/** Copies of the keys of `from` that are set. */
function picked<T extends object, K extends keyof T>(from: T | undefined, keys: readonly K[]): Pick<T, K> | undefined {
  if (from === undefined) return undefined;
  const out: Partial<T> = {};
  for (const k of keys) if (from[k] !== undefined) out[k] = from[k];
  return out as Pick<T, K>;
}

/**
 * The parts of a target that the controller reads (this module's readers, selection by labels,
 * events about it): what its informer keeps of each of thousands of targets. Everything else — its
 * spec beyond suspend and sourceRef, its inventory and other status, condition messages, the managed
 * fields of other fields, kubectl's last-applied copy — stays on the API server.
 */
export function trimTarget(obj: KubernetesObject): FluxObject {
  const o = obj as FluxObject;
  const m = o.metadata ?? {};
  const annotations = m.annotations === undefined ? undefined : Object.fromEntries(Object.entries(m.annotations).filter(([k]) => k !== LAST_APPLIED));
  const managedFields = m.managedFields?.map(trimManagedFields).filter((e): e is V1ManagedFieldsEntry => e !== undefined);
  const status = picked(o.status, ["lastAppliedRevision", "lastAttemptedRevision", "lastHandledReconcileAt", "helmChart"]);
  return {
    apiVersion: o.apiVersion,
    kind: o.kind,
    metadata: {
      ...picked(m, ["name", "namespace", "uid", "resourceVersion", "generation", "labels", "deletionTimestamp", "creationTimestamp"]),
      ...(annotations !== undefined ? { annotations } : {}),
      ...(managedFields !== undefined ? { managedFields } : {}),
    },
    ...(o.spec !== undefined ? { spec: picked(o.spec, ["suspend", "sourceRef"]) } : {}),
    ...(o.status !== undefined
      ? {
          status: {
            ...status,
            ...(o.status.conditions !== undefined
              ? { conditions: o.status.conditions.map((c) => ({ type: c.type, status: c.status, ...(c.reason !== undefined ? { reason: c.reason } : {}) })) }
              : {}),
            ...(o.status.artifact !== undefined ? { artifact: picked(o.status.artifact, ["revision", "lastUpdateTime"]) } : {}),
          },
        }
      : {}),
  };
}

/** The revision a target applied last (a HelmRelease: the chart version it attempted). */
export function appliedRevisionOf(obj: FluxObject): string | undefined {
  return obj.kind === "HelmRelease" ? obj.status?.lastAttemptedRevision : obj.status?.lastAppliedRevision;
}

export function isSuspended(obj: FluxObject): boolean {
  return obj.spec?.suspend === true;
}

/** True while Flux is applying: Reconciling is True or Ready is Unknown. */
export function isReconciling(obj: FluxObject): boolean {
  const conditions = obj.status?.conditions ?? [];
  if (conditions.some((c) => c.type === "Reconciling" && c.status === "True")) return true;
  return conditions.some((c) => c.type === "Ready" && c.status === "Unknown");
}

/** The source a target takes its artifact from, as a key, or null. */
export function sourceKeyOf(target: FluxObject): string | null {
  const namespace = target.metadata?.namespace ?? "";
  if (target.kind === "Kustomization") {
    const ref = target.spec?.sourceRef;
    if (ref === undefined) return null;
    return objectKey(ref.kind, ref.namespace ?? namespace, ref.name);
  }
  if (target.kind === "HelmRelease") {
    const chart = target.status?.helmChart;
    if (chart === undefined || !chart.includes("/")) return null;
    const [ns, name] = chart.split("/", 2) as [string, string];
    return objectKey("HelmChart", ns, name);
  }
  return null;
}

/** What a target has applied and what its source offers, when they differ. */
export interface PendingRevision {
  appliedRevision: string | undefined;
  pendingRevision: string;
  waitingSince: string | undefined;
  /** Distinct revisions arrived since the applied one, when the caller counted them (Gate mode). */
  revisions?: number;
}

export function pendingOf(target: FluxObject, source: FluxObject | undefined): PendingRevision | null {
  const offered = source?.status?.artifact?.revision;
  if (offered === undefined || offered === "") return null;
  const applied = appliedRevisionOf(target);
  if (applied === offered) return null;
  if (target.kind === "HelmRelease" && applied !== undefined && offered.startsWith(`${applied}+`)) return null;
  return {
    appliedRevision: applied,
    pendingRevision: offered,
    waitingSince: laterOf(source?.status?.artifact?.lastUpdateTime, target.metadata?.creationTimestamp),
  };
}

/**
 * A target waits from when the revision arrived, or from when the target was created if that was
 * later: a Kustomization made 20 s ago has not waited for an artifact three minutes old.
 */
function laterOf(arrived: string | undefined, created: Date | string | undefined): string | undefined {
  if (arrived === undefined || created === undefined) return arrived;
  const at = new Date(created).getTime();
  return Number.isNaN(at) || at <= Date.parse(arrived) ? arrived : new Date(at).toISOString().replace(/\.\d{3}Z$/, "Z");
}
