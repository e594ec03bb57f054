// Pure planning: what every window and override that selects a target decides for it now.

import type { KubernetesObject } from "@kubernetes/client-node";
import { Evaluator, type CompiledWindow, type Decision, type OverrideInput } from "../schedule/index.ts";
import { selects, type TargetSelector } from "./select.ts";

/** A window as the planner sees it. */
export interface WindowView {
  key: string;
  namespace: string;
  name: string;
  mode: "Suspend" | "Gate";
  /** Null when the spec is invalid: the window then holds its targets as they are. */
  compiled: CompiledWindow | null;
  targets: readonly TargetSelector[];
  closeGracePeriodMs: number;
  /** Being deleted: it no longer governs anything. */
  deleting: boolean;
}

/** A valid override as the planner sees it. */
export interface OverrideView extends OverrideInput {
  namespace: string;
}

export type TargetPlan =
  /** No window selects the target, or only Gate windows do: fluxgate lets go of its spec.suspend. */
  | { action: "release" }
  /** Leave the target exactly as it is, for the reason given. */
  | { action: "hold"; reason: "InvalidWindow" | "ModeConflict"; message: string; windows: readonly WindowView[] }
  /** Suspend mode: the target may take changes iff `open`. */
  | { action: "enforce"; open: boolean; decision: Decision; windows: readonly WindowView[]; closeGracePeriodMs: number };

/** Overrides of one window. */
export function overridesOf(window: { namespace: string; name: string }, overrides: readonly OverrideView[]): OverrideView[] {
  return overrides.filter((o) => o.namespace === window.namespace && o.window === window.name);
}

/** Windows that govern `target` (deleting windows do not). */
export function windowsSelecting(target: KubernetesObject, windows: Iterable<WindowView>): WindowView[] {
  const out: WindowView[] = [];
  for (const w of windows) if (!w.deleting && selects(w.namespace, w.targets, target)) out.push(w);
  return out;
}

/**
 * Plans one target from every window and override that selects it, so two windows never fight
 * over one object (precedence of DESIGN §3 across all of them).
 */
export function planTarget(selecting: readonly WindowView[], overrides: readonly OverrideView[], now: number): TargetPlan {
  if (selecting.length === 0) return { action: "release" };
  const invalid = selecting.filter((w) => w.compiled === null);
  if (invalid.length > 0) {
    return { action: "hold", reason: "InvalidWindow", message: `window ${invalid.map((w) => w.name).join(", ")} is invalid`, windows: selecting };
  }
  const modes = new Set(selecting.map((w) => w.mode));
  if (modes.size > 1) {
    return {
      action: "hold",
      reason: "ModeConflict",
      message: `selected by windows of different modes: ${selecting.map((w) => `${w.name} (${w.mode})`).join(", ")}`,
      windows: selecting,
    };
  }
  // Gate mode holds the revision, not the reconciler: spec.suspend is not fluxgate's, so it lets go of it.
  if (modes.has("Gate")) return { action: "release" };
  const compiled = selecting.map((w) => w.compiled as CompiledWindow);
  const own = selecting.flatMap((w) => overridesOf(w, overrides));
  const decision = new Evaluator(compiled, own).stateAt(now);
  return {
    action: "enforce",
    open: decision.state === "open",
    decision,
    windows: selecting,
    closeGracePeriodMs: Math.max(...selecting.map((w) => w.closeGracePeriodMs)),
  };
}
