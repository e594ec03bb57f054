// How Flux and kubectl judge a custom resource's status, ported line by line for unit tests: kstatus (fluxcd/cli-utils pkg/kstatus/status, as
// kustomize-controller v1.7.2 runs it) and `kubectl wait --for=condition=X` (k8s.io/kubectl pkg/cmd/wait/condition.go).

/** kstatus' verdict on an object: what `spec.wait` and `spec.healthChecks` of a Kustomization wait for. */
export type KStatus = "Current" | "InProgress" | "Failed" | "Terminating";

interface ConditionLike {
  type?: unknown;
  status?: unknown;
  reason?: unknown;
  message?: unknown;
  observedGeneration?: unknown;
}

export interface ObjectLike {
  metadata?: { generation?: number; deletionTimestamp?: unknown };
  status?: { observedGeneration?: number; conditions?: readonly ConditionLike[] } | object;
}

function textOf(value: unknown): string {
  return typeof value === "string" ? value : "";
}

function conditionsOf(obj: ObjectLike): readonly ConditionLike[] {
  const status = obj.status as { conditions?: readonly ConditionLike[] } | undefined;
  return status?.conditions ?? [];
}

function observedGenerationOf(obj: ObjectLike): number | undefined {
  return (obj.status as { observedGeneration?: number } | undefined)?.observedGeneration;
}

/**
 * kstatus `Compute` for a kind it has no built-in rules for (status.go, generic.go): deletion,
 * then a generation not observed (InProgress), then Reconciling=True (InProgress) or Stalled=True
 * (Failed), then the Ready condition (True: Current, False or Unknown: InProgress), else Current.
 */
export function kstatus(obj: ObjectLike): { status: KStatus; message: string } {
  if (obj.metadata?.deletionTimestamp !== undefined && obj.metadata.deletionTimestamp !== null && obj.metadata.deletionTimestamp !== "")
    return { status: "Terminating", message: "Resource scheduled for deletion" };
  const generation = obj.metadata?.generation;
  const observed = observedGenerationOf(obj);
  if (generation !== undefined && observed !== undefined && observed !== generation) {
    return { status: "InProgress", message: `generation is ${generation}, but latest observed generation is ${observed}` };
  }
  for (const c of conditionsOf(obj)) {
    if (c.type === "Reconciling" && c.status === "True") return { status: "InProgress", message: textOf(c.message) };
    if (c.type === "Stalled" && c.status === "True") return { status: "Failed", message: textOf(c.message) };
  }
  for (const c of conditionsOf(obj)) {
    if (c.type !== "Ready") continue;
    if (c.status === "True") return { status: "Current", message: "Resource is Ready" };
    if (c.status === "False" || c.status === "Unknown") return { status: "InProgress", message: textOf(c.message) };
  }
  return { status: "Current", message: "Resource is current" };
}

/**
 * `kubectl wait --for=condition=NAME[=STATUS]` on one object (ConditionalWait.checkCondition): the
 * first condition of that type (case-insensitive) decides, unless its observedGeneration (or the
 * status') is older than metadata.generation, in which case kubectl keeps waiting.
 */
export function kubectlWaitMet(obj: ObjectLike, conditionName: string, conditionStatus = "True"): boolean {
  for (const c of conditionsOf(obj)) {
    if (typeof c.type !== "string" || c.type.toLowerCase() !== conditionName.toLowerCase()) continue;
    if (typeof c.status !== "string") continue;
    const generation = obj.metadata?.generation;
    if (generation !== undefined) {
      const observed = typeof c.observedGeneration === "number" ? c.observedGeneration : observedGenerationOf(obj);
      if (observed !== undefined && observed < generation) return false;
    }
    return c.status.toLowerCase() === conditionStatus.toLowerCase();
  }
  return false;
}
