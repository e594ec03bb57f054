// Pure planning: what every window and override that selects a target decides for it now.

import type { KubernetesObject } from "../kube/types.ts";
import { Evaluator, type CompiledWindow, type Decision, type OverrideInput, type WindowState } from "../schedule/index.ts";
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
  /** Mode Gate: the key of the gated source (`kind/namespace/name`) its targets must take their artifact from. */
  gatedSource: string | null;
  /** Mode Suspend: what a closed window does against a manager that sets spec.suspend back. */
  onRevert: "Hold" | "Reassert";
  /** Being deleted: it no longer governs anything. */
  deleting: boolean;
}

/** A valid override as the planner sees it. */
export interface OverrideView extends OverrideInput {
  namespace: string;
}

export type TargetPlan =
  /** No window selects the target: fluxgate lets go of every field it owns. */
  | { action: "release" }
  /** Leave the target exactly as it is, for the reason given. */
  | { action: "hold"; reason: "InvalidWindow"; message: string; windows: readonly WindowView[] }
  /**
   * Only Gate windows select it: the revision is held by the gated source, so fluxgate lets go of
   * spec.suspend; `open` says whether a new revision may be applied now.
   */
  | { action: "gate"; open: boolean; decision: Decision; after: WindowState | null; windows: readonly WindowView[] }
  /**
   * Suspend mode: the target may take changes iff `open`. With `conflict` (windows of both modes
   * select it), it is held closed whatever the windows say, until the conflict is resolved.
   */
  | {
      action: "enforce";
      open: boolean;
      decision: Decision;
      /** The state that follows at `decision.until`, for the wording ("opens", "freezes"). */
      after: WindowState | null;
      windows: readonly WindowView[];
      closeGracePeriodMs: number;
      onRevert: "Hold" | "Reassert";
      conflict: string | null;
    };

/** The decision of a target held by a mode conflict: closed, with no end the schedules can tell. */
const CONFLICT_DECISION: Decision = { state: "closed", overridden: false, cause: null, since: null, until: null };

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
  const compiled = selecting.map((w) => w.compiled as CompiledWindow);
  const own = selecting.flatMap((w) => overridesOf(w, overrides));
  const modes = new Set(selecting.map((w) => w.mode));
  const onRevert = selecting.every((w) => w.onRevert === "Reassert") ? "Reassert" : "Hold";
  const closeGracePeriodMs = Math.max(...selecting.map((w) => w.closeGracePeriodMs));
  if (modes.size > 1) {
    // Deterministic whatever order the windows were seen in: nothing new goes out until a person decides.
    const conflict = `selected by windows of different modes (${selecting.map((w) => `${w.name}: ${w.mode}`).join(", ")}): held closed until one mode governs it`;
    return { action: "enforce", open: false, decision: CONFLICT_DECISION, after: null, windows: selecting, closeGracePeriodMs, onRevert, conflict };
  }
  const evaluator = new Evaluator(compiled, own);
  const decision = evaluator.stateAt(now);
  const after = decision.until === null ? null : evaluator.stateAt(decision.until).state;
  // Gate mode holds the revision, not the reconciler: spec.suspend is not fluxgate's, so it lets go of it.
  if (modes.has("Gate")) return { action: "gate", open: decision.state === "open", decision, after, windows: selecting };
  return { action: "enforce", open: decision.state === "open", decision, after, windows: selecting, closeGracePeriodMs, onRevert, conflict: null };
}
