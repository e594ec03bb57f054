// Reconciles one target: plan from all its windows, enforce spec.suspend in Suspend mode, and report what the target really did.

import { rfc3339 } from "../schedule/format.ts";
import type { Outcome } from "../kube/queue.ts";
import { resourceOf, TARGET_RESOURCES } from "../kube/resources.ts";
import { APPLIED_WHILE_CLOSED, CHANGES_APPLIED, PARENT_HELD, SUSPEND_REVERTED, TARGET_NOT_FOLLOWING, WINDOW_CLOSED, WINDOW_OPENED } from "../api/conditions.ts";
import { apiStatusOf } from "../kube/errors.ts";
import { Failure } from "../errors.ts";
import { STATUS_DEBOUNCE_MS, type ReconcileContext } from "./context.ts";
import {
  appliedRevisionOf,
  fluxgateWroteAt,
  isReconciling,
  isSuspended,
  keyOf,
  kindAndName,
  managedByFluxgate,
  managerKind,
  ownsSuspend,
  parentHeld,
  parentOf,
  revertAdvice,
  sourceKeyOf,
  suspendOwners,
  type FluxObject,
} from "../kube/flux.ts";
import { EVENT_METADATA, FIELD_MANAGER, PARENT_RECONCILE, PARENT_RECONCILE_DISABLED, RECONCILE_REQUESTED_AT } from "../api/constants.ts";
import {
  decisionOfPlan,
  planTarget,
  revisionId,
  windowsSelecting,
  type ObjectLike,
  type OverrideView,
  type TargetPlan,
  type WindowView,
} from "../policy/index.ts";
import { targetPicture } from "./picture.ts";
import { DONE, requeueAfter, runSteps, type Step, type StepResult } from "./result.ts";
import type { TargetMemory } from "./state.ts";

export type { TargetMemory, Violation } from "./state.ts";

type Enforce = Extract<TargetPlan, { action: "enforce" }>;

/**
 * A hot loop (a script, two controllers fighting) reverts fluxgate's write again and again within
 * seconds: HOT_LOOP_REVERTS reverts within HOT_LOOP_SPAN_MS start it, and while it lasts (each
 * revert sooner than RAPID_REVERT_MS after fluxgate's write) fluxgate waits longer before each
 * re-assert. A parent Kustomization reverts once per reconcile (its interval, and each new
 * revision of its source): two of those may land close together, never three within seconds, so
 * each of its reverts is answered at once.
 */
const HOT_LOOP_REVERTS = 3;
const HOT_LOOP_SPAN_MS = 10_000;
const RAPID_REVERT_MS = 5_000;
/** Longest wait before re-asserting against a writer that reverts in a hot loop. */
const MAX_REVERT_BACKOFF_MS = 30_000;
/** How long a version of a target where nobody owns spec.suspend, seen after fluxgate wrote it, is taken for an old one. */
const UNOWNED_WAIT_MS = 10_000;
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
  if ((plan.action === "enforce" || plan.action === "gate") && plan.decision.until !== null) return requeueAfter(plan.decision.until - now);
  return DONE;
}

/** The controller's decision for a target (pure): every window that selects it and their overrides, planned at `now`. */
export function planFor(target: ObjectLike, windows: Iterable<WindowView>, overrides: readonly OverrideView[], now: number): TargetPlan {
  return planTarget(windowsSelecting(target, windows), overrides, now);
}

/**
 * Plans the target from all its windows and overrides, reports what Flux applied, then acts on
 * the plan: leave it, release it, let a Gate hold it, or enforce spec.suspend.
 */
export async function reconcileTarget(c: ReconcileContext, key: string): Promise<Outcome> {
  const target = c.cache.targetObject(key);
  if (target === undefined) {
    c.state.forgetTarget(key);
    return DONE;
  }
  const now = c.clock.now();
  const plan = planFor(target, c.cache.windowViews(), c.cache.overrideViews(), now);
  const memory = c.state.memoryOf(key);
  const fresh = memory.fresh;
  memory.fresh = false;
  // Reconciled again before the cache saw fluxgate's last write (a step may wait for it): its watch event must bring the target back.
  if (memory.lastWrite !== null && memory.lastWrite.answered !== target.metadata?.resourceVersion) memory.lastWrite.answered = undefined;
  if (suspendOwners(target).some((o) => managerKind(o.manager) === "flux")) memory.parentDeclaresSuspend = true;
  noticeApplied(c, target, memory, plan, now);

  switch (plan.action) {
    case "hold":
      return DONE;
    case "release":
      return await release(c, target, memory, "Released: no window selects it any more");
    case "gate":
      await release(c, target, memory, "Released spec.suspend: only Gate windows select it, and they hold the revision instead");
      return nextChange(plan, now);
    case "enforce":
      return await enforce({ c, target, key, memory, plan, now, fresh, desired: !plan.open, actual: isSuspended(target), parent: parentOf(target) });
  }
}

/** One Suspend-mode enforcement of one target: what it was given. */
interface EnforceRun {
  readonly c: ReconcileContext;
  readonly target: FluxObject;
  readonly key: string;
  readonly memory: TargetMemory;
  readonly plan: Enforce;
  readonly now: number;
  /** First reconcile of the target by this process. */
  readonly fresh: boolean;
  /** The spec.suspend the plan wants. */
  readonly desired: boolean;
  /** spec.suspend as the API server has it. */
  readonly actual: boolean;
  readonly parent: { namespace: string; name: string } | null;
}

/** The steps of an enforcement, in order; the first that stops decides when to look again. */
const ENFORCE_STEPS: readonly Step<EnforceRun>[] = [keepWhenInPlace, awaitOwnWrite, answerRevert, graceForInFlight, writeSuspend];

/** Suspend mode: spec.suspend as the plan says, at once against a revert, and the parent held off while closed when it declares spec.suspend. */
async function enforce(run: EnforceRun): Promise<Outcome> {
  return (await runSteps(run, ENFORCE_STEPS)) ?? nextChange(run.plan, run.now);
}

/** Hold the parent off only while closed, only where Git declares spec.suspend (or fluxgate already did). */
function holdsParent({ desired, plan, parent, memory, target }: EnforceRun): boolean {
  return desired && plan.onRevert === "Hold" && parent !== null && (memory.parentDeclaresSuspend || parentHeld(target));
}

/** Already as the plan wants, and fluxgate owns it: at most an announcement a crash may have lost. */
function keepWhenInPlace(run: EnforceRun): StepResult {
  const { c, target, memory, plan, now, fresh, desired, actual } = run;
  if (!(actual === desired && ownsSuspend(target) && parentHeld(target) === holdsParent(run))) return "next";
  if (fresh && wroteThisInterval(target, plan, now)) announce(c, target, plan, desired);
  // A fight is forgotten only after a quiet spell.
  if (memory.revertedAt !== undefined && now - memory.revertedAt > REVERT_MEMORY_MS) {
    memory.reverts = 0;
    memory.recentReverts = [];
    memory.revertedBy = null;
    memory.revertedAt = undefined;
  }
  return nextChange(plan, now);
}

/** The cache has not caught up with fluxgate's own write yet: its watch event will bring the target back. */
function awaitOwnWrite({ memory, desired, target }: EnforceRun): StepResult {
  if (memory.lastWrite !== null && memory.lastWrite.suspend === desired && memory.lastWrite.over === target.metadata?.resourceVersion) return DONE;
  return "next";
}

/**
 * Another manager set the field back after fluxgate wrote it: say who, and set it again — at once,
 * unless the reverts come in a hot loop.
 */
function answerRevert(run: EnforceRun): StepResult {
  const { c, target, memory, plan, now, desired, actual } = run;
  if (memory.lastWrite === null || memory.lastWrite.suspend !== desired || actual === desired) return "next";
  // fluxgate still owns the field and nobody else does: a version of the object from before
  // fluxgate's own write (a status update that raced it), not a revert. Its watch event follows.
  const owners = suspendOwners(target);
  if (ownsSuspend(target) && !owners.some((o) => o.manager !== FIELD_MANAGER)) return DONE;
  // Nobody owns the field: a version from before fluxgate's first write (a status update that raced
  // it), not a revert — a writer would own what it wrote. Its watch event follows; should it not (the
  // object was deleted and created again), the write is made again after a while.
  const since = now - memory.lastWrite.at;
  if (owners.length === 0 && since < UNOWNED_WAIT_MS) return requeueAfter(UNOWNED_WAIT_MS - since);
  const wait = noticeRevert(c, target, memory, plan, now);
  return wait > 0 ? requeueAfter(wait) : "next";
}

/** Closing: let an apply in flight finish, up to the grace period from the scheduled instant. */
function graceForInFlight({ c, target, key, plan, now, desired, actual }: EnforceRun): StepResult {
  if (!(desired && !actual && isReconciling(target))) return "next";
  const since = plan.decision.since ?? now;
  const deadline = since + plan.closeGracePeriodMs;
  if (now >= deadline) return "next";
  c.log.debug("Waiting for an in-flight reconciliation before closing", { target: key, until: rfc3339(deadline) });
  return requeueAfter(Math.min(IN_FLIGHT_POLL_MS, deadline - now));
}

/** Writes spec.suspend (and the parent hold) with server-side apply, then says so. */
async function writeSuspend(run: EnforceRun): Promise<StepResult> {
  const { c, target, key, memory, plan, now, desired, actual, parent } = run;
  const holdParent = holdsParent(run);
  const held = parentHeld(target);
  const opening = !desired && actual;
  // A scheduled transition: fluxgate's own value from before the interval began is now wrong. Not a
  // first enforcement (fluxgate did not own the field) and not a re-assert (another manager did).
  // fluxgate's last write: remembered (controller clock), else from managedFields after a restart (whole seconds).
  const wrote = memory.lastWrite !== null ? memory.lastWrite.at : fluxgateWroteAt(target);
  const since = plan.decision.since;
  const scheduled = actual !== desired && ownsSuspend(target) && since !== null && wrote !== undefined && wrote < Math.floor(since / 1000) * 1000;
  const annotations: Record<string, string> = {
    ...(opening ? { [RECONCILE_REQUESTED_AT]: new Date(now).toISOString() } : {}),
    ...(holdParent ? { [PARENT_RECONCILE]: PARENT_RECONCILE_DISABLED } : {}),
  };
  const body = {
    metadata: { name: target.metadata?.name, namespace: target.metadata?.namespace, ...(Object.keys(annotations).length > 0 ? { annotations } : {}) },
    spec: { suspend: desired },
  };
  // The API server's answer is the object as written: what the events say the target does is read from it, not from the intent.
  // As the plan wants (no admission webhook changed it), its watch event is only this write coming back.
  const { written, echo } = await writeTarget(c, target, memory, body, plan.windows, (w) => isSuspended(w) === desired && parentHeld(w) === holdParent);
  memory.lastWrite = { suspend: desired, at: now, over: target.metadata?.resourceVersion, answered: echo };
  if (scheduled) c.metrics.transitionLatency.observe(Math.max(0, c.clock.now() - since) / 1000);
  if (holdParent && !held && parent !== null) {
    const message = `The parent Kustomization ${parent.namespace}/${parent.name} declares spec.suspend of this object in Git; while window ${names(plan)} is closed, fluxgate disabled the parent's reconcile of it (${PARENT_RECONCILE}: ${PARENT_RECONCILE_DISABLED}) so that Git cannot resume it. Remove spec.suspend from the manifest in Git: fluxgate owns it`;
    c.log.info("Disabled the parent's reconcile of a target while its window is closed", { target: key, parent: `${parent.namespace}/${parent.name}` });
    c.events.emit(target, "Warning", PARENT_HELD, message, { forward: true, metadata: targetPicture(c, written, plan) });
  }
  if (held && !holdParent && parent !== null) await requestParentReconcile(c, parent, now);
  if (actual !== desired) {
    c.log.info(desired ? "Suspended target" : "Resumed target", { target: key, windows: names(plan), reason: reasonFor(plan) });
    announce(c, written, plan, desired);
  } else {
    c.log.info("Took ownership of spec.suspend", { target: key, suspend: desired, parentHeld: holdParent });
  }
  return "next";
}

/** Records a revert, reports it once per revert, and returns how long to wait before setting the field again (0: at once). */
function noticeRevert(c: ReconcileContext, target: FluxObject, memory: TargetMemory, plan: Enforce, now: number): number {
  const lastWrite = memory.lastWrite as NonNullable<TargetMemory["lastWrite"]>;
  const actual = isSuspended(target);
  const owner = suspendOwners(target).find((o) => o.manager !== FIELD_MANAGER);
  const by = owner?.manager ?? "unknown";
  if (memory.revertedWrite !== lastWrite) {
    // A new revert: of a write fluxgate made since the last one it saw.
    memory.revertedWrite = lastWrite;
    memory.recentReverts = [...memory.recentReverts.filter((at) => now - at < HOT_LOOP_SPAN_MS), now];
    const hot = memory.recentReverts.length >= HOT_LOOP_REVERTS || (memory.reverts > 0 && now - lastWrite.at < RAPID_REVERT_MS);
    memory.reverts = hot ? memory.reverts + 1 : 0;
    memory.revertedBy = by;
    memory.revertedAt = now;
    c.metrics.suspendReverted.inc();
    const key = keyOf(target);
    const message = `spec.suspend was set to ${String(actual)} by manager "${by}" against window ${names(plan)}, which wants ${String(!actual)}; fluxgate set it back. To stop this: ${revertAdvice(by, parentOf(target))}`;
    c.log.info("Detected a reverted suspend", {
      target: key,
      manager: by,
      desired: !actual,
      hotLoopReverts: memory.reverts,
      backoffMs: Math.max(0, backoffUntil(memory) - now),
    });
    c.events.emit(target, "Warning", SUSPEND_REVERTED, message, { forward: true, metadata: targetPicture(c, target, plan) });
    for (const w of plan.windows) {
      const obj = c.cache.windowObject(w.key);
      if (obj !== undefined)
        c.events.emit(obj, "Warning", SUSPEND_REVERTED, `${target.kind}/${target.metadata?.namespace}/${target.metadata?.name}: ${message}`);
      // Reverts come in bursts (a parent applying all its children): one status write for the burst.
      c.enqueue.window(w.key, STATUS_DEBOUNCE_MS);
    }
  }
  return Math.max(0, backoffUntil(memory) - now);
}

/** When a re-assert may be made: at once (0) unless the reverts are a hot loop, then 1 s, 2 s, 4 s … up to 30 s after fluxgate's last write. */
function backoffUntil(memory: TargetMemory): number {
  if (memory.reverts === 0 || memory.lastWrite === null) return 0;
  return memory.lastWrite.at + Math.min(1000 * 2 ** (memory.reverts - 1), MAX_REVERT_BACKOFF_MS);
}

/** The parent held changes to the target while the window was closed: ask it to apply them now rather than at its next interval. */
async function requestParentReconcile(c: ReconcileContext, parent: { namespace: string; name: string }, now: number): Promise<void> {
  const resource = TARGET_RESOURCES.Kustomization;
  if (resource === undefined) return;
  try {
    // A merge patch, not an apply: fluxgate must not own a field of the parent (it would release it as a target).
    await c.client.mergePatch(
      resource,
      parent.namespace,
      parent.name,
      { metadata: { annotations: { [RECONCILE_REQUESTED_AT]: new Date(now).toISOString() } } },
      FIELD_MANAGER,
    );
  } catch (err) {
    // Best effort: the parent applies at its next interval anyway.
    c.metrics.errors.inc({ operation: "request-parent-reconcile" });
    c.log.error("Failed to request a reconcile of the parent Kustomization", { parent: `${parent.namespace}/${parent.name}`, err });
  }
}

function names(plan: { windows: readonly { name: string }[] }): string {
  return plan.windows.map((w) => w.name).join(", ");
}

function reasonFor(plan: Enforce): string {
  return decisionOfPlan(plan).message;
}

/** Records (once per interval) that the target was suspended or resumed at the start of the current interval. */
function announce(c: ReconcileContext, target: FluxObject, plan: Enforce, desired: boolean): void {
  c.events.emit(
    target,
    "Normal",
    desired ? WINDOW_CLOSED : WINDOW_OPENED,
    `${desired ? "Suspended" : "Resumed"} by window ${names(plan)}: ${reasonFor(plan)}`,
    {
      forward: true,
      metadata: targetPicture(c, target, plan),
      once: `${plan.conflict !== null ? "conflict" : plan.decision.state}@${plan.decision.since === null ? "always" : rfc3339(plan.decision.since)}`,
      retry: true,
    },
  );
}

/** fluxgate's own write put the target in its state during the current interval, lately: a transition a crash may have left unannounced. */
function wroteThisInterval(target: FluxObject, plan: Enforce, now: number): boolean {
  const since = plan.decision.since;
  const wrote = fluxgateWroteAt(target);
  // Measured from the write, which may come long after the interval began (a close waiting for an in-flight apply, a controller that was down).
  if (since === null || wrote === undefined || Math.abs(now - wrote) > REANNOUNCE_MS) return false;
  // managedFields times have whole seconds.
  return wrote >= Math.floor(since / 1000) * 1000;
}

/** Gives up every field fluxgate owns (spec.suspend, the parent hold), so nothing stays suspended behind the user's back. */
async function release(c: ReconcileContext, target: FluxObject, memory: TargetMemory, why: string): Promise<Outcome> {
  if (!managedByFluxgate(target)) return DONE;
  const wasSuspended = isSuspended(target) && ownsSuspend(target);
  const held = parentHeld(target);
  const { written: released } = await writeTarget(c, target, memory, { metadata: { name: target.metadata?.name, namespace: target.metadata?.namespace } }, []);
  memory.lastWrite = null;
  memory.reverts = 0;
  memory.recentReverts = [];
  memory.revertedBy = null;
  memory.revertedAt = undefined;
  memory.revertedWrite = null;
  const parent = parentOf(target);
  if (held && parent !== null) await requestParentReconcile(c, parent, c.clock.now());
  c.log.info("Released target", { target: keyOf(target), why, wasSuspended, parentHeld: held });
  // Released: spec.suspend is gone unless another manager owns it too; the API server's answer says which.
  if (wasSuspended) c.events.emit(released, "Normal", WINDOW_OPENED, why, { forward: true, metadata: targetPicture(c, released, { action: "release" }) });
  return DONE;
}

/** Whether a closed plan let the target apply something: the close's grace for an apply in flight, and a Gate's pin, are not violations. */
function violationCause(c: ReconcileContext, target: FluxObject, memory: TargetMemory, plan: TargetPlan, applied: string, now: number): string | null {
  if (plan.action === "enforce") {
    if (plan.open) return null;
    const since = plan.decision.since;
    const closedByFluxgate = memory.lastWrite?.suspend === true && since !== null && memory.lastWrite.at >= since;
    // An apply that was in flight at the close may finish within the grace period, before fluxgate suspends.
    if (!closedByFluxgate && since !== null && now - since <= plan.closeGracePeriodMs) return null;
    return suspendCause(target, memory);
  }
  if (plan.action === "gate") {
    if (plan.open) return null;
    const gated = plan.windows.map((w) => w.gatedSource).filter((g): g is string => g !== null);
    const source = sourceKeyOf(target);
    if (source !== null && !gated.includes(source) && target.kind === "Kustomization")
      return `its sourceRef is ${kindAndName(source)}, not the gated source ${gated.map(kindAndName).join(" or ")}`;
    const pins = gated.map((g) => {
      const kind = g.split("/", 1)[0] as string;
      const ref = c.cache.sourceObject(g)?.spec?.ref as { commit?: string; digest?: string } | undefined;
      return { kind, pin: kind === "OCIRepository" ? ref?.digest : ref?.commit };
    });
    if (pins.some((p) => p.pin !== undefined && revisionId(p.kind, applied) === p.pin)) return null;
    return "the revision is not the gated source's pin";
  }
  return null;
}

/**
 * What let a change through while closed, as observed: who set spec.suspend to false, that
 * fluxgate's write was refused (so it was never set), that the apply came before fluxgate's first
 * write, or — spec.suspend being true — that Flux applied it anyway (an apply already in flight).
 */
function suspendCause(target: FluxObject, memory: TargetMemory): string {
  // A manager that set it back while closed let the change through, even if fluxgate has suspended it again since.
  if (memory.revertedBy !== null) return `spec.suspend was set to false by manager "${memory.revertedBy}"`;
  if (isSuspended(target)) return "it was applied although spec.suspend is true (an apply already in flight when it was suspended)";
  const by = suspendOwners(target).find((o) => o.manager !== FIELD_MANAGER)?.manager;
  if (by !== undefined) return `spec.suspend was set to false by manager "${by}"`;
  if (memory.writeError !== null) return `spec.suspend was never set: fluxgate's write was refused: ${memory.writeError.message}`;
  if (memory.lastWrite === null) return "it was applied before fluxgate's first write of spec.suspend";
  return `spec.suspend is not set: fluxgate set it to ${String(memory.lastWrite.suspend)} at ${rfc3339(memory.lastWrite.at)} and nobody owns it since`;
}

/** Reports what Flux applied: ChangesApplied when it may, AppliedWhileClosed (a violation) when its windows were closed. */
function noticeApplied(c: ReconcileContext, target: FluxObject, memory: TargetMemory, plan: TargetPlan, now: number): void {
  const applied = appliedRevisionOf(target);
  const before = memory.appliedRevision;
  memory.appliedRevision = applied;
  const open = (plan.action === "enforce" || plan.action === "gate") && plan.open;
  if (open) memory.violation = null;
  if (before === undefined || applied === undefined || applied === before || plan.action === "release" || plan.action === "hold") return;
  const windows = names(plan);
  const cause = violationCause(c, target, memory, plan, applied, now);
  if (cause === null) {
    c.events.emit(target, "Normal", CHANGES_APPLIED, `Applied revision ${applied} (was ${before}) under window ${windows}`, {
      forward: true,
      metadata: { ...targetPicture(c, target, plan), [EVENT_METADATA.revision]: applied },
    });
    return;
  }
  memory.violation = { revision: applied, previousRevision: before, at: now, cause };
  const message = `Applied revision ${applied} (was ${before}) while window ${windows} is closed: ${cause}`;
  c.log.error("Detected a change applied while its window is closed", { target: keyOf(target), revision: applied, cause });
  c.events.emit(target, "Warning", APPLIED_WHILE_CLOSED, message, {
    forward: true,
    metadata: { ...targetPicture(c, target, plan), [EVENT_METADATA.revision]: applied },
  });
  for (const w of plan.windows) {
    c.metrics.appliedWhileClosed.inc({ namespace: w.namespace, name: w.name });
    const obj = c.cache.windowObject(w.key);
    if (obj !== undefined)
      c.events.emit(obj, "Warning", APPLIED_WHILE_CLOSED, `${target.kind}/${target.metadata?.namespace}/${target.metadata?.name}: ${message}`);
    c.enqueue.window(w.key);
  }
}

/**
 * One server-side apply to a target. A refused write (RBAC without `patch`, an admission webhook)
 * is remembered with the API server's answer until a write succeeds, and the windows that govern
 * the target are told at once: their status says the target does not follow, and why, instead of
 * waiting for the queue's next retry. The error is thrown on, so the queue retries with backoff.
 *
 * `asWritten` tells whether the answer is the target as written; then `echo` is the resourceVersion
 * whose watch event will be this write coming back (undefined when it came already, while the write
 * was in flight). A watch event of another version that came meanwhile queues the target again.
 */
async function writeTarget(
  c: ReconcileContext,
  target: FluxObject,
  memory: TargetMemory,
  body: object,
  windows: readonly { key: string }[],
  asWritten: (written: FluxObject) => boolean = () => false,
): Promise<{ written: FluxObject; echo: string | undefined }> {
  const key = keyOf(target);
  c.state.beginWrite(key);
  let written: FluxObject;
  try {
    written = await c.client.apply<FluxObject>(resourceOf(target.kind ?? "") ?? fail(target), body, FIELD_MANAGER);
  } catch (error) {
    if (c.state.endWrite(key, undefined).reconcile) c.enqueue.target(key);
    const { code, message } = apiStatusOf(error);
    const said = message !== "" ? message : error instanceof Error ? error.message : String(error);
    const first = memory.writeError === null || memory.writeError.message !== said;
    memory.writeError = { code, message: said, at: c.clock.now() };
    if (first) for (const w of windows) c.enqueue.window(w.key);
    throw new TargetWriteError(`${kindAndName(keyOf(target))}: ${said}`, { cause: error, code });
  }
  const answered = asWritten(written) ? written.metadata?.resourceVersion : undefined;
  const { reconcile, echoSeen } = c.state.endWrite(key, answered);
  if (reconcile) c.enqueue.target(key);
  if (memory.writeError !== null) {
    memory.writeError = null;
    for (const w of windows) c.enqueue.window(w.key);
  }
  return { written, echo: echoSeen ? undefined : answered };
}

/** A write to a target failed; `code` is the API server's HTTP status when it answered. */
export class TargetWriteError extends Failure {
  readonly code: number | undefined;
  constructor(message: string, options: { cause: unknown; code: number | undefined }) {
    super(message, { reason: TARGET_NOT_FOLLOWING, cause: options.cause });
    this.code = options.code;
  }
}

function fail(target: FluxObject): never {
  throw new Error(`${target.kind ?? "object"} is not a kind fluxgate can suspend`);
}
