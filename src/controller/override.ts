// Reconciles one WindowOverride (an orchestrator over named steps, status patched once): validity, its window, Active until its end (`until`, or a
// cancellation), then kept as a record; conditions and events.

import type { KubernetesObject } from "../kube/types.ts";
import type { Condition, OverridePhase, OverrideStatus } from "../api/index.ts";
import { canonicalJson } from "../api/canonical.ts";
import { rfc3339 } from "../schedule/format.ts";
import type { Outcome } from "../kube/queue.ts";
import { overridesOf, overrideStage } from "../policy/index.ts";
import { OVERRIDES } from "../kube/resources.ts";
import { INVALID_SPEC, NOT_SELECTED, OVERRIDE_CANCELLED, OVERRIDE_EXPIRED, OVERRIDE_STARTED, READY, STALLED, WINDOW_NOT_FOUND } from "../api/conditions.ts";
import type { ReconcileContext } from "./context.ts";
import { FIELD_MANAGER } from "../api/constants.ts";
import { DONE, requeueAfter, runSteps, type Step, type StepResult } from "./result.ts";
import { windowKey, type OverrideEntry } from "../policy/views.ts";

/** Per phase: Ready's status and reason, and whether the event is a Warning. */
const PHASES: Readonly<Record<OverridePhase, { ready: Condition["status"]; reason: string; warning: boolean }>> = {
  Active: { ready: "True", reason: OVERRIDE_STARTED, warning: false },
  Expired: { ready: "True", reason: OVERRIDE_EXPIRED, warning: false },
  Cancelled: { ready: "True", reason: OVERRIDE_CANCELLED, warning: false },
  WindowNotFound: { ready: "False", reason: WINDOW_NOT_FOUND, warning: true },
  Invalid: { ready: "False", reason: INVALID_SPEC, warning: true },
  NotSelected: { ready: "True", reason: NOT_SELECTED, warning: false },
};

/**
 * The status of an override at `now` (pure): Invalid, then Cancelled or Expired once its end has
 * passed, WindowNotFound while its window does not exist, else Active.
 */
export function overrideStatus(
  entry: OverrideEntry,
  namespace: string,
  windowExists: boolean,
  now: number,
  generation: number | undefined,
  previous: OverrideStatus | undefined,
): OverrideStatus {
  let phase: OverridePhase;
  let message: string;
  const fields: Partial<OverrideStatus> = {};
  const view = entry.view;
  if (view === null && entry.notSelected !== null) {
    phase = "NotSelected";
    message = `has no effect on this cluster: ${entry.notSelected}`;
  } else if (view === null) {
    phase = "Invalid";
    message = entry.error ?? "invalid spec";
  } else {
    // In force at some point: it was Active (this process or an earlier one said so), or its window is there now.
    const wasInForce = previous?.startedAt !== undefined || windowExists;
    if (wasInForce) fields.startedAt = previous?.startedAt ?? rfc3339(view.start);
    const cancelled = entry.cancelled !== null && entry.until !== undefined && entry.cancelled.at < entry.until ? entry.cancelled : null;
    if (cancelled !== null) Object.assign(fields, { cancelledAt: rfc3339(cancelled.at), cancelledBy: cancelled.by });
    const verb = view.action === "Open" ? "opens" : "freezes";
    const stage = overrideStage({ start: view.start, end: view.end, until: entry.until ?? view.end, cancelled: entry.cancelled }, now);
    if (stage === "cancelled" && cancelled !== null) {
      phase = "Cancelled";
      message = `cancelled by ${cancelled.by} at ${rfc3339(cancelled.at)} (it was to last until ${rfc3339(entry.until ?? view.end)}); kept as a record until deleted`;
      fields.expiredAt = rfc3339(view.end);
    } else if (stage === "expired" || stage === "cancelled") {
      phase = "Expired";
      message = wasInForce
        ? `expired at ${rfc3339(view.end)}; kept as a record until deleted`
        : `expired at ${rfc3339(view.end)} without taking effect: window ${view.window} did not exist in ${namespace} while it lasted; kept as a record until deleted`;
      fields.expiredAt = rfc3339(view.end);
    } else if (!windowExists) {
      phase = "WindowNotFound";
      // A window this override was in force on was deleted: the name was right.
      message =
        previous?.startedAt !== undefined
          ? `window ${view.window} was deleted from ${namespace}: this override has no effect unless it is created again`
          : `window ${view.window} does not exist in ${namespace}: this override has no effect until it does (is the name right?)`;
    } else {
      phase = "Active";
      message = `${verb} window ${view.window} until ${rfc3339(view.end)}`;
    }
  }
  const p = PHASES[phase];
  const before = previous?.conditions ?? [];
  const condition = (type: string, status: Condition["status"], reason: string): Condition => {
    const old = before.find((c) => c.type === type);
    const lastTransitionTime = old !== undefined && old.status === status ? old.lastTransitionTime : rfc3339(now);
    return { type, status, observedGeneration: generation, lastTransitionTime, reason, message };
  };
  return {
    phase,
    message,
    ...fields,
    // Moves when Ready or Stalled (Invalid), as a window's does; one whose window is missing keeps the generation last reconciled while Ready.
    ...(p.ready === "True" || phase === "Invalid"
      ? generation !== undefined
        ? { observedGeneration: generation }
        : {}
      : previous?.observedGeneration !== undefined
        ? { observedGeneration: previous.observedGeneration }
        : {}),
    conditions: [
      condition(READY, p.ready, p.reason),
      condition(STALLED, phase === "Invalid" ? "True" : "False", phase === "Invalid" ? INVALID_SPEC : p.reason),
    ],
  };
}

/** The event announcing a phase, on the override. */
function announcement(phase: OverridePhase, entry: OverrideEntry, message: string): string {
  switch (phase) {
    case "Active":
      return `${entry.view?.action ?? ""} override ${message}: ${entry.view?.reason ?? ""}`;
    case "Expired":
      return `Override ${message}`;
    case "Cancelled":
      return `Override ${message}`;
    case "WindowNotFound":
      return `Override has no effect: ${message}`;
    case "Invalid":
      return `Invalid override; it has no effect: ${message}`;
    case "NotSelected":
      return `Override ${message}`;
  }
}

/** One reconcile of one override: what it was given and what its steps found. */
interface OverrideRun {
  readonly c: ReconcileContext;
  readonly obj: KubernetesObject;
  readonly key: string;
  readonly entry: OverrideEntry;
  readonly namespace: string;
  readonly now: number;
  readonly previous: OverrideStatus | undefined;
  /** Its window, when it exists. */
  window: KubernetesObject | undefined;
  status: OverrideStatus | undefined;
}

/** The steps of an override's reconcile, in order. */
const STEPS: readonly Step<OverrideRun>[] = [findWindow, computeStatus, announcePhase];

export async function reconcileOverride(c: ReconcileContext, key: string): Promise<Outcome> {
  const obj = c.cache.overrideObject(key);
  if (obj === undefined) return DONE;
  const run: OverrideRun = {
    c,
    obj,
    key,
    entry: c.views.override(obj, c.clock.now()),
    namespace: obj.metadata?.namespace ?? "",
    now: c.clock.now(),
    previous: (obj as { status?: OverrideStatus }).status,
    window: undefined,
    status: undefined,
  };
  const stopped = await runSteps(run, STEPS);
  if (stopped !== null) return stopped;
  await patchStatus(run);
  // Looked at again when it ends.
  const view = run.entry.view;
  if (view !== null && run.now < view.end) return requeueAfter(view.end - run.now);
  return DONE;
}

/** Its window: told to re-plan (the override may change its decision), and whether it exists. */
function findWindow(run: OverrideRun): StepResult {
  const { c, entry, namespace } = run;
  const selector = (run.obj as { spec?: { windowSelector?: unknown } }).spec?.windowSelector;
  if (entry.windowName === undefined && selector !== undefined) {
    // A fleet freeze: every window of its namespace may be one it selects (or selected before its labels changed).
    for (const w of c.cache.windowEntries()) {
      if (w.view.namespace !== namespace) continue;
      c.enqueue.window(w.view.key);
      if (run.window === undefined && entry.view !== null && overridesOf(w.view, [entry.view]).length > 0) run.window = c.cache.windowObject(w.view.key);
    }
    return "next";
  }
  if (entry.windowName === undefined) return "next";
  const key = windowKey(namespace, entry.windowName);
  c.enqueue.window(key);
  run.window = c.cache.windowObject(key);
  return "next";
}

function computeStatus(run: OverrideRun): StepResult {
  run.status = overrideStatus(run.entry, run.namespace, run.window !== undefined, run.now, run.obj.metadata?.generation, run.previous);
  return "next";
}

/** A new phase is announced (events, a log line) before the status that records it. */
async function announcePhase({ c, obj, key, entry, window, previous, status: computed }: OverrideRun): Promise<StepResult> {
  const status = computed as OverrideStatus;
  const phase = status.phase as OverridePhase;
  const message = status.message ?? "";
  if (previous?.phase === phase) return "next";
  // Once per phase of a spec (and cancellation): a crash before the status below is written announces the phase again, and finds it recorded.
  const phaseKey = `${phase}/${obj.metadata?.generation ?? 0}${phase === "Cancelled" ? `/${status.cancelledAt ?? ""}` : ""}`;
  const once = { once: phaseKey };
  const p = PHASES[phase];
  // Recorded before the status that says the phase changed, so a crash in between announces it again instead of never.
  await c.events.record(obj, p.warning ? "Warning" : "Normal", p.reason, announcement(phase, entry, message), once);
  if (window !== undefined && (phase === "Active" || phase === "Expired" || phase === "Cancelled")) {
    await c.events.record(window, "Normal", p.reason, `Override ${obj.metadata?.name ?? ""}: ${message}`, {
      once: `${obj.metadata?.uid ?? obj.metadata?.name ?? ""}/${phaseKey}`,
    });
  }
  const fields = {
    override: key,
    from: previous?.phase ?? "",
    to: phase,
    ...(status.cancelledBy !== undefined ? { cancelledBy: status.cancelledBy, cancelledAt: status.cancelledAt } : {}),
  };
  if (p.warning) c.log.error(phase === "Invalid" ? "Rejected an invalid override" : "Found no window for an override", fields);
  else c.log.info(phase === "Cancelled" ? "Recorded a cancelled override" : "Override changed phase", fields);
  return "next";
}

async function patchStatus({ c, namespace, obj, previous, status }: OverrideRun): Promise<void> {
  if (status === undefined) return;
  if (previous !== undefined && canonicalJson(previous) === canonicalJson(status)) return;
  await c.client.applyStatus(OVERRIDES, namespace, obj.metadata?.name ?? "", status, FIELD_MANAGER);
}
