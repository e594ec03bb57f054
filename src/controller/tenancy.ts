// Multi-tenant lockdown (--no-cross-namespace-refs, as Flux's): a window acts only on targets in its own namespace, and says which entries it refused.

import type { Condition, WindowStatus } from "../api/index.ts";
import { rfc3339 } from "../schedule/format.ts";
import { ACCESS_DENIED, READY } from "../api/conditions.ts";
import type { TargetSelector } from "../policy/index.ts";

/** A target entry a window may not act on, with its index in `spec.targets`. */
export interface RefusedTarget {
  index: number;
  target: TargetSelector;
}

/**
 * Splits a window's target entries into those it may act on and those it may not: with the
 * lockdown on, an entry whose `namespace` is not the window's own is refused.
 *
 * @example splitTargets("team-d", [{ kind: "Kustomization", name: "a", namespace: "team-e" }], true).refused.length // 1
 */
export function splitTargets(windowNamespace: string, targets: readonly TargetSelector[], noCrossNamespaceRefs: boolean): { allowed: TargetSelector[]; refused: RefusedTarget[] } {
  const allowed: TargetSelector[] = [];
  const refused: RefusedTarget[] = [];
  for (const [index, target] of targets.entries()) {
    if (noCrossNamespaceRefs && target.namespace !== undefined && target.namespace !== windowNamespace) refused.push({ index, target });
    else allowed.push(target);
  }
  return { allowed, refused };
}

function describe(r: RefusedTarget): string {
  const t = r.target;
  const what = t.name !== undefined ? `${t.namespace ?? ""}/${t.name}` : `labelSelector in ${t.namespace ?? ""}`;
  return `spec.targets[${r.index}] (${t.kind} ${what})`;
}

/** The sentence naming the refused entries, for the condition and the event. */
export function refusedMessage(windowNamespace: string, refused: readonly RefusedTarget[]): string {
  return `cross-namespace references are disabled (--no-cross-namespace-refs): ${refused.map(describe).join(", ")} ${refused.length === 1 ? "is" : "are"} not acted on; a window governs targets in its own namespace (${windowNamespace}) only`;
}

/** The window's status with Ready=False (AccessDenied) naming the refused entries, its other targets reported as before. */
export function withRefusedTargets(status: WindowStatus, windowNamespace: string, refused: readonly RefusedTarget[], previous: WindowStatus | undefined, now: number, generation: number | undefined): WindowStatus {
  if (refused.length === 0) return status;
  const before = previous?.conditions?.find((c) => c.type === READY);
  // Another problem the status reports is kept in the message: the refusal is named first, as the reason.
  const other = status.conditions?.find((c) => c.type === READY && c.status === "False");
  const ready: Condition = {
    type: READY,
    status: "False",
    observedGeneration: generation,
    lastTransitionTime: before !== undefined && before.status === "False" ? before.lastTransitionTime : rfc3339(now),
    reason: ACCESS_DENIED,
    message: `${refusedMessage(windowNamespace, refused)}${other !== undefined ? `; also ${other.reason}: ${other.message}` : ""}`,
  };
  // Not Ready: the generation last reconciled while Ready stays (see windowStatus).
  const { observedGeneration: _current, ...rest } = status;
  return {
    ...rest,
    ...(previous?.observedGeneration !== undefined ? { observedGeneration: previous.observedGeneration } : {}),
    conditions: [ready, ...(status.conditions ?? []).filter((c) => c.type !== READY)],
  };
}
