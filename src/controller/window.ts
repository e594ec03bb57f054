// Reconciles one ReconciliationWindow: an orchestrator over named steps (finalizer, re-plan, validation, gate, summary, announcements), its status patched once.

import type { KubernetesObject } from "../kube/types.ts";
import { noticeOf, type WindowStatus } from "../api/index.ts";
import { canonicalJson } from "../api/canonical.ts";
import type { Outcome } from "../kube/queue.ts";
import { WINDOWS } from "../kube/resources.ts";
import { Evaluator } from "../schedule/index.ts";
import {
  ACCESS_DENIED,
  INVALID_SPEC,
  READY,
  SOURCE_NOT_GATED,
  TARGET_NOT_FOLLOWING,
  TARGET_NOT_FOUND,
  WINDOW_CLOSED,
  WINDOW_OPENED,
} from "../api/conditions.ts";
import type { ReconcileContext } from "./context.ts";
import { appliedRevisionOf, isReconciling, isSuspended, keyOf, kindAndName, parentHeld, pendingOf, sourceKeyOf, type FluxObject } from "../kube/flux.ts";
import { FIELD_MANAGER, FINALIZER } from "../api/constants.ts";
import { heldAtGate, reconcileGate, releaseGate, type GateResult } from "./gate.ts";
import { closestName, objectKey, overridesOf, windowsSelecting, type OverrideView, type TargetPlan, type WindowView } from "../policy/index.ts";
import { afterTargets, DONE, requeueAfter, runSteps, StallingError, verdictOf, WaitingError, type Step, type StepResult, type Verdict } from "./result.ts";
import { EVENT_WAIT_MAX_MS } from "./events.ts";
import { failedStatus, invalidStatus, notFollowing, windowStatus, type TargetReport } from "./status.ts";
import { planFor, reconcileTarget } from "./target.ts";
import { refusedMessage } from "../policy/tenancy.ts";
import { withRefusedTargets } from "./tenancy.ts";
import { withFleetScope } from "./fleet.ts";
import type { WindowEntry } from "../policy/views.ts";
import { keptSuspended } from "./state.ts";
import { apiStatusOf } from "../kube/errors.ts";
import { targetPicture } from "./picture.ts";
import { announceNotice } from "./notice.ts";

/** How long after a transition its window's status waits for the transition's event to be recorded. */
const ANNOUNCE_RETRY_MS = 60_000;
/** How often a Gate window looks again while its upstream has no artifact yet. */
const GATE_WAIT_MS = 5_000;

/** One reconcile of one window: what it was given and what its steps found. */
interface WindowRun {
  readonly ctx: ReconcileContext;
  readonly obj: KubernetesObject;
  readonly key: string;
  readonly entry: WindowEntry;
  readonly now: number;
  readonly previous: WindowStatus | undefined;
  readonly generation: number | undefined;
  targets: FluxObject[];
  overrides: OverrideView[];
  gate: GateResult | undefined;
  /** What each target did, once summarized. */
  reports: TargetReport[];
  /** The status to write, once the steps have computed it. */
  status: WindowStatus | undefined;
  /** With spec.notice: when to look again for the coming transition's notice (its moment, or a retry); null when nothing is to announce. */
  noticeRecheck: number | null;
}

/** The steps of a window's reconcile, in order. */
const STEPS: readonly Step<WindowRun>[] = [ensureFinalizer, replanTargets, checkSpec, pinGate, summarize, announceTransition, announceUpcoming];

export async function reconcileWindow(ctx: ReconcileContext, key: string): Promise<Outcome> {
  const obj = ctx.cache.windowObject(key);
  if (obj === undefined) return DONE;
  const now = ctx.clock.now();
  const run: WindowRun = {
    ctx,
    obj,
    key,
    entry: ctx.views.window(obj, now),
    now,
    previous: (obj as { status?: WindowStatus }).status,
    generation: obj.metadata?.generation,
    targets: [],
    overrides: [],
    gate: undefined,
    reports: [],
    status: undefined,
    noticeRecheck: null,
  };
  if (run.entry.view.deleting) return await finalize(run);
  try {
    const stopped = await runSteps(run, STEPS);
    if (stopped !== null) return stopped;
  } catch (error) {
    const verdict = verdictOf(error);
    if (verdict.kind === "failed") await reportFailed(run, verdict, error);
    if (verdict.kind !== "stalled") throw error;
    run.status = invalidStatus(verdict, run.generation, run.previous, now);
    await patchStatus(run);
    reportStalled(run, verdict);
    return verdict.outcome;
  }
  await patchStatus(run);
  recordState(run);
  return nextReconcile(run);
}

async function ensureFinalizer({ ctx, obj }: WindowRun): Promise<StepResult> {
  if (obj.metadata?.finalizers?.includes(FINALIZER) === true) return "next";
  await ctx.client.apply(WINDOWS, { metadata: { name: obj.metadata?.name, namespace: obj.metadata?.namespace, finalizers: [FINALIZER] } }, FIELD_MANAGER);
  return "next";
}

/** The targets it governs now, and those it governed before: both are re-planned when its decision's inputs change. */
function replanTargets(run: WindowRun): StepResult {
  const { ctx, key, entry } = run;
  run.targets = ctx.cache.targetsOf(entry.view);
  const keys = new Set(run.targets.map(keyOf));
  const before = ctx.state.select(key, keys);
  run.overrides = overridesOf(entry.view, ctx.cache.overrideViews());
  // The cluster's identity too: it scopes a fleet window and gives a holiday freeze its country.
  const inputs = canonicalJson([
    run.generation,
    entry.error?.message ?? null,
    run.overrides.map((o) => [o.name, o.action, o.start, o.end]),
    ctx.cache.identityVersion(),
  ]);
  const inputsChanged = ctx.state.decisionChanged(key, inputs);
  for (const k of keys) if (inputsChanged || !before.has(k)) ctx.enqueue.target(k);
  for (const k of before) if (!keys.has(k)) ctx.enqueue.target(k);
  return "next";
}

/** An invalid spec stalls the window: its targets are left as they are. */
function checkSpec({ entry }: WindowRun): StepResult {
  if (entry.error === null && entry.view.compiled !== null) return "next";
  throw new StallingError(INVALID_SPEC, entry.error?.message ?? "invalid spec", { cause: entry.error ?? undefined });
}

/** Mode Gate: the gated source pinned (or moved) as the window's state says. */
async function pinGate(run: WindowRun): Promise<StepResult> {
  const { ctx, entry } = run;
  if (entry.view.mode !== "Gate" || entry.spec === null || entry.view.compiled === null) return "next";
  // A fleet window that is not this cluster's creates and pins nothing here.
  if (entry.view.fleet?.kind === "not-selected") return "next";
  const open = new Evaluator([entry.view.compiled], run.overrides).stateAt(run.now).state === "open";
  run.gate = await reconcileGate(ctx, run.obj, entry.spec, open, run.targets, run.previous);
  return "next";
}

/** What each target did, summed up in the window's status. */
function summarize(run: WindowRun): StepResult {
  const { ctx, entry, gate, now, generation, previous } = run;
  const { namespace } = entry.view;
  const compiled = entry.view.compiled;
  if (compiled === null) throw new StallingError(INVALID_SPEC, "invalid spec");
  const views = ctx.cache.windowViews();
  const reports = run.targets.map((t) => targetReport(run, t, views));
  run.reports = reports;
  const missing = missingTargets(run);
  run.status = withRefusedTargets(
    withFleetScope(
      windowStatus({ compiled, overrides: run.overrides, targets: reports, generation, previous, now, gate: gate?.status, missing }),
      entry.view.fleet,
      previous,
      now,
      generation,
    ),
    namespace,
    entry.refused,
    previous,
    now,
    generation,
  );
  if (entry.refused.length > 0)
    ctx.events.emit(run.obj, "Warning", ACCESS_DENIED, refusedMessage(namespace, entry.refused), { once: `${ACCESS_DENIED}/${generation ?? 0}` });
  warnOfProblems(run);
  return "next";
}

/**
 * The targets the window names (by name, not by selector) that do not exist, each in a sentence
 * with the closest existing name of that kind in that namespace. A target created later is picked
 * up at once: its informer event re-plans the windows that select it.
 */
function missingTargets({ ctx, entry }: WindowRun): string[] {
  const out: string[] = [];
  for (const t of entry.view.targets) {
    if (t.name === undefined) continue;
    const namespace = t.namespace ?? entry.view.namespace;
    if (ctx.cache.targetObject(objectKey(t.kind, namespace, t.name)) !== undefined) continue;
    if (!ctx.cache.watchesKind(t.kind)) {
      out.push(`${t.kind} ${namespace}/${t.name}: this controller does not watch ${t.kind} (its CRD is not installed, or --target-kinds leaves it out)`);
      continue;
    }
    const names = ctx.cache
      .allTargets()
      .filter((o) => o.kind === t.kind && o.metadata?.namespace === namespace)
      .map((o) => o.metadata?.name ?? "");
    const near = closestName(t.name, names);
    out.push(`${t.kind} ${namespace}/${t.name} does not exist${near !== undefined ? `; did you mean ${near}?` : ""}`);
  }
  return out;
}

/** Reasons of Ready=False that no other event announces: a Warning event when Ready becomes False for one of them. */
const WARNED = new Set([TARGET_NOT_FOLLOWING, TARGET_NOT_FOUND]);

/** A Warning event on the window, once per reason each time Ready turns False for it (the status says the rest). */
function warnOfProblems({ ctx, obj, status }: WindowRun): void {
  const ready = status?.conditions?.find((c) => c.type === READY);
  if (ready === undefined || ready.status !== "False" || !WARNED.has(ready.reason)) return;
  ctx.events.emit(obj, "Warning", ready.reason, ready.message, { once: `${ready.reason}@${ready.lastTransitionTime}` });
}

function targetReport(run: WindowRun, t: FluxObject, views: readonly WindowView[]): TargetReport {
  const { ctx, gate, now } = run;
  const name = run.entry.view.name;
  const gatedKey = run.entry.view.gatedSource;
  const modes = new Set(windowsSelecting(t, views).map((w) => w.mode));
  const sourceKey = sourceKeyOf(t);
  // A Gate window holds only targets that take their artifact from the gated source.
  const unwired =
    gate !== undefined && gatedKey !== null && t.kind === "Kustomization" && sourceKey !== gatedKey
      ? `its sourceRef is ${sourceKey === null ? "missing" : kindAndName(sourceKey)}; set it to ${kindAndName(gatedKey)}`
      : null;
  if (unwired !== null)
    ctx.events.emit(t, "Warning", SOURCE_NOT_GATED, `Window ${name} (mode Gate) holds nothing for this ${t.kind}: ${unwired}`, { forward: true });
  const pending =
    gate === undefined || unwired !== null
      ? pendingOf(t, sourceKey === null ? undefined : ctx.cache.sourceObject(sourceKey))
      : gate.pendingRevision === undefined
        ? null
        : {
            appliedRevision: appliedRevisionOf(t),
            pendingRevision: gate.pendingRevision,
            waitingSince: gate.status.pendingSince,
            ...(gate.status.pendingRevisions !== undefined ? { revisions: gate.status.pendingRevisions } : {}),
          };
  const memory = ctx.state.knownMemory(keyOf(t));
  // The plan of all its windows: what the target should do, whichever window reports it.
  const plan = planFor(t, views, ctx.cache.overrideViews(), now);
  const kept = keptSuspendedOf(run, t, gate === undefined ? plan : null);
  const following = followingOf(run, t, plan);
  // On the target too, forwarded with its picture: a fleet view learns from the cluster itself that it does not follow.
  if (following.problem !== null)
    ctx.events.emit(t, "Warning", TARGET_NOT_FOLLOWING, following.problem, { forward: true, metadata: targetPicture(ctx, t, plan) });
  return {
    suspendedWhileOpenSince: kept.since,
    recheckAt: [kept.recheckAt, following.recheckAt]
      .filter((x): x is number => x !== null)
      .reduce<number | null>((a, b) => (a === null ? b : Math.min(a, b)), null),
    kind: t.kind ?? "",
    namespace: t.metadata?.namespace ?? "",
    name: t.metadata?.name ?? "",
    // Observed, the same whichever window reports it: held when spec.suspend is true (as the API
    // server has it) or when it takes its artifact from a gated source pinned behind its upstream.
    suspended: isSuspended(t) || (gate !== undefined && unwired === null ? gate.status.pinnedRevision !== gate.status.upstreamRevision : heldAtGate(ctx, t)),
    conflict: modes.size > 1,
    pending,
    revertedBy: memory?.revertedBy ?? null,
    parentHeld: parentHeld(t),
    unwired,
    violation: memory?.violation ?? null,
    notFollowing: following.problem,
  };
}

/**
 * Suspend mode: whether the target's spec.suspend, as the API server has it, is what the plan of
 * all its windows wants — and if not, why, once it is more than a write's lag (see notFollowing).
 * Remembered per target, so a window that reconciles often does not restart the clock.
 */
function followingOf({ ctx, now }: WindowRun, t: FluxObject, plan: TargetPlan): { problem: string | null; recheckAt: number | null } {
  const key = keyOf(t);
  if (plan.action !== "enforce") {
    const known = ctx.state.knownMemory(key);
    if (known !== undefined) known.divergedSince = null;
    return { problem: null, recheckAt: null };
  }
  const desired = !plan.open;
  const actual = isSuspended(t);
  if (desired === actual) {
    const known = ctx.state.knownMemory(key);
    if (known !== undefined) known.divergedSince = null;
    return { problem: null, recheckAt: null };
  }
  const memory = ctx.state.memoryOf(key);
  memory.divergedSince ??= now;
  // Closing waits for an apply in flight, up to the grace period: not following yet is what it should do.
  const since = plan.decision.since ?? now;
  const inFlightUntil = desired && isReconciling(t) ? since + plan.closeGracePeriodMs : null;
  return notFollowing({
    desired,
    actual,
    divergedSince: memory.divergedSince,
    now,
    writeError: memory.writeError,
    revertedBy: memory.revertedBy,
    inFlightUntil,
  });
}

/**
 * Suspend mode: whether the target is kept suspended although the decision of all its windows lets
 * it take changes (a second writer keeps it suspended, a write that fails), and since when.
 * Remembered per target, so a window that reconciles often does not restart the clock.
 */
function keptSuspendedOf({ ctx, now }: WindowRun, t: FluxObject, plan: TargetPlan | null): ReturnType<typeof keptSuspended> {
  const key = keyOf(t);
  const open = plan !== null && plan.action === "enforce" && plan.open;
  const seen = !open ? "closed" : isSuspended(t) ? "held" : "resumed";
  const known = ctx.state.knownMemory(key);
  if (seen !== "held" && (known === undefined || known.keptSuspended.since === null)) return { since: null, resumedAt: null, recheckAt: null };
  const memory = known ?? ctx.state.memoryOf(key);
  const next = keptSuspended(memory.keptSuspended, seen, now);
  memory.keptSuspended = { since: next.since, resumedAt: next.resumedAt };
  return next;
}

/**
 * The event first, then the status that records the transition: a crash in between announces the
 * transition again, and its event, named after the interval, is found already recorded.
 */
async function announceTransition(run: WindowRun): Promise<StepResult> {
  const { ctx, obj, previous, now, key } = run;
  const status = run.status as WindowStatus;
  // The state this process last wrote, else the cache's: a cache that missed the last write (a watch
  // down for a while) must not hide a transition, nor one that lags it repeat one.
  const before = ctx.state.reportedState(key) ?? previous?.state;
  if (before === undefined || before === status.state) return "next";
  const opened = status.state === "Open" || (status.state === "Overridden" && status.reason?.startsWith("Opened") === true);
  const since = status.since === undefined ? now : Date.parse(status.since);
  const once = `${status.state ?? ""}@${status.since ?? "always"}`;
  // The targets first: while their writes are under way the event would wait for them, and this
  // reconcile with it, holding a worker the targets need. The window comes back when they are done
  // (its status after them too), or once it has put the announcement off for as long as an event
  // waits for them: the queue keeps that deadline from the first time it asked, and says when it passed.
  if (ctx.events.held() && !ctx.enqueue.windowWaitedOut(key)) return afterTargets(EVENT_WAIT_MAX_MS);
  const recorded = await ctx.events.record(obj, "Normal", opened ? WINDOW_OPENED : WINDOW_CLOSED, `${before} → ${status.state}: ${status.reason ?? ""}`, {
    once,
  });
  // Not recorded (the API server just came back, say): the status waits, so that the next try
  // still sees the transition and announces it — for a while; an event that cannot be created at
  // all must not hold the status forever.
  if (!recorded && now - since < ANNOUNCE_RETRY_MS)
    throw new WaitingError(opened ? WINDOW_OPENED : WINDOW_CLOSED, `the ${status.state ?? ""} event of window ${key} could not be recorded`);
  return "next";
}

/** With spec.notice: the next opening or freeze start, in status.upcoming, announced once when due (see notice.ts). */
async function announceUpcoming(run: WindowRun): Promise<StepResult> {
  const { entry } = run;
  const noticeMs = entry.spec === null ? null : noticeOf(entry.spec);
  const compiled = entry.view.compiled;
  if (noticeMs === null || compiled === null) return "next";
  const out = await announceNotice(run.ctx, {
    window: run.obj,
    key: run.key,
    name: entry.view.name,
    compiled,
    overrides: run.overrides,
    noticeMs,
    now: run.now,
    previous: run.previous?.upcoming,
    targets: run.targets,
    reports: run.reports,
  });
  if (out.upcoming !== undefined) (run.status as WindowStatus).upcoming = out.upcoming;
  run.noticeRecheck = out.recheckAt;
  return "next";
}

async function patchStatus({ ctx, obj, previous, status }: WindowRun): Promise<void> {
  if (status === undefined) return;
  if (previous !== undefined && canonicalJson(previous) === canonicalJson(status)) return;
  await ctx.client.applyStatus(WINDOWS, obj.metadata?.namespace ?? "", obj.metadata?.name ?? "", status, FIELD_MANAGER);
}

/**
 * A reconcile that failed ends in a status that says so (as Flux's controllers patch status on every
 * path), with a Warning event — best effort: the API server that refused a write may refuse these too.
 */
async function reportFailed(run: WindowRun, failed: Verdict, error: unknown): Promise<void> {
  const { ctx, obj, key, previous, now, generation } = run;
  // The API server's own sentence ("... is forbidden: User ... cannot patch ..."), not the client's dump of the exchange.
  const answer = apiStatusOf(error);
  const verdict =
    answer.code !== undefined && answer.message !== "" ? { ...failed, message: `the API server answered ${answer.code}: ${answer.message}` } : failed;
  run.status = failedStatus(verdict, generation, previous, now);
  const ready = run.status.conditions?.find((c) => c.type === READY);
  ctx.events.emit(obj, "Warning", verdict.reason, verdict.message, { once: `${verdict.reason}@${ready?.lastTransitionTime ?? ""}/${verdict.message}` });
  try {
    await patchStatus(run);
  } catch (err) {
    ctx.log.debug("Failed to record a failed reconcile in the window's status", { window: key, err });
  }
}

/** An invalid window: a Warning event, a log line, and nothing reported as waiting for it (its targets are left as they are). */
function reportStalled({ ctx, obj, key, entry }: WindowRun, error: Verdict): void {
  const { namespace, name } = entry.view;
  ctx.events.emit(obj, "Warning", error.reason, `Invalid spec; its targets are left as they are: ${error.message}`);
  ctx.log.error("Rejected an invalid window", { window: key, problems: entry.error?.problems ?? [] });
  ctx.metrics.setWindowState(namespace, name, "Invalid");
  for (const gauge of [
    ctx.metrics.pendingTargets,
    ctx.metrics.pendingRevisions,
    ctx.metrics.pendingSince,
    ctx.metrics.suspendedWhileOpen,
    ctx.metrics.suspendedWhileOpenSince,
  ])
    gauge.remove({ namespace, name });
}

/**
 * The state written, logged once per change and measured. The informer may not have seen the
 * status just written when the next reconcile runs: the state this process last reported counts
 * too, so one change is one transition. A new window's first state is not a transition.
 */
function recordState({ ctx, key, entry, previous, reports, status: written }: WindowRun): void {
  const status = written as WindowStatus;
  const { namespace, name } = entry.view;
  const reported = ctx.state.reportedState(key) ?? previous?.state;
  ctx.state.reportState(key, status.state);
  if (reported === undefined) {
    ctx.log.info("Window reconciled for the first time", { window: key, state: status.state, reason: status.reason });
  } else if (reported !== status.state) {
    ctx.metrics.transitions.inc({ namespace, name, state: status.state ?? "" });
    ctx.log.info("Window changed state", { window: key, from: reported, to: status.state, reason: status.reason });
  }
  ctx.metrics.setWindowState(namespace, name, status.state);
  ctx.metrics.pendingTargets.set({ namespace, name }, status.targets?.pending ?? 0);
  const listed = status.pending ?? [];
  ctx.metrics.pendingRevisions.set({ namespace, name }, Math.max(0, ...listed.map((p) => p.revisions ?? 1)));
  const waits = listed.map((p) => (p.waitingSince === undefined ? NaN : Date.parse(p.waitingSince))).filter((t) => !Number.isNaN(t));
  ctx.metrics.pendingSince.set({ namespace, name }, waits.length === 0 ? 0 : Math.min(...waits) / 1000);
  ctx.metrics.matchedTargets.set({ namespace, name }, status.targets?.matched ?? 0);
  const held = reports.flatMap((r) => (r.suspendedWhileOpenSince === null ? [] : [r.suspendedWhileOpenSince]));
  ctx.metrics.suspendedWhileOpen.set({ namespace, name }, held.length);
  ctx.metrics.suspendedWhileOpenSince.set({ namespace, name }, held.length === 0 ? 0 : Math.min(...held) / 1000);
}

/** At the next transition, or its notice's moment; sooner while a Gate's upstream has no artifact yet, or when a resumed target stops counting as kept suspended. */
function nextReconcile({ status, gate, now, reports, noticeRecheck }: WindowRun): Outcome {
  const nextTransition = status?.nextTransition;
  const rechecks = [...reports.flatMap((r) => (r.recheckAt === null ? [] : [r.recheckAt])), ...(noticeRecheck === null ? [] : [noticeRecheck])];
  const candidates = [...(nextTransition === undefined ? [] : [Date.parse(nextTransition)]), ...rechecks];
  const next = candidates.length === 0 ? null : Math.min(...candidates);
  if (gate?.waiting === true) return requeueAfter(Math.min(GATE_WAIT_MS, next === null ? GATE_WAIT_MS : next - now));
  return next === null ? DONE : requeueAfter(next - now);
}

/** The window is being deleted: release (or re-plan) every target it governed, then let it go. */
async function finalize({ ctx, obj, key, entry }: WindowRun): Promise<Outcome> {
  if (obj.metadata?.finalizers?.includes(FINALIZER) !== true) return DONE;
  const keys = new Set([...ctx.state.selected(key), ...ctx.cache.targetsOf({ ...entry.view, deleting: false }).map(keyOf)]);
  for (const k of keys) {
    const out = await reconcileTarget(ctx, k);
    if (out.kind === "retry") return out;
  }
  if (entry.view.mode === "Gate" && entry.spec !== null) await releaseGate(ctx, obj, entry.spec, ctx.cache.allTargets());
  // Leaving the finalizer out of the applied object removes the one fluxgate owns.
  await ctx.client.apply(WINDOWS, { metadata: { name: entry.view.name, namespace: entry.view.namespace } }, FIELD_MANAGER);
  ctx.state.forgetSelection(key);
  ctx.log.info("Released the targets of a deleted window", { window: key, targets: keys.size });
  return DONE;
}
