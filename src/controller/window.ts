// Reconciles one ReconciliationWindow: finalizer, validation, which targets it governs, and its status (patched once).

import type { KubernetesObject } from "@kubernetes/client-node";
import type { WindowStatus } from "../api/index.ts";
import { canonicalJson } from "../api/canonical.ts";
import type { Outcome } from "../kube/queue.ts";
import { WINDOWS } from "../kube/resources.ts";
import { ACCESS_DENIED, INVALID_SPEC, SOURCE_NOT_GATED, WINDOW_CLOSED, WINDOW_OPENED } from "../api/conditions.ts";
import type { Controller } from "./controller.ts";
import { appliedRevisionOf, isSuspended, keyOf, kindAndName, parentHeld, pendingOf, sourceKeyOf } from "./flux.ts";
import { overridesOf, windowsSelecting } from "../policy/index.ts";
import { invalidStatus, windowStatus, type TargetReport } from "./status.ts";
import { reconcileGate, releaseGate, type GateResult } from "./gate.ts";
import { reconcileTarget } from "./target.ts";
import { Evaluator } from "../schedule/index.ts";
import type { WindowEntry } from "./views.ts";
import { refusedMessage, withRefusedTargets } from "./tenancy.ts";
import { FIELD_MANAGER, FINALIZER } from "../api/constants.ts";

/** How long after a transition its window's status waits for the transition's event to be recorded. */
const ANNOUNCE_RETRY_MS = 60_000;


export async function reconcileWindow(c: Controller, key: string): Promise<Outcome> {
  const obj = c.windowObject(key);
  if (obj === undefined) return { kind: "done" };
  const now = c.clock.now();
  const entry = c.views.window(obj, now);
  if (entry.view.deleting) return await finalize(c, obj, entry);
  await ensureFinalizer(c, obj);

  const namespace = entry.view.namespace;
  const name = entry.view.name;
  const previous = c.previousStatus(obj);
  const generation = obj.metadata?.generation;

  // The targets it governs now, and those it governed before: both must be re-planned on a change.
  const targets = c.targetsOf(entry.view);
  const keys = new Set(targets.map(keyOf));
  const before = c.selection.get(key) ?? new Set<string>();
  c.selection.set(key, keys);
  const overrides = overridesOf(entry.view, c.overrideViews());
  const inputs = canonicalJson([generation, entry.error?.message ?? null, overrides.map((o) => [o.name, o.action, o.start, o.end])]);
  const inputsChanged = c.decisionInputs.get(key) !== inputs;
  c.decisionInputs.set(key, inputs);
  for (const k of keys) if (inputsChanged || !before.has(k)) c.enqueueTarget(k);
  for (const k of before) if (!keys.has(k)) c.enqueueTarget(k);

  if (entry.error !== null || entry.view.compiled === null) {
    const message = entry.error?.message ?? "invalid spec";
    const status = invalidStatus(message, generation, previous, now);
    await patchStatus(c, obj, previous, status);
    c.events.emit(obj, "Warning", INVALID_SPEC, `Invalid spec; its targets are left as they are: ${message}`);
    c.log.error("Rejected an invalid window", { window: key, problems: entry.error?.problems ?? [] });
    c.metrics.setWindowState(namespace, name, undefined);
    // Its targets are left as they are: nothing is reported as waiting for it.
    for (const gauge of [c.metrics.pendingTargets, c.metrics.pendingRevisions, c.metrics.pendingSince]) gauge.remove({ namespace, name });
    return { kind: "done" };
  }

  let gate: GateResult | undefined;
  if (entry.view.mode === "Gate" && entry.spec !== null) {
    const open = new Evaluator([entry.view.compiled], overrides).stateAt(now).state === "open";
    gate = await reconcileGate(c, obj, entry.spec, open, targets, previous);
  }
  const views = c.windowViews();
  const gatedKey = entry.view.gatedSource;
  const reports: TargetReport[] = targets.map((t) => {
    const modes = new Set(windowsSelecting(t, views).map((w) => w.mode));
    const sourceKey = sourceKeyOf(t);
    // A Gate window holds only targets that take their artifact from the gated source.
    const unwired = gate !== undefined && gatedKey !== null && t.kind === "Kustomization" && sourceKey !== gatedKey ? `its sourceRef is ${sourceKey === null ? "missing" : kindAndName(sourceKey)}; set it to ${kindAndName(gatedKey)}` : null;
    if (unwired !== null) c.events.emit(t, "Warning", SOURCE_NOT_GATED, `Window ${name} (mode Gate) holds nothing for this ${t.kind}: ${unwired}`, { forward: true });
    const pending =
      gate === undefined || unwired !== null
        ? pendingOf(t, sourceKey === null ? undefined : c.sourceObject(sourceKey))
        : gate.pendingRevision === undefined
          ? null
          : {
              appliedRevision: appliedRevisionOf(t),
              pendingRevision: gate.pendingRevision,
              waitingSince: gate.status.pendingSince,
              ...(gate.status.pendingRevisions !== undefined ? { revisions: gate.status.pendingRevisions } : {}),
            };
    const memory = c.memory.get(keyOf(t));
    return {
      kind: t.kind ?? "",
      namespace: t.metadata?.namespace ?? "",
      name: t.metadata?.name ?? "",
      // Observed: spec.suspend as the API server has it; in Gate mode, whether the target is held at the pin.
      suspended: gate === undefined ? isSuspended(t) : unwired === null && gate.status.pinnedRevision !== gate.status.upstreamRevision,
      conflict: modes.size > 1,
      pending,
      revertedBy: memory?.revertedBy ?? null,
      parentHeld: parentHeld(t),
      unwired,
      violation: memory?.violation ?? null,
    };
  });
  const status = withRefusedTargets(windowStatus({ compiled: entry.view.compiled, overrides, targets: reports, generation, previous, now, gate: gate?.status }), namespace, entry.refused, previous, now, generation);
  if (entry.refused.length > 0) c.events.emit(obj, "Warning", ACCESS_DENIED, refusedMessage(namespace, entry.refused), { once: `${ACCESS_DENIED}/${generation ?? 0}` });
  // The event first, then the status that records the transition: a crash in between announces the
  // transition again, and its event, named after the interval, is found already recorded.
  if (previous?.state !== undefined && previous.state !== status.state) {
    const opened = status.state === "Open" || (status.state === "Overridden" && status.reason?.startsWith("Opened") === true);
    const recorded = await c.events.record(obj, "Normal", opened ? WINDOW_OPENED : WINDOW_CLOSED, `${previous.state} → ${status.state}: ${status.reason ?? ""}`, {
      once: `${status.state ?? ""}@${status.since ?? "always"}`,
    });
    // Not recorded (the API server just came back, say): the status waits, so that the next try
    // still sees the transition and announces it — for a while; an event that cannot be created at
    // all must not hold the status forever.
    const since = status.since === undefined ? now : Date.parse(status.since);
    if (!recorded && now - since < ANNOUNCE_RETRY_MS) return { kind: "retry", error: new Error(`the ${status.state ?? ""} event of window ${key} could not be recorded`) };
  }
  await patchStatus(c, obj, previous, status);

  // The informer may not have seen the status just written when the next reconcile runs: the state
  // this process last reported counts too, so one change is one transition. A new window's first
  // state is not a transition.
  const reported = c.reportedStates.get(key) ?? previous?.state;
  c.reportedStates.set(key, status.state);
  if (reported === undefined) {
    c.log.info("Window reconciled for the first time", { window: key, state: status.state, reason: status.reason });
  } else if (reported !== status.state) {
    c.metrics.transitions.inc({ namespace, name, state: status.state ?? "" });
    c.log.info("Window changed state", { window: key, from: reported, to: status.state, reason: status.reason });
  }
  c.metrics.setWindowState(namespace, name, status.state);
  c.metrics.pendingTargets.set({ namespace, name }, status.targets?.pending ?? 0);
  const listed = status.pending ?? [];
  c.metrics.pendingRevisions.set({ namespace, name }, Math.max(0, ...listed.map((p) => p.revisions ?? 1)));
  const waits = listed.map((p) => (p.waitingSince === undefined ? NaN : Date.parse(p.waitingSince))).filter((t) => !Number.isNaN(t));
  c.metrics.pendingSince.set({ namespace, name }, waits.length === 0 ? 0 : Math.min(...waits) / 1000);
  c.metrics.matchedTargets.set({ namespace, name }, status.targets?.matched ?? 0);

  const next = status.nextTransition === undefined ? null : Date.parse(status.nextTransition);
  if (gate?.waiting === true) return { kind: "requeueAfter", ms: Math.min(5_000, next === null ? 5_000 : Math.max(1, next - now)) };
  return next === null ? { kind: "done" } : { kind: "requeueAfter", ms: Math.max(1, next - now) };
}

async function patchStatus(c: Controller, obj: KubernetesObject, previous: WindowStatus | undefined, status: WindowStatus): Promise<void> {
  if (previous !== undefined && canonicalJson(previous) === canonicalJson(status)) return;
  await c.client.applyStatus(WINDOWS, obj.metadata?.namespace ?? "", obj.metadata?.name ?? "", status, FIELD_MANAGER);
}

async function ensureFinalizer(c: Controller, obj: KubernetesObject): Promise<void> {
  if (obj.metadata?.finalizers?.includes(FINALIZER) === true) return;
  await c.client.apply(WINDOWS, { metadata: { name: obj.metadata?.name, namespace: obj.metadata?.namespace, finalizers: [FINALIZER] } }, FIELD_MANAGER);
}

/** The window is being deleted: release (or re-plan) every target it governed, then let it go. */
async function finalize(c: Controller, obj: KubernetesObject, entry: WindowEntry): Promise<Outcome> {
  if (obj.metadata?.finalizers?.includes(FINALIZER) !== true) return { kind: "done" };
  const key = entry.view.key;
  const keys = new Set([...(c.selection.get(key) ?? []), ...c.targetsOf({ ...entry.view, deleting: false }).map(keyOf)]);
  for (const k of keys) {
    const out = await reconcileTarget(c, k);
    if (out.kind === "retry") return out;
  }
  if (entry.view.mode === "Gate" && entry.spec !== null) await releaseGate(c, obj, entry.spec, c.allTargets());
  // Leaving the finalizer out of the applied object removes the one fluxgate owns.
  await c.client.apply(WINDOWS, { metadata: { name: entry.view.name, namespace: entry.view.namespace } }, FIELD_MANAGER);
  c.selection.delete(key);
  c.log.info("Released the targets of a deleted window", { window: key, targets: keys.size });
  return { kind: "done" };
}
