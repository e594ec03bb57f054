// Pure computation of a window's status: state, reason, intervals, next changes, target counts, pending list, conditions.

import { MAX_PENDING_LISTED, MAX_VIOLATIONS_LISTED, type Condition, type WindowStatus } from "../api/index.ts";
import { rfc3339 } from "../schedule/format.ts";
import { reasonOf, stateOf } from "../policy/index.ts";
import { Evaluator, type CompiledWindow, type OverrideInput, type Transition } from "../schedule/index.ts";
import {
  APPLIED_WHILE_CLOSED,
  MODE_CONFLICT,
  READY,
  RECONCILED,
  SOURCE_NOT_GATED,
  STALLED,
  SUSPEND_REVERTED_CONDITION,
  TARGET_NOT_FOLLOWING,
  TARGET_NOT_FOUND,
} from "../api/conditions.ts";
import { revertAdvice, type PendingRevision } from "../kube/flux.ts";
import type { Violation } from "./state.ts";

/** What the controller knows of one target of the window. */
export interface TargetReport {
  kind: string;
  namespace: string;
  name: string;
  suspended: boolean;
  /** Held because windows of different modes select it. */
  conflict: boolean;
  pending: PendingRevision | null;
  /** Manager that set `spec.suspend` against the windows, when one did. */
  revertedBy: string | null;
  /** fluxgate disabled the parent Kustomization's reconcile of the target while closed: Git declares its spec.suspend. */
  parentHeld: boolean;
  /** Mode Gate: how the target bypasses the gated source, when it does ("its sourceRef is ..."). */
  unwired: string | null;
  /** The last revision it applied while its windows were closed, as observed. */
  violation: Violation | null;
  /** Suspend mode: since when it has been kept suspended although its windows let it take changes (controller clock); null while it is not. */
  suspendedWhileOpenSince: number | null;
  /** When to look again: a target seen resumed that still counts as kept suspended, or one whose lag may become a problem. */
  recheckAt: number | null;
  /** Why it does not do what its windows decided, as observed (see notFollowing); null while it does, or while that is only a write's lag. */
  notFollowing: string | null;
}

/**
 * How long a target's spec.suspend may differ from what its windows decided before a window reports
 * it as not following, when nothing says why: longer than a write and its watch event take, shorter
 * than anyone waits for a transition. A write the API server refused is reported at once.
 */
export const FOLLOW_GRACE_MS = 10_000;

/** HTTP statuses that say a write will not succeed as it is: bad request, unauthorized, forbidden, not found, invalid. */
const REFUSED = new Set([400, 401, 403, 404, 422]);

export interface FollowInput {
  /** spec.suspend as the windows decided, and as the API server has it. */
  desired: boolean;
  actual: boolean;
  /** Since when they have differed (controller clock). */
  divergedSince: number;
  now: number;
  /** fluxgate's last write to the target failed, with the API server's answer. */
  writeError: { code: number | undefined; message: string } | null;
  /** The manager that set spec.suspend back against the window, while the fight lasts. */
  revertedBy: string | null;
  /** Closing waits for an apply in flight until this instant (null: no apply in flight). */
  inFlightUntil: number | null;
}

/**
 * Why a target does not follow its windows (pure), in a sentence that says what was observed, or
 * null while it is only the lag of a write (then `recheckAt` says when to look again).
 *
 * @example notFollowing({ desired: true, actual: false, divergedSince: 0, now: 1, writeError: { code: 403, message: "forbidden" }, revertedBy: null,
 * inFlightUntil: null }).problem
 * // → "spec.suspend is false, the window wants true: fluxgate may not write it (403): forbidden"
 */
export function notFollowing(i: FollowInput): { problem: string | null; recheckAt: number | null } {
  if (i.desired === i.actual) return { problem: null, recheckAt: null };
  if (i.inFlightUntil !== null && i.now < i.inFlightUntil) return { problem: null, recheckAt: i.inFlightUntil + FOLLOW_GRACE_MS };
  const refused = i.writeError !== null && i.writeError.code !== undefined && REFUSED.has(i.writeError.code);
  const due = i.divergedSince + FOLLOW_GRACE_MS;
  if (!refused && i.now < due) return { problem: null, recheckAt: due };
  const seen = `spec.suspend is ${String(i.actual)}, the window wants ${String(i.desired)}`;
  let why: string;
  if (i.writeError !== null) {
    why = refused ? `fluxgate may not write it (${String(i.writeError.code)}): ${i.writeError.message}` : `fluxgate's writes fail: ${i.writeError.message}`;
  } else if (i.revertedBy !== null) {
    why = `manager "${i.revertedBy}" keeps setting it back`;
  } else {
    why = `so for longer than ${FOLLOW_GRACE_MS / 1000}s, although nothing refused fluxgate's write`;
  }
  return { problem: `${seen}: ${why}`, recheckAt: null };
}

function condition(
  type: string,
  status: Condition["status"],
  reason: string,
  message: string,
  now: number,
  generation: number | undefined,
  previous: readonly Condition[],
): Condition {
  const before = previous.find((c) => c.type === type);
  const lastTransitionTime = before !== undefined && before.status === status ? before.lastTransitionTime : rfc3339(now);
  return { type, status, observedGeneration: generation, lastTransitionTime, reason, message };
}

export interface StatusInput {
  compiled: CompiledWindow;
  overrides: readonly OverrideInput[];
  targets: readonly TargetReport[];
  generation: number | undefined;
  previous: WindowStatus | undefined;
  now: number;
  /** Mode Gate: the gated source's pin. */
  gate?: WindowStatus["gate"];
  /** Targets the window names that do not exist, each in a sentence ("Kustomization flux-system/apps-rww does not exist; did you mean apps-rw?"). */
  missing?: readonly string[];
}

type PendingEntry = NonNullable<WindowStatus["pending"]>[number];

/**
 * How long and through how many revisions a target has waited, carried over from the previous
 * status: while it has applied nothing new, each new source revision adds one and the wait keeps
 * its start. Flux's source shows only its latest artifact, so only the status remembers this.
 *
 * @example carryPending({ appliedRevision: "a", pendingRevision: "b", revisions: 1, waitingSince: "T1" },
 *   { appliedRevision: "a", pendingRevision: "c", waitingSince: "T2" }) // → { revisions: 2, waitingSince: "T1" }
 */
export function carryPending(previous: PendingEntry | undefined, current: PendingRevision): { revisions: number; waitingSince: string | undefined } {
  if (previous === undefined || previous.appliedRevision !== current.appliedRevision) return { revisions: 1, waitingSince: current.waitingSince };
  const before = previous.revisions ?? 1;
  return {
    revisions: previous.pendingRevision === current.pendingRevision ? before : before + 1,
    waitingSince: previous.waitingSince ?? current.waitingSince,
  };
}

type ViolationEntry = NonNullable<WindowStatus["violations"]>[number];

/**
 * Revisions applied while the window was closed: those listed before and those just observed,
 * newest last, until the window opens again (then applying is what the window is for).
 */
export function violationsOf(previous: WindowStatus | undefined, targets: readonly TargetReport[], open: boolean): ViolationEntry[] {
  if (open) return [];
  const out = [...(previous?.violations ?? [])];
  for (const t of targets) {
    const v = t.violation;
    if (v === null || out.some((o) => o.kind === t.kind && o.namespace === t.namespace && o.name === t.name && o.revision === v.revision)) continue;
    out.push({
      kind: t.kind,
      namespace: t.namespace,
      name: t.name,
      revision: v.revision,
      ...(v.previousRevision !== undefined ? { previousRevision: v.previousRevision } : {}),
      at: rfc3339(v.at),
      cause: v.cause,
    });
  }
  return out.slice(-MAX_VIOLATIONS_LISTED);
}

/** The status of a valid window. */
export function windowStatus(input: StatusInput): WindowStatus {
  const { compiled, now, previous } = input;
  const evaluator = new Evaluator([compiled], input.overrides);
  const d = evaluator.stateAt(now);
  const state = stateOf(d);
  const next = evaluator.transitions(now, 16);
  const isOpen = d.state === "open";
  let nextOpen: Transition | undefined;
  let nextClose: Transition | undefined;
  let wasOpen = isOpen;
  for (const t of next) {
    const open = t.state === "open";
    if (open && !wasOpen) nextOpen ??= t;
    if (!open && wasOpen) nextClose ??= t;
    wasOpen = open;
  }
  const prevConditions = previous?.conditions ?? [];
  const conflicts = input.targets.filter((t) => t.conflict);
  const reverted = input.targets.filter((t) => t.revertedBy !== null);
  const parentHeld = input.targets.filter((t) => t.parentHeld);
  const unwired = input.targets.filter((t) => t.unwired !== null);
  const pending = input.targets.filter((t) => t.pending !== null);
  const violations = violationsOf(previous, input.targets, isOpen);
  const name = (t: { kind: string; namespace: string; name: string }): string => `${t.kind}/${t.namespace}/${t.name}`;
  const some = <T extends { kind: string; namespace: string; name: string }>(list: readonly T[], say: (t: T) => string): string =>
    `${list.slice(0, 3).map(say).join("; ")}${list.length > 3 ? `; and ${list.length - 3} more` : ""}`;
  // What is wrong, worst first: a change that went out while closed, a gate that holds nothing, a conflict.
  const problems: { reason: string; message: string }[] = [];
  if (violations.length > 0) {
    problems.push({
      reason: APPLIED_WHILE_CLOSED,
      message: `${violations.length} revision(s) applied while the window was closed: ${some(violations, (v) => `${name(v)} applied ${v.revision} at ${v.at} (${v.cause})`)}`,
    });
  }
  const astray = input.targets.filter((t) => t.notFollowing !== null);
  if (astray.length > 0) {
    problems.push({
      reason: TARGET_NOT_FOLLOWING,
      message: `${astray.length} target(s) do not follow the window: ${some(astray, (t) => `${name(t)}: ${t.notFollowing ?? ""}`)}`,
    });
  }
  if (unwired.length > 0) {
    problems.push({
      reason: SOURCE_NOT_GATED,
      message: `${unwired.length} target(s) bypass the gate, which holds nothing for them: ${some(unwired, (t) => `${name(t)}: ${t.unwired ?? ""}`)}`,
    });
  }
  if (conflicts.length > 0) {
    problems.push({
      reason: MODE_CONFLICT,
      message: `${conflicts.length} target(s) held closed: selected by windows of different modes (${conflicts.slice(0, 3).map(name).join(", ")})`,
    });
  }
  const missing = input.missing ?? [];
  if (missing.length > 0) {
    problems.push({
      reason: TARGET_NOT_FOUND,
      message: `${missing.length} target(s) named by the window do not exist: ${missing.slice(0, 3).join("; ")}${missing.length > 3 ? `; and ${missing.length - 3} more` : ""}`,
    });
  }
  const first = problems[0];
  const conditions: Condition[] = [
    first === undefined
      ? condition(READY, "True", RECONCILED, `${input.targets.length} target(s) follow the window`, now, input.generation, prevConditions)
      : condition(READY, "False", first.reason, problems.map((p) => p.message).join(". "), now, input.generation, prevConditions),
    condition(STALLED, "False", RECONCILED, "The spec is valid", now, input.generation, prevConditions),
  ];
  if (reverted.length > 0 || parentHeld.length > 0) {
    const said = [
      ...reverted.map((t) => `spec.suspend of ${name(t)} was set back by manager "${t.revertedBy ?? ""}": ${revertAdvice(t.revertedBy ?? "", null)}`),
      ...parentHeld.map(
        (t) =>
          `the parent Kustomization of ${name(t)} declares its spec.suspend in Git, so its reconcile of it is disabled while the window is closed: remove spec.suspend from the manifest in Git`,
      ),
    ];
    conditions.push(
      condition(
        SUSPEND_REVERTED_CONDITION,
        "True",
        SUSPEND_REVERTED_CONDITION,
        `${said.slice(0, 3).join("; ")}${said.length > 3 ? `; and ${said.length - 3} more` : ""}`,
        now,
        input.generation,
        prevConditions,
      ),
    );
  }
  const stateChanged = previous?.state !== state;
  // Moves only when Ready or Stalled (as the Flux controllers do): a window whose targets let a change
  // through, bypass the gate or conflict keeps the generation last reconciled while Ready.
  const observedGeneration = first === undefined ? input.generation : previous?.observedGeneration;
  return {
    ...(observedGeneration !== undefined ? { observedGeneration } : {}),
    state,
    reason: reasonOf(d, compiled.zone, next[0] !== undefined && next[0].at === d.until ? next[0].state : null),
    ...(d.since !== null ? { since: rfc3339(d.since) } : {}),
    ...(d.overridden && d.cause !== null ? { override: d.cause.label } : {}),
    // Omitted when the state has neither start nor end (always open): the API server refuses an empty object there in an apply.
    ...(d.since !== null || d.until !== null
      ? { currentInterval: { ...(d.since !== null ? { start: rfc3339(d.since) } : {}), ...(d.until !== null ? { end: rfc3339(d.until) } : {}) } }
      : {}),
    ...(nextOpen !== undefined ? { nextOpen: rfc3339(nextOpen.at) } : {}),
    ...(nextClose !== undefined ? { nextClose: rfc3339(nextClose.at) } : {}),
    ...(d.until !== null ? { nextTransition: rfc3339(d.until) } : {}),
    targets: {
      matched: input.targets.length,
      open: input.targets.filter((t) => !t.suspended).length,
      closed: input.targets.filter((t) => t.suspended).length,
      pending: pending.length,
      conflicts: conflicts.length,
    },
    pending: pending
      .slice()
      .sort((a, b) => `${a.namespace}/${a.name}`.localeCompare(`${b.namespace}/${b.name}`))
      .slice(0, MAX_PENDING_LISTED)
      .map((t) => {
        const current = t.pending as PendingRevision;
        const carried = carryPending(
          previous?.pending?.find((p) => p.kind === t.kind && p.namespace === t.namespace && p.name === t.name),
          current,
        );
        return {
          kind: t.kind,
          namespace: t.namespace,
          name: t.name,
          ...(current.appliedRevision !== undefined ? { appliedRevision: current.appliedRevision } : {}),
          pendingRevision: current.pendingRevision,
          revisions: current.revisions ?? carried.revisions,
          ...(carried.waitingSince !== undefined ? { waitingSince: carried.waitingSince } : {}),
        };
      }),
    ...(violations.length > 0 ? { violations } : {}),
    ...(input.gate !== undefined ? { gate: input.gate } : {}),
    lastTransitionTime: stateChanged || previous?.lastTransitionTime === undefined ? rfc3339(now) : previous.lastTransitionTime,
    conditions,
  };
}

/** The status of a window whose spec is invalid: Stalled, with the field-level message. */
export function invalidStatus(
  verdict: { reason: string; message: string },
  generation: number | undefined,
  previous: WindowStatus | undefined,
  now: number,
): WindowStatus {
  const prev = previous?.conditions ?? [];
  return {
    // Stalled observes the generation, as Flux's controllers do: kstatus (kustomize-controller's
    // `wait`, healthChecks) reads a generation not observed as InProgress and would wait for its
    // timeout instead of failing at once on a spec that can only be fixed by changing it.
    ...(generation !== undefined ? { observedGeneration: generation } : {}),
    reason: `Invalid spec, targets are left as they are: ${verdict.message}`,
    conditions: [
      condition(READY, "False", verdict.reason, verdict.message, now, generation, prev),
      condition(STALLED, "True", verdict.reason, verdict.message, now, generation, prev),
    ],
  };
}

/**
 * The status after a reconcile that failed (a write the API server refused, a request that could
 * not be sent): the last status with Ready=False naming what failed, so that no surface shows the
 * last good state as if it were still true. The generation stays the last one reconciled while Ready.
 */
export function failedStatus(
  verdict: { reason: string; message: string },
  generation: number | undefined,
  previous: WindowStatus | undefined,
  now: number,
): WindowStatus {
  const prev = previous?.conditions ?? [];
  return {
    ...previous,
    conditions: [
      condition(
        READY,
        "False",
        verdict.reason,
        `The last reconcile failed and is retried: ${verdict.message}`,
        now,
        generation ?? previous?.observedGeneration,
        prev,
      ),
      ...prev.filter((c) => c.type !== READY),
    ],
  };
}
