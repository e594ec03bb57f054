// Multi-tenant lockdown (--no-cross-namespace-refs, as Flux's): which of a window's target entries it may act on, and the sentence naming those it may not.

import type { TargetSelector } from "./select.ts";

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
export function splitTargets(
  windowNamespace: string,
  targets: readonly TargetSelector[],
  noCrossNamespaceRefs: boolean,
): { allowed: TargetSelector[]; refused: RefusedTarget[] } {
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
