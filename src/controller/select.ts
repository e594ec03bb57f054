// Which windows select which Flux objects: by kind, namespace and name or label selector.

import type { KubernetesObject } from "../kube/types.ts";

export interface LabelSelector {
  matchLabels?: Record<string, string> | undefined;
  matchExpressions?: { key: string; operator: string; values?: string[] | undefined }[] | undefined;
}

export interface TargetSelector {
  kind: string;
  name?: string | undefined;
  namespace?: string | undefined;
  labelSelector?: LabelSelector | undefined;
}

/** True when `labels` satisfy the selector (Kubernetes semantics; an empty selector matches all). */
export function matchesSelector(selector: LabelSelector, labels: Readonly<Record<string, string>>): boolean {
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const e of selector.matchExpressions ?? []) {
    const has = Object.hasOwn(labels, e.key);
    const value = labels[e.key];
    const values = e.values ?? [];
    switch (e.operator) {
      case "In":
        if (!has || !values.includes(value as string)) return false;
        break;
      case "NotIn":
        if (has && values.includes(value as string)) return false;
        break;
      case "Exists":
        if (!has) return false;
        break;
      case "DoesNotExist":
        if (has) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

/** True when one of the window's targets selects the object. */
export function selects(windowNamespace: string, targets: readonly TargetSelector[], obj: KubernetesObject): boolean {
  const namespace = obj.metadata?.namespace ?? "";
  const labels = obj.metadata?.labels ?? {};
  return targets.some(
    (t) =>
      t.kind === obj.kind &&
      (t.namespace ?? windowNamespace) === namespace &&
      (t.name !== undefined ? t.name === obj.metadata?.name : t.labelSelector !== undefined && matchesSelector(t.labelSelector, labels)),
  );
}

/**
 * Reads `spec.targets` from a window that may not be valid, as far as it can be read, so that an
 * invalid window still protects the targets it names from being changed.
 */
export function rawTargets(spec: unknown): TargetSelector[] {
  const targets = (spec as { targets?: unknown } | undefined)?.targets;
  if (!Array.isArray(targets)) return [];
  return targets.filter((t): t is TargetSelector => typeof t === "object" && t !== null && typeof (t as { kind?: unknown }).kind === "string");
}
