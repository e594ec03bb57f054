// Reconciles one target in Suspend mode: plan from all its windows, wait for an in-flight apply, write spec.suspend once.

import { rfc3339 } from "../cli/format/time.ts";
import type { Outcome } from "../kube/queue.ts";
import { resourceOf } from "../kube/resources.ts";
import { CHANGES_APPLIED, SUSPEND_REVERTED, WINDOW_CLOSED, WINDOW_OPENED } from "./conditions.ts";
import type { Controller } from "./controller.ts";
import { FIELD_MANAGER, fluxgateWroteAt, isReconciling, isSuspended, keyOf, managedByFluxgate, ownsSuspend, REQUESTED_AT, suspendOwners, type FluxObject } from "./flux.ts";
import { planTarget, windowsSelecting, type TargetPlan } from "./plan.ts";
import { reasonOf } from "./status.ts";

/** What the controller remembers of a target between reconciles. */
export interface TargetMemory {
  /** The last value of spec.suspend fluxgate wrote, when (controller clock), and the resourceVersion it wrote over. */
  lastWrite: { suspend: boolean; at: number; over: string | undefined } | null;
  /** Consecutive times another manager set spec.suspend back. */
  reverts: number;
  /** The manager that did, while it stays reverted. */
  revertedBy: string | null;
  /** lastAppliedRevision last seen, to tell when Flux applied what waited. */
  appliedRevision: string | undefined;
  /** When the last revert was noticed (controller clock). */
  revertedAt: number | undefined;
  /** Not reconciled yet by this process: a transition it finds done may not have been announced. */
  fresh: boolean;
}

/** Longest wait before fluxgate sets spec.suspend again after another manager reverted it. */
const MAX_REVERT_BACKOFF_MS = 5 * 60_000;
/** How long without a revert before fluxgate forgets one (and the window's condition clears). */
const REVERT_MEMORY_MS = 10 * 60_000;
/** How often a close re-checks an in-flight reconciliation (target updates also wake it). */
const IN_FLIGHT_POLL_MS = 1_000;
/**
 * How long after a transition a controller that just started still announces it: a crash (or a
 * lost lease) between writing spec.suspend and recording the event must not lose the event. The
 * event's name is derived from the interval, so one that was recorded is not recorded again.
 */
const REANNOUNCE_MS = 2 * 60_000;

/** Where to look next: at the plan's next change, or never (the resync covers it). */
function nextChange(plan: TargetPlan, now: number): Outcome {
  if (plan.action === "enforce" && plan.decision.until !== null) return { kind: "requeueAfter", ms: Math.max(1, plan.decision.until - now) };
  return { kind: "done" };
}

export async function reconcileTarget(c: Controller, key: string): Promise<Outcome> {
  const target = c.targetObject(key);
  if (target === undefined) {
    c.memory.delete(key);
    return { kind: "done" };
  }
  const now = c.clock.now();
  const selecting = windowsSelecting(target, c.windowViews());
  const plan = planTarget(selecting, c.overrideViews(), now);
  const memory = c.memoryOf(key);
  const fresh = memory.fresh;
  memory.fresh = false;
  noticeApplied(c, target, memory, plan);

  if (plan.action === "hold") return { kind: "done" };
  if (plan.action === "release") return await release(c, target, memory);

  const desired = !plan.open;
  const actual = isSuspended(target);
  if (actual === desired && ownsSuspend(target)) {
    if (fresh && wroteThisInterval(target, plan, now)) announce(c, target, plan, desired);
    // A fight is forgotten only after a quiet spell, so a writer that reverts again keeps the backoff growing.
    if (memory.revertedAt !== undefined && now - memory.revertedAt > REVERT_MEMORY_MS) {
      memory.reverts = 0;
      memory.revertedBy = null;
      memory.revertedAt = undefined;
    }
    return nextChange(plan, now);
  }

  // The cache has not caught up with fluxgate's own write yet: its watch event will bring the target back.
  if (memory.lastWrite !== null && memory.lastWrite.suspend === desired && memory.lastWrite.over === target.metadata?.resourceVersion) {
    return { kind: "done" };
  }

  // Another manager set the field back after fluxgate wrote it: say so, and back off instead of fighting.
  if (memory.lastWrite !== null && memory.lastWrite.suspend === desired && actual !== desired) {
    const owner = suspendOwners(target).find((o) => o.manager !== FIELD_MANAGER);
    const by = owner?.manager ?? "unknown";
    if (memory.revertedBy === null || memory.lastWrite.at > (memory.revertedAt ?? 0)) {
      memory.reverts++;
      memory.revertedBy = by;
      memory.revertedAt = now;
      c.metrics.suspendReverted.inc();
      const message = `spec.suspend was set to ${String(actual)} by manager "${by}" against window ${plan.windows.map((w) => w.name).join(", ")}, which wants ${String(desired)}; remove spec.suspend from that manager's source (e.g. the parent Kustomization's manifest in Git)`;
      c.log.info("Detected a reverted suspend", { target: key, manager: by, desired, reverts: memory.reverts });
      c.events.emit(target, "Warning", SUSPEND_REVERTED, message, { forward: true });
      for (const w of plan.windows) {
        const obj = c.windowObject(w.key);
        if (obj !== undefined) c.events.emit(obj, "Warning", SUSPEND_REVERTED, `${target.kind}/${target.metadata?.namespace}/${target.metadata?.name}: ${message}`);
        c.enqueueWindow(w.key);
      }
    }
    const backoff = Math.min(1000 * 2 ** (memory.reverts - 1), MAX_REVERT_BACKOFF_MS);
    const wait = memory.lastWrite.at + backoff - now;
    if (wait > 0) return { kind: "requeueAfter", ms: wait };
  }

  // Closing: let an apply in flight finish, up to the grace period from the scheduled instant.
  if (desired && !actual && isReconciling(target)) {
    const since = plan.decision.since ?? now;
    const deadline = since + plan.closeGracePeriodMs;
    if (now < deadline) {
      c.log.debug("Waiting for an in-flight reconciliation before closing", { target: key, until: rfc3339(deadline) });
      return { kind: "requeueAfter", ms: Math.min(IN_FLIGHT_POLL_MS, deadline - now) };
    }
  }

  const opening = !desired && actual;
  const body = {
    metadata: {
      name: target.metadata?.name,
      namespace: target.metadata?.namespace,
      ...(opening ? { annotations: { [REQUESTED_AT]: new Date(now).toISOString() } } : {}),
    },
    spec: { suspend: desired },
  };
  await c.client.apply(resourceOf(target.kind ?? "") ?? fail(target), body, FIELD_MANAGER);
  memory.lastWrite = { suspend: desired, at: now, over: target.metadata?.resourceVersion };
  const transition = actual !== desired;
  if (transition) {
    if (plan.decision.since !== null) c.metrics.transitionLatency.observe(Math.max(0, c.clock.now() - plan.decision.since) / 1000);
    c.log.info(desired ? "Suspended target" : "Resumed target", { target: key, windows: plan.windows.map((w) => w.name).join(", "), reason: reasonFor(plan) });
    announce(c, target, plan, desired);
  } else {
    c.log.info("Took ownership of spec.suspend", { target: key, suspend: desired });
  }
  return nextChange(plan, now);
}

function reasonFor(plan: Extract<TargetPlan, { action: "enforce" }>): string {
  const first = plan.windows[0];
  return first?.compiled !== null && first?.compiled !== undefined ? reasonOf(plan.decision, first.compiled) : plan.decision.state;
}

/** Records (once per interval) that the target was suspended or resumed at the start of the current interval. */
function announce(c: Controller, target: FluxObject, plan: Extract<TargetPlan, { action: "enforce" }>, desired: boolean): void {
  const names = plan.windows.map((w) => w.name).join(", ");
  c.events.emit(target, "Normal", desired ? WINDOW_CLOSED : WINDOW_OPENED, `${desired ? "Suspended" : "Resumed"} by window ${names}: ${reasonFor(plan)}`, {
    forward: true,
    metadata: { window: names },
    once: `${plan.decision.state}@${plan.decision.since === null ? "always" : rfc3339(plan.decision.since)}`,
  });
}

/** fluxgate's own write put the target in its state during the current interval, lately: a transition a crash may have left unannounced. */
function wroteThisInterval(target: FluxObject, plan: Extract<TargetPlan, { action: "enforce" }>, now: number): boolean {
  const since = plan.decision.since;
  const wrote = fluxgateWroteAt(target);
  // Measured from the write, which may come long after the interval began (a close waiting for an in-flight apply, a controller that was down).
  if (since === null || wrote === undefined || Math.abs(now - wrote) > REANNOUNCE_MS) return false;
  // managedFields times have whole seconds.
  return wrote >= Math.floor(since / 1000) * 1000;
}

/** No window selects the target any more: give up every field fluxgate owns, so nothing stays suspended behind the user's back. */
async function release(c: Controller, target: FluxObject, memory: TargetMemory): Promise<Outcome> {
  if (!managedByFluxgate(target)) return { kind: "done" };
  const wasSuspended = isSuspended(target) && ownsSuspend(target);
  await c.client.apply(resourceOf(target.kind ?? "") ?? fail(target), { metadata: { name: target.metadata?.name, namespace: target.metadata?.namespace } }, FIELD_MANAGER);
  memory.lastWrite = null;
  memory.reverts = 0;
  memory.revertedBy = null;
  c.log.info("Released target: no window selects it", { target: keyOf(target), wasSuspended });
  if (wasSuspended) c.events.emit(target, "Normal", WINDOW_OPENED, "Released: no window selects it any more", { forward: true });
  return { kind: "done" };
}

/** Emits ChangesApplied when Flux applied a revision that had been waiting. */
function noticeApplied(c: Controller, target: FluxObject, memory: TargetMemory, plan: TargetPlan): void {
  const applied = target.status?.lastAppliedRevision ?? target.status?.lastAttemptedRevision;
  const before = memory.appliedRevision;
  memory.appliedRevision = applied;
  if (before === undefined || applied === undefined || applied === before || plan.action === "release") return;
  const names = plan.windows.map((w) => w.name).join(", ");
  c.events.emit(target, "Normal", CHANGES_APPLIED, `Applied revision ${applied} (was ${before}) under window ${names}`, { forward: true, metadata: { revision: applied } });
}

function fail(target: FluxObject): never {
  throw new Error(`${target.kind ?? "object"} is not a kind fluxgate can suspend`);
}
