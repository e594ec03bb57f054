// Which Kustomizations of a cluster are applied before which, and the objects whose Namespace or CustomResourceDefinition comes only after them (pure).
//
// On a new cluster, a Kustomization that applies an object into a namespace that does not exist
// yet, or of a kind whose CRD is not installed yet, fails as a whole. kustomize-controller applies
// a Kustomization's own Namespaces and CRDs first, so one Kustomization is always fine; across
// two, only `dependsOn` (or a parent that applies the child Kustomization) puts one before the
// other. A Namespace in a Kustomization that depends on the one that needs it is a deadlock: the
// first never becomes ready, so the second never runs.

import { display, field, isJson, refKey, str, type Json } from "./objects.ts";
import { kustomizationId, type RenderedCluster, type RenderedKustomization, type RenderedObject } from "./render.ts";

/**
 * For each Kustomization (by `namespace/name`), the Kustomizations applied before it: those it
 * depends on (`spec.dependsOn`) and the one that applies it, and theirs in turn.
 */
export function appliedBefore(cluster: RenderedCluster): Map<string, Set<string>> {
  const direct = new Map<string, string[]>();
  for (const k of cluster.kustomizations) {
    const deps = Array.isArray(field(k.body, "spec", "dependsOn")) ? (field(k.body, "spec", "dependsOn") as unknown[]) : [];
    const ids = deps.flatMap((d) => {
      const name = str(field(d, "name"));
      return name === undefined ? [] : [`${str(field(d, "namespace")) ?? k.namespace}/${name}`];
    });
    direct.set(kustomizationId(k), [...ids, ...(k.appliedBy === null ? [] : [k.appliedBy])]);
  }
  const out = new Map<string, Set<string>>();
  for (const id of direct.keys()) {
    const seen = new Set<string>();
    const stack = [...(direct.get(id) ?? [])];
    while (stack.length > 0) {
      const next = stack.pop() as string;
      if (seen.has(next)) continue;
      seen.add(next);
      stack.push(...(direct.get(next) ?? []));
    }
    seen.delete(id);
    out.set(id, seen);
  }
  return out;
}

/** An object (a Namespace or a CRD) that Kustomizations need and that only others apply, after them or in no order with them. */
export interface LatePrerequisite {
  /** The Namespace or CustomResourceDefinition. */
  prerequisite: RenderedObject;
  /** The Kustomizations that apply it. */
  appliedBy: RenderedKustomization[];
  /** The Kustomization whose objects need it. */
  needer: RenderedKustomization;
  /** Its objects that need it (in the namespace, or of the CRD's kind). */
  objects: RenderedObject[];
  /** `after`: every Kustomization that applies it is applied after the needer (depends on it); `unordered`: some is in no order with it. */
  order: "after" | "unordered";
}

/** The Namespaces and CRDs of a cluster that some Kustomization needs and finds applied neither by itself nor before it. */
export function latePrerequisites(cluster: RenderedCluster): LatePrerequisite[] {
  const before = appliedBefore(cluster);
  const providers = new Map<string, { object: RenderedObject; by: RenderedKustomization[] }>();
  const provide = (key: string, object: RenderedObject, by: RenderedKustomization): void => {
    const p = providers.get(key);
    if (p === undefined) providers.set(key, { object, by: [by] });
    else if (!p.by.includes(by)) p.by.push(by);
  };
  for (const k of cluster.kustomizations) {
    for (const o of k.objects) {
      if (o.ref.kind === "Namespace" && o.ref.group === "") provide(`ns|${o.ref.name}`, o, k);
      if (o.ref.kind === "CustomResourceDefinition" && o.ref.group === "apiextensions.k8s.io") {
        const group = str(field(o.body, "spec", "group"));
        const kind = str(field(o.body, "spec", "names", "kind"));
        if (group !== undefined && kind !== undefined) provide(`crd|${group}|${kind}`, o, k);
      }
    }
  }
  const found = new Map<string, LatePrerequisite>();
  for (const k of cluster.kustomizations) {
    const id = kustomizationId(k);
    const earlier = before.get(id) ?? new Set<string>();
    for (const o of k.objects) {
      const needs = [...(o.ref.namespace === "" ? [] : [`ns|${o.ref.namespace}`]), `crd|${o.ref.group}|${o.ref.kind}`];
      for (const key of needs) {
        const p = providers.get(key);
        if (p === undefined || p.by.some((b) => b === k || earlier.has(kustomizationId(b)))) continue;
        const at = `${key}\0${id}`;
        const seen = found.get(at);
        if (seen !== undefined) {
          seen.objects.push(o);
          continue;
        }
        const after = p.by.every((b) => before.get(kustomizationId(b))?.has(id) === true);
        found.set(at, { prerequisite: p.object, appliedBy: p.by, needer: k, objects: [o], order: after ? "after" : "unordered" });
      }
    }
  }
  return [...found.values()];
}

/** `Namespace podinfo` for Kustomization flux-system/apps-rt: a key to tell one problem from another across renders. */
export function latePrerequisiteKey(p: LatePrerequisite): string {
  return `${refKey(p.prerequisite.ref)}\0${kustomizationId(p.needer)}`;
}

/** The objects that need it, for a message: the first three, and how many more. */
export function neederText(p: LatePrerequisite): string {
  const shown = p.objects.slice(0, 3).map((o) => display(o.ref));
  return `${shown.join(", ")}${p.objects.length > 3 ? ` and ${p.objects.length - 3} more` : ""}`;
}

/** What happens on a new cluster, and what to do, in words. */
export function latePrerequisiteText(p: LatePrerequisite): string {
  const what = display(p.prerequisite.ref);
  const by = p.appliedBy.map((b) => `Kustomization ${kustomizationId(b)}`).join(" and ");
  const needer = `Kustomization ${kustomizationId(p.needer)}`;
  const missing =
    p.prerequisite.ref.kind === "Namespace"
      ? `namespaces "${p.prerequisite.ref.name}" not found`
      : `no matches for kind "${str(field(p.prerequisite.body, "spec", "names", "kind")) ?? "?"}"`;
  return p.order === "after"
    ? `${neederText(p)} (${needer}) need${p.objects.length === 1 ? "s" : ""} ${what}, which only ${by} applies, and ${p.appliedBy.length === 1 ? "it is" : "they are"} applied after ${needer} (dependsOn): on a new cluster ${needer} fails (${missing}) and ${by} waits for it for ever; move ${what} into ${needer}'s type, or one it depends on`
    : `${neederText(p)} (${needer}) need${p.objects.length === 1 ? "s" : ""} ${what}, which only ${by} applies, in no order with ${needer} (no dependsOn between them): on a new cluster ${needer} fails (${missing}) until ${by} has run; move ${what} into ${needer}'s type, or make ${needer} depend on ${by}`;
}

/** A manifest's `spec.group` and `spec.names.kind`, when it is a CRD. */
export function crdKindOf(body: Json): { group: string; kind: string } | null {
  if (str(body.kind) !== "CustomResourceDefinition") return null;
  const group = str(field(body, "spec", "group"));
  const kind = str(field(body, "spec", "names", "kind"));
  return group === undefined || kind === undefined || !isJson(body.spec) ? null : { group, kind };
}
