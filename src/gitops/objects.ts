// Kubernetes objects as rendered manifests: identity, display names, labels, whether they are Flux objects.

import { FLUX_GROUPS, fluxKindOf } from "../api/kinds.ts";

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

/** True for an object of a Flux API group. */
export function isFluxObject(ref: ObjectRef): boolean {
  return FLUX_GROUPS.has(ref.group);
}

/** True for a Flux Kustomization (not kustomize's own `Kustomization` file kind). */
export function isFluxKustomization(ref: ObjectRef): boolean {
  return ref.kind === "Kustomization" && ref.group === fluxKindOf("Kustomization")?.group;
}

/** Labels of a manifest. */
export function labelsOf(body: Json): Record<string, string> {
  const labels = field(body, "metadata", "labels");
  const out: Record<string, string> = {};
  if (isJson(labels)) for (const [k, v] of Object.entries(labels)) if (typeof v === "string") out[k] = v;
  return out;
}
