// The decision for one target, from every window and override that selects it: at an instant (the controller, explain) and over a range (timelines).

import { Evaluator, type CompiledWindow, type Decision, type OverrideInput, type RuleRef, type Transition, type WindowState } from "../schedule/index.ts";
import { entrySelects, identityOf, matchesSelector, selects, type LabelSelector, type ObjectLike, type TargetIdentity, type TargetSelector } from "./select.ts";
import type { FleetScope } from "./fleet.ts";
import { conflictMessage, heldMessage, NOT_GOVERNED, reasonOf } from "./wording.ts";

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
  /** Its metadata.labels: an override's windowSelector matches them. */
  labels?: Readonly<Record<string, string>> | undefined;
  /** A fleet window (it has a clusterSelector): whether it is this cluster's (policy/fleet.ts). */
  fleet?: FleetScope | undefined;
}

/** A valid override as the planner sees it (its interval from policy/override.ts). */
export interface OverrideView extends OverrideInput {
  namespace: string;
  /** A fleet freeze's `spec.windowSelector`: the windows of its namespace whose labels match (then `window` is ""). */
  windowSelector?: LabelSelector | undefined;
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

/** Overrides of one window: those that name it, and those whose windowSelector matches its labels (as if they named it). */
export function overridesOf<O extends { namespace: string; window: string; windowSelector?: LabelSelector | undefined }>(
  window: { namespace: string; name: string; labels?: Readonly<Record<string, string>> | undefined },
  overrides: readonly O[],
): O[] {
  const out: O[] = [];
  for (const o of overrides) {
    if (o.namespace !== window.namespace) continue;
    if (o.windowSelector === undefined) {
      if (o.window === window.name) out.push(o);
    } else if (matchesSelector(o.windowSelector, window.labels ?? {})) out.push({ ...o, window: window.name });
  }
  return out;
}

type Selecting = Pick<WindowView, "namespace" | "targets" | "deleting">;

/**
 * Windows that govern `target` (deleting windows do not), in the order given.
 *
 * A frozen array of windows (the controller's caches hand out one per change of the windows, asked
 * for at every target's reconcile) is indexed by the kinds and namespaces its target entries name,
 * once, the first time it is asked: a target then meets only the entries that name its kind in its
 * namespace, not every entry of every window of the cluster.
 */
export function windowsSelecting<W extends Selecting>(target: TargetIdentity | ObjectLike, windows: Iterable<W>): W[] {
  const identity = "labels" in target ? target : identityOf(target);
  const out: W[] = [];
  if (Array.isArray(windows) && Object.isFrozen(windows)) {
    for (const { window, entries } of indexOf(windows as readonly W[]).get(`${identity.kind}/${identity.namespace}`) ?? []) {
      if (entries.some((t) => entrySelects(window.namespace, t, identity))) out.push(window);
    }
    return out;
  }
  for (const w of windows) if (!w.deleting && selects(w.namespace, w.targets, identity)) out.push(w);
  return out;
}

/** One window's target entries for one kind and namespace. */
interface Indexed<W> {
  window: W;
  entries: TargetSelector[];
}

/** The index of a frozen array of windows: `kind/namespace` → each window with target entries for it, in the array's order. Deleting windows are left out. */
const indexes = new WeakMap<readonly Selecting[], Map<string, ReadonlyArray<Indexed<Selecting>>>>();

function indexOf<W extends Selecting>(windows: readonly W[]): Map<string, ReadonlyArray<Indexed<W>>> {
  let index = indexes.get(windows);
  if (index === undefined) {
    const built = new Map<string, Array<Indexed<W>>>();
    for (const w of windows) {
      if (w.deleting) continue;
      // This window's entries by key, for this place in the array: a window twice in the array is listed twice, as a scan finds it.
      const here = new Map<string, Indexed<W>>();
      for (const t of w.targets) {
        const key = `${t.kind}/${t.namespace ?? w.namespace}`;
        const known = here.get(key);
        if (known !== undefined) {
          known.entries.push(t);
          continue;
        }
        const indexed = { window: w, entries: [t] };
        here.set(key, indexed);
        const list = built.get(key);
        if (list === undefined) built.set(key, [indexed]);
        else list.push(indexed);
      }
    }
    index = built;
    indexes.set(windows, index);
  }
  return index as Map<string, ReadonlyArray<Indexed<W>>>;
}

function modeConflict(selecting: readonly WindowView[]): string | null {
  const modes = new Set(selecting.map((w) => w.mode));
  if (modes.size < 2) return null;
  return `selected by windows of different modes (${selecting.map((w) => `${w.name}: ${w.mode}`).join(", ")}): held closed until one mode governs it`;
}

function invalidOf(selecting: readonly WindowView[]): string | null {
  const invalid = selecting.filter((w) => w.compiled === null);
  return invalid.length === 0 ? null : `window ${invalid.map((w) => w.name).join(", ")} is invalid`;
}

function evaluatorOf(selecting: readonly WindowView[], overrides: readonly OverrideView[]): Evaluator {
  return new Evaluator(
    selecting.map((w) => w.compiled as CompiledWindow),
    selecting.flatMap((w) => overridesOf(w, overrides)),
  );
}

/**
 * Plans one target from every window and override that selects it, so two windows never fight
 * over one object (precedence of DESIGN §3 across all of them).
 */
export function planTarget(selecting: readonly WindowView[], overrides: readonly OverrideView[], now: number): TargetPlan {
  if (selecting.length === 0) return { action: "release" };
  const invalid = invalidOf(selecting);
  if (invalid !== null) return { action: "hold", reason: "InvalidWindow", message: invalid, windows: selecting };
  const onRevert = selecting.every((w) => w.onRevert === "Reassert") ? "Reassert" : "Hold";
  const closeGracePeriodMs = Math.max(...selecting.map((w) => w.closeGracePeriodMs));
  const conflict = modeConflict(selecting);
  // Deterministic whatever order the windows were seen in: nothing new goes out until a person decides.
  if (conflict !== null)
    return { action: "enforce", open: false, decision: CONFLICT_DECISION, after: null, windows: selecting, closeGracePeriodMs, onRevert, conflict };
  const evaluator = evaluatorOf(selecting, overrides);
  const decision = evaluator.stateAt(now);
  const after = decision.until === null ? null : evaluator.stateAt(decision.until).state;
  // Gate mode holds the revision, not the reconciler: spec.suspend is not fluxgate's, so it lets go of it.
  if (selecting.some((w) => w.mode === "Gate")) return { action: "gate", open: decision.state === "open", decision, after, windows: selecting };
  return { action: "enforce", open: decision.state === "open", decision, after, windows: selecting, closeGracePeriodMs, onRevert, conflict: null };
}

/** What a target's windows do to it: enforce (spec.suspend follows), gate (the revision does), hold (left as it is), release (no window selects it). */
export type Effect = "enforce" | "gate" | "hold" | "release";

/** The decision for a target at an instant, as every surface states it. */
export interface TargetDecision {
  effect: Effect;
  /** Null when it is held as it is or not governed. */
  state: WindowState | null;
  /** Null when it is held as it is (suspended or not); true when not governed. */
  mayTakeChanges: boolean | null;
  overridden: boolean;
  cause: RuleRef | null;
  since: number | null;
  until: number | null;
  /** The sentence for people. */
  message: string;
}

/** The window a rule belongs to (overrides name their window too), else the first valid one: its zone words the times. */
export function decidingWindow(cause: RuleRef | null, windows: readonly Pick<WindowView, "name" | "compiled">[]): CompiledWindow | null {
  const named = cause === null ? undefined : windows.find((w) => w.name === cause.window && w.compiled !== null);
  return named?.compiled ?? windows.find((w) => w.compiled !== null)?.compiled ?? null;
}

/** The decision a plan stands for. */
export function decisionOfPlan(plan: TargetPlan): TargetDecision {
  switch (plan.action) {
    case "release":
      return { effect: "release", state: null, mayTakeChanges: true, overridden: false, cause: null, since: null, until: null, message: NOT_GOVERNED };
    case "hold":
      return {
        effect: "hold",
        state: null,
        mayTakeChanges: null,
        overridden: false,
        cause: null,
        since: null,
        until: null,
        message: heldMessage(plan.message),
      };
    case "enforce":
    case "gate": {
      const d = plan.decision;
      const conflict = plan.action === "enforce" ? plan.conflict : null;
      const zone = decidingWindow(d.cause, plan.windows)?.zone;
      const message = conflict !== null ? conflictMessage(conflict) : zone === undefined ? d.state : reasonOf(d, zone, plan.after);
      return {
        effect: plan.action,
        state: d.state,
        mayTakeChanges: d.state === "open",
        overridden: d.overridden,
        cause: d.cause,
        since: d.since,
        until: d.until,
        message,
      };
    }
  }
}

/**
 * The decision for a target at `now`, from the windows and overrides that select it.
 *
 * @example decideTarget(windowsSelecting(target, windows), overrides, Date.now()).mayTakeChanges
 */
export function decideTarget(selecting: readonly WindowView[], overrides: readonly OverrideView[], now: number): TargetDecision {
  return decisionOfPlan(planTarget(selecting, overrides, now));
}

/** A stretch of a range with one decision for a target. */
export interface TargetSegment {
  start: number;
  end: number;
  effect: Effect;
  state: WindowState | null;
  overridden: boolean;
  cause: RuleRef | null;
}

/**
 * The target's decision over `[from, to)`, cut into stretches of one decision, in order: what a
 * per-target lane of a timeline draws. Holding (an invalid window) and a conflict of modes last
 * the whole range, as they last until someone changes a window.
 */
export function targetSegments(selecting: readonly WindowView[], overrides: readonly OverrideView[], from: number, to: number): TargetSegment[] {
  if (to <= from) return [];
  const whole = (effect: Effect, state: WindowState | null): TargetSegment[] => [{ start: from, end: to, effect, state, overridden: false, cause: null }];
  if (selecting.length === 0) return whole("release", null);
  if (invalidOf(selecting) !== null) return whole("hold", null);
  if (modeConflict(selecting) !== null) return whole("enforce", "closed");
  const effect: Effect = selecting.some((w) => w.mode === "Gate") ? "gate" : "enforce";
  return (
    evaluatorOf(selecting, overrides)
      // Cut where the deciding rule changes, so a stretch names the rule `explain` names at each of its instants.
      .segments(from, to, { byRule: true })
      .map((s) => ({ start: s.start, end: s.end, effect, state: s.state, overridden: s.overridden, cause: s.cause }))
  );
}

/** The next `count` changes of a target's decision strictly after `now`; none while it is held (until a person acts) or not governed. */
export function targetTransitions(selecting: readonly WindowView[], overrides: readonly OverrideView[], now: number, count: number): Transition[] {
  if (selecting.length === 0 || invalidOf(selecting) !== null || modeConflict(selecting) !== null) return [];
  return evaluatorOf(selecting, overrides).transitions(now, count);
}
