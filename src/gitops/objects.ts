// Kubernetes objects as rendered manifests: identity, display names, Flux kinds, label selectors.

/** A plain JSON object. */
export type Json = Record<string, unknown>;

export function isJson(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Reads a nested field: `field(o, "spec", "sourceRef", "name")`. */
export function field(value: unknown, ...path: string[]): unknown {
  let v = value;
  for (const key of path) {
    if (!isJson(v)) return undefined;
    v = v[key];
  }
  return v;
}

export function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** Kinds that have no namespace. */
const CLUSTER_SCOPED = new Set([
  "Namespace",
  "Node",
  "PersistentVolume",
  "ClusterRole",
  "ClusterRoleBinding",
  "CustomResourceDefinition",
  "StorageClass",
  "PriorityClass",
  "IngressClass",
  "RuntimeClass",
  "APIService",
  "CSIDriver",
  "CSINode",
  "VolumeAttachment",
  "CertificateSigningRequest",
  "ValidatingWebhookConfiguration",
  "MutatingWebhookConfiguration",
  "ValidatingAdmissionPolicy",
  "ValidatingAdmissionPolicyBinding",
  "MutatingAdmissionPolicy",
  "MutatingAdmissionPolicyBinding",
  "ClusterIssuer",
  "ClusterPolicy",
]);

/** A manifest as the cluster will see it. */
export interface ObjectRef {
  group: string;
  kind: string;
  /** "" for cluster-scoped kinds; "default" when a namespaced object names none. */
  namespace: string;
  name: string;
}

/** The identity of a manifest, or null when it has no kind or name. */
export function refOf(body: Json, defaultNamespace = "default"): ObjectRef | null {
  const kind = str(body.kind);
  const name = str(field(body, "metadata", "name"));
  if (kind === undefined || name === undefined) return null;
  const apiVersion = str(body.apiVersion) ?? "";
  const group = apiVersion.includes("/") ? (apiVersion.split("/")[0] as string) : "";
  const namespace = CLUSTER_SCOPED.has(kind) ? "" : (str(field(body, "metadata", "namespace")) ?? defaultNamespace);
  return { group, kind, namespace, name };
}

/** A key unique per object in a cluster. */
export function refKey(ref: ObjectRef): string {
  return `${ref.group}|${ref.kind}|${ref.namespace}|${ref.name}`;
}

/** How users write an object: `Kind namespace/name`, or `Kind name` when cluster-scoped. */
export function display(ref: { kind: string; namespace: string; name: string }): string {
  return ref.namespace === "" ? `${ref.kind} ${ref.name}` : `${ref.kind} ${ref.namespace}/${ref.name}`;
}

/** API groups of Flux. */
export const FLUX_GROUPS = new Set([
  "kustomize.toolkit.fluxcd.io",
  "helm.toolkit.fluxcd.io",
  "source.toolkit.fluxcd.io",
  "image.toolkit.fluxcd.io",
  "notification.toolkit.fluxcd.io",
]);

export function isFluxObject(ref: ObjectRef): boolean {
  return FLUX_GROUPS.has(ref.group);
}

export function isFluxKustomization(ref: ObjectRef): boolean {
  return ref.group === "kustomize.toolkit.fluxcd.io" && ref.kind === "Kustomization";
}

/** Labels of a manifest. */
export function labelsOf(body: Json): Record<string, string> {
  const labels = field(body, "metadata", "labels");
  const out: Record<string, string> = {};
  if (isJson(labels)) for (const [k, v] of Object.entries(labels)) if (typeof v === "string") out[k] = v;
  return out;
}

/** A Kubernetes label selector (matchLabels and matchExpressions). */
export interface LabelSelector {
  matchLabels?: Record<string, string> | undefined;
  matchExpressions?: Array<{ key: string; operator: string; values?: string[] | undefined }> | undefined;
}

/** True when the labels satisfy the selector (an empty selector matches everything). */
export function matchesSelector(labels: Record<string, string>, selector: LabelSelector): boolean {
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const e of selector.matchExpressions ?? []) {
    const has = Object.hasOwn(labels, e.key);
    const value = labels[e.key];
    const values = e.values ?? [];
    if (e.operator === "In" && !(has && values.includes(value as string))) return false;
    if (e.operator === "NotIn" && has && values.includes(value as string)) return false;
    if (e.operator === "Exists" && !has) return false;
    if (e.operator === "DoesNotExist" && has) return false;
  }
  return true;
}

/** The API group of each kind a window may target. */
export const TARGET_GROUP: Readonly<Record<string, string>> = {
  Kustomization: "kustomize.toolkit.fluxcd.io",
  HelmRelease: "helm.toolkit.fluxcd.io",
  ImageUpdateAutomation: "image.toolkit.fluxcd.io",
  GitRepository: "source.toolkit.fluxcd.io",
  OCIRepository: "source.toolkit.fluxcd.io",
  HelmRepository: "source.toolkit.fluxcd.io",
  HelmChart: "source.toolkit.fluxcd.io",
  Bucket: "source.toolkit.fluxcd.io",
};
