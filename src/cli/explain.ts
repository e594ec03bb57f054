// `fluxgate explain KIND/NAME`: for one Flux object, every window and override that selects it, the decision and the rule behind it, revisions, next change.

import type { KubernetesObject } from "../kube/types.ts";
import { appliedRevisionOf, isSuspended, keyOf, pendingOf, sourceKeyOf, suspendOwners, type FluxObject, type PendingRevision } from "../kube/flux.ts";
import { Views } from "../policy/views.ts";
import { OVERRIDES, resourceOf, WINDOWS, type Resource } from "../kube/resources.ts";
import type { CompiledWindow, RuleRef, Transition } from "../schedule/index.ts";
import { UsageError } from "./errors.ts";
import { painter, stateStyle, type Paint } from "./format/color.ts";
import { machine } from "./format/machine.ts";
import { indent, table } from "./format/table.ts";
import { rfc3339 } from "../schedule/format.ts";
import { at, span, when } from "./format/when.ts";
import { instant, zoneOf, type OverrideObject, type WindowObject } from "./format/window.ts";
import { statusCodeOf } from "../kube/errors.ts";
import { connect, get, knownKinds, list, resourceOfKind, type Cluster, type ClusterFlags } from "./kube.ts";
import {
  decideTarget,
  decidingWindow,
  decisionOfPlan,
  planTarget,
  reasonOf,
  revisionId,
  stateName,
  stateOf,
  targetTransitions,
  windowsSelecting,
  type OverrideView,
  type TargetDecision,
  type TargetPlan,
  type WindowView,
} from "../policy/index.ts";

export interface ExplainOptions extends ClusterFlags {
  /** `KIND/NAME`, or `KIND` with `name`. */
  object: string;
  name?: string | undefined;
  output: "text" | "json" | "yaml";
  color: boolean;
  now: number;
}

/** A rule as `explain -o json` shows it. */
export interface RuleResult {
  window: string;
  kind: RuleRef["kind"];
  label: string;
  reason: string | null;
}

/** What `explain -o json|yaml` prints: a stable contract (docs/cli.md). */
export interface ExplainResult {
  target: { kind: string; namespace: string; name: string };
  decision: {
    /** enforce: spec.suspend follows the state; gate: the revision does; hold: left as it is; release: no window selects it. */
    effect: "enforce" | "gate" | "hold" | "release";
    state: "Open" | "Closed" | "Frozen" | null;
    mayTakeChanges: boolean | null;
    overridden: boolean;
    rule: RuleResult | null;
    since: string | null;
    until: string | null;
    message: string;
  };
  next: { at: string; state: "Open" | "Closed" | "Frozen"; rule: RuleResult | null } | null;
  suspend: { value: boolean; managers: string[] };
  /** `revisions`: distinct source revisions arrived while it waited, as the controller counted them (a lower bound of the commits). */
  revisions: { applied: string | null; pending: string | null; revisions: number | null; waitingSince: string | null; source: string | null };
  windows: Array<{ namespace: string; name: string; mode: string; valid: boolean; state: "Open" | "Closed" | "Frozen" | "Overridden" | null; message: string }>;
  overrides: Array<{ namespace: string; name: string; window: string; action: string; until: string | null; reason: string; phase: string | null }>;
  /** Revisions it applied while its windows were closed, as the windows' controller observed them (kept until the window opens). */
  violations: Array<{ window: string; revision: string; at: string; cause: string }>;
  /** What could not be read, in sentences (RBAC); the answer above may then be incomplete. */
  notes: string[];
}

/**
 * Gate mode: what waits is the upstream revision the gated source is not pinned to (not what the
 * gated source offers, which is the pin). Undefined when the target is not held by a gate.
 */
async function gatePending(
  c: Cluster,
  plan: TargetPlan,
  selecting: readonly WindowView[],
  windows: readonly WindowObject[],
  views: Views,
  now: number,
  source: FluxObject | undefined,
  notes: string[],
): Promise<PendingRevision | null | undefined> {
  if (plan.action !== "gate" || source === undefined) return undefined;
  const window = selecting.find((w) => w.gatedSource === keyOf(source));
  if (window === undefined) return undefined;
  const upstream = views.window(windowObjectOf(windows, window), now).spec?.gate?.upstream;
  const resource = upstream === undefined ? undefined : resourceOf(upstream.kind);
  if (upstream === undefined || resource === undefined) return undefined;
  let upstreamObject: FluxObject | undefined;
  try {
    upstreamObject = await get<FluxObject>(c, resource, window.namespace, upstream.name);
  } catch (e) {
    notes.push(`the upstream ${upstream.kind}/${window.namespace}/${upstream.name} could not be read: ${(e as Error).message.split("\n")[0] ?? ""}`);
    return undefined;
  }
  const offered = upstreamObject?.status?.artifact?.revision;
  const ref = source.spec?.ref as { commit?: string; digest?: string } | undefined;
  const pin = upstream.kind === "OCIRepository" ? ref?.digest : ref?.commit;
  if (offered === undefined || pin === undefined || revisionId(upstream.kind, offered) === pin) return null;
  const recorded = (windowObjectOf(windows, window).status as { gate?: { upstreamRevision?: string; pendingRevisions?: number; pendingSince?: string } } | undefined)?.gate;
  return {
    appliedRevision: appliedRevisionOf(source),
    pendingRevision: offered,
    waitingSince: recorded?.pendingSince ?? upstreamObject?.status?.artifact?.lastUpdateTime,
    ...(recorded?.upstreamRevision === offered && recorded.pendingRevisions !== undefined ? { revisions: recorded.pendingRevisions } : {}),
  };
}

/** Splits `kustomization/apps-rw` (or `ks apps-rw`) into a resource and a name. */
export function parseObject(object: string, name: string | undefined): { resource: Resource; name: string } {
  let kind = object;
  let objectName = name;
  if (object.includes("/")) {
    if (name !== undefined) throw new UsageError(`give KIND/NAME or KIND NAME, not both: "${object} ${name}"`);
    [kind, objectName] = object.split("/", 2) as [string, string];
  }
  if (objectName === undefined || objectName === "") throw new UsageError(`${object}: give the object as KIND/NAME, e.g. kustomization/apps-rw`);
  const resource = resourceOfKind(kind);
  if (resource === undefined) throw new UsageError(`${kind}: not a kind a window can govern; one of ${knownKinds().join(", ")} (or ks, hr)`);
  return { resource, name: objectName };
}

/** Lists across all namespaces, or, when RBAC allows only some, in those namespaces (with a note). */
async function listWide<T extends KubernetesObject>(c: Cluster, resource: Resource, namespaces: readonly string[], notes: string[]): Promise<T[]> {
  try {
    return await list<T>(c, resource, undefined);
  } catch (e) {
    if (statusCodeOf((e as Error).cause) !== 403) throw e;
    notes.push(`${resource.plural} in other namespaces than ${namespaces.join(", ")} could not be read (RBAC): windows there that select it are not shown`);
    return (await Promise.all(namespaces.map((ns) => list<T>(c, resource, ns)))).flat();
  }
}

function ruleOf(cause: RuleRef | null): RuleResult | null {
  return cause === null ? null : { window: cause.window, kind: cause.kind, label: cause.label, reason: cause.reason ?? null };
}

/** The `decision` of `explain -o json|yaml`. */
export function decisionResult(decision: TargetDecision): ExplainResult["decision"] {
  return {
    effect: decision.effect,
    state: decision.state === null ? null : stateName(decision.state),
    mayTakeChanges: decision.mayTakeChanges,
    overridden: decision.overridden,
    rule: ruleOf(decision.cause),
    since: decision.since === null ? null : rfc3339(decision.since),
    until: decision.until === null ? null : rfc3339(decision.until),
    message: decision.message,
  };
}

/** What decides a target, from the windows and overrides read (pure): the part of `explain` every surface must agree with. */
export interface Explained {
  views: Views;
  selecting: WindowView[];
  /** The overrides of the windows that select it, as read. */
  overrideObjects: OverrideObject[];
  overrideViews: OverrideView[];
  plan: TargetPlan;
  decision: TargetDecision;
  /** The next change, and the next opening when it is not open (within 16 changes). */
  next: Transition | undefined;
  nextOpen: Transition | undefined;
  /** Each selecting window's decision on its own. */
  alone: TargetDecision[];
}

/**
 * The decision part of `explain`, from the target and the windows and overrides read (pure).
 *
 * @example explained(target, windows, overrides, Date.now()).decision.mayTakeChanges
 */
export function explained(target: FluxObject, windows: readonly WindowObject[], overrides: readonly OverrideObject[], now: number): Explained {
  const views = new Views();
  const selecting = windowsSelecting(
    target,
    windows.map((w) => views.window(w, now).view),
  );
  const overrideObjects = overrides.filter((o) => selecting.some((w) => w.namespace === o.metadata?.namespace && w.name === o.spec?.windowRef?.name));
  const overrideViews = overrideObjects.map((o) => views.override(o, now).view).filter((v): v is OverrideView => v !== null);
  const plan = planTarget(selecting, overrideViews, now);
  const decision = decisionOfPlan(plan);
  const upcoming = targetTransitions(selecting, overrideViews, now, 16);
  return {
    views,
    selecting,
    overrideObjects,
    overrideViews,
    plan,
    decision,
    next: upcoming[0],
    nextOpen: decision.state !== null && decision.state !== "open" ? upcoming.find((t) => t.state === "open") : undefined,
    alone: selecting.map((w) => decideTarget([w], overrideViews, now)),
  };
}

/**
 * Explains what decides one Flux object now, from every window and override that selects it.
 *
 * @example await explain({ object: "kustomization/apps-rw", namespace: "flux-system", output: "text", color: false, now: Date.now() })
 */
export async function explain(options: ExplainOptions): Promise<string> {
  const { resource, name } = parseObject(options.object, options.name);
  const c = connect(options);
  const now = options.now;
  const namespace = c.namespace;
  const target = await get<FluxObject>(c, resource, namespace, name);
  if (target === undefined) {
    throw new UsageError(`${resource.kind} "${name}" not found in namespace ${namespace}${c.namespaceGiven ? "" : " (the namespace of the current context; choose another with -n NAMESPACE)"}`);
  }
  target.kind ??= resource.kind;
  const notes: string[] = [];
  const windows = await listWide<WindowObject>(c, WINDOWS, [namespace], notes);
  // Overrides are read only where a window that selects the target lives.
  const first = explained(target, windows, [], now);
  const selectingNamespaces = [...new Set([namespace, ...first.selecting.map((w) => w.namespace)])];
  const overrides = first.selecting.length === 0 ? [] : await listWide<OverrideObject>(c, OVERRIDES, selectingNamespaces, notes);
  const e = explained(target, windows, overrides, now);
  const { views, selecting, overrideObjects, plan, decision, alone } = e;

  const sourceKey = sourceKeyOf(target);
  let source: FluxObject | undefined;
  if (sourceKey !== null) {
    const [kind, ns, sourceName] = sourceKey.split("/", 3) as [string, string, string];
    const sourceResource = resourceOf(kind);
    if (sourceResource !== undefined) {
      try {
        source = await get<FluxObject>(c, sourceResource, ns, sourceName);
        if (source === undefined) notes.push(`its source ${kind}/${ns}/${sourceName} does not exist`);
      } catch (e) {
        notes.push(`its source ${kind}/${ns}/${sourceName} could not be read: ${(e as Error).message.split("\n")[0] ?? ""}`);
      }
    }
  }
  const gate = await gatePending(c, plan, selecting, windows, views, now, source, notes);
  const pending = gate !== undefined ? gate : pendingOf(target, source);
  // The controller remembers, in the window's status, since when and through how many revisions the target has waited.
  const recorded = windows
    .filter((w) => selecting.some((v) => v.namespace === w.metadata?.namespace && v.name === w.metadata?.name))
    .flatMap((w) => w.status?.pending ?? [])
    .find((p) => p.kind === target.kind && p.namespace === namespace && p.name === name && p.pendingRevision === pending?.pendingRevision);
  const applied = appliedRevisionOf(target) ?? null;

  const violations = windows
    .filter((w) => selecting.some((v) => v.namespace === w.metadata?.namespace && v.name === w.metadata?.name))
    .flatMap((w) => (w.status?.violations ?? []).filter((v) => v.kind === target.kind && v.namespace === namespace && v.name === name).map((v) => ({ window: w.metadata?.name ?? "", revision: v.revision, at: v.at, cause: v.cause })));
  const result: ExplainResult = {
    target: { kind: target.kind, namespace, name },
    decision: decisionResult(decision),
    next: e.next === undefined ? null : { at: rfc3339(e.next.at), state: stateName(e.next.state), rule: ruleOf(e.next.cause) },
    suspend: { value: isSuspended(target), managers: suspendOwners(target).map((o) => o.manager) },
    revisions: {
      applied,
      pending: pending?.pendingRevision ?? null,
      revisions: pending === null ? null : (pending.revisions ?? recorded?.revisions ?? 1),
      waitingSince: recorded?.waitingSince ?? pending?.waitingSince ?? null,
      source: sourceKey,
    },
    windows: selecting.map((w, i) => {
      const d = alone[i];
      return {
        namespace: w.namespace,
        name: w.name,
        mode: w.mode,
        valid: w.compiled !== null,
        state: d === undefined || d.state === null ? null : stateOf({ state: d.state, overridden: d.overridden }),
        message: d === undefined || w.compiled === null ? `invalid spec: ${views.window(windowObjectOf(windows, w), now).error?.message ?? ""}` : d.message,
      };
    }),
    overrides: overrideObjects.map((o) => ({
      namespace: o.metadata?.namespace ?? "",
      name: o.metadata?.name ?? "",
      window: o.spec?.windowRef?.name ?? "",
      action: o.spec?.action ?? "",
      until: o.spec?.until === undefined ? null : rfc3339(Date.parse(o.spec.until)),
      reason: o.spec?.reason ?? "",
      phase: o.status?.phase ?? null,
    })),
    violations,
    notes,
  };
  if (options.output !== "text") return machine(result, options.output);
  return render(result, { now, selecting, windows, decision, nextTransition: e.next, nextOpen: e.nextOpen, alone, painter: painter(options.color) });
}

function windowObjectOf(windows: readonly WindowObject[], w: WindowView): WindowObject {
  return windows.find((o) => o.metadata?.namespace === w.namespace && o.metadata?.name === w.name) ?? {};
}

interface RenderContext {
  now: number;
  selecting: readonly WindowView[];
  windows: readonly WindowObject[];
  decision: TargetDecision;
  nextTransition: Transition | undefined;
  nextOpen: Transition | undefined;
  /** Each selecting window's decision on its own, in the order of `windows` of the result. */
  alone: readonly TargetDecision[];
  painter: Paint;
}

function zoneNamed(windowName: string | undefined, ctx: RenderContext): ReturnType<typeof zoneOf> {
  const w = ctx.windows.find((o) => o.metadata?.name === windowName) ?? ctx.windows.find((o) => ctx.selecting.some((s) => s.name === o.metadata?.name));
  return w === undefined ? zoneOf({}) : zoneOf(w);
}

function render(r: ExplainResult, ctx: RenderContext): string {
  const p = ctx.painter;
  const { now, decision } = ctx;
  const lines: string[] = [];
  const label = (name: string, text: string): void => {
    const [first, ...rest] = text.split("\n");
    lines.push(`${name.padEnd(11)} ${first ?? ""}`, ...rest.map((l) => `${" ".repeat(12)}${l}`));
  };
  lines.push(`${r.target.kind} ${r.target.namespace}/${r.target.name}`, "");

  const conflict = r.decision.message.startsWith("Held closed: ");
  if (conflict) {
    label("Decision", `${p("red", "Held closed")}: takes no changes until one mode governs it\n${r.decision.message.replace(/^Held closed: /, "")}`);
  } else if (decision.state === null) {
    const detail = r.decision.message.replace(/^Held as it is: /, "");
    label(
      "Decision",
      r.decision.effect === "release"
        ? `${p("green", "Not governed")}: takes changes as Flux applies them\n${detail}`
        : `${p("red", "Held")}: fluxgate leaves it as it is, suspended or not\n${detail.charAt(0).toUpperCase()}${detail.slice(1)}`,
    );
  } else {
    const shown = r.decision.state ?? "Closed";
    const zone = zoneNamed(decision.cause?.window, ctx);
    const takes = decision.state === "open" ? "takes changes" : "takes no changes";
    const until = decision.until === null ? "" : ` until ${at(decision.until, now, zone)}`;
    // The rule without its end (the first line has it), and the window it belongs to.
    const rule = (d: TargetDecision, compiled: CompiledWindow | null): string => (compiled === null || d.state === null ? "" : reasonOf({ state: d.state, cause: d.cause, until: null }, compiled.zone, null));
    const names = ctx.selecting.map((w) => w.name).join(", ");
    const why = decision.cause === null ? `No schedule of window ${names} is active.` : `${rule(decision, decidingWindow(decision.cause, ctx.selecting))}, of window ${decision.cause.window}.`;
    const beaten = ctx.selecting.flatMap((w, i) => {
      const d = ctx.alone[i];
      return d === undefined || d.state === null || w.name === decision.cause?.window || d.state === decision.state ? [] : [`This beats window ${w.name} (alone: ${rule(d, w.compiled)}).`];
    });
    const details = [why, ...beaten];
    label("Decision", `${p(stateStyle(shown), shown)}: ${takes}${until}\n${details.join("\n")}`);
  }
  if (conflict) {
    label("Next", "no change until the conflict is resolved: make every window that selects it the same mode");
  } else if (ctx.nextTransition !== undefined) {
    const t = ctx.nextTransition;
    const zone = zoneNamed(t.cause?.window ?? decision.cause?.window, ctx);
    const verb = t.state === "open" ? "opens" : t.state === "frozen" ? "freezes" : "closes";
    const compiled = decidingWindow(t.cause, ctx.selecting);
    const why =
      t.cause === null || compiled === null
        ? "no schedule is active then"
        : `${reasonOf({ state: t.state, cause: t.cause, until: null }, compiled.zone, null)}, of window ${t.cause.window}`;
    label("Next", `${verb} ${at(t.at, now, zone)}: ${why}`);
  } else if (decision.state !== null) {
    label("Next", "no change within a year");
  }
  if (r.decision.effect === "enforce") {
    const wanted = r.decision.mayTakeChanges === false;
    const owners = r.suspend.managers.length === 0 ? "not set by anyone" : `set by ${r.suspend.managers.join(", ")}`;
    const agrees = r.suspend.value === wanted;
    label("Suspend", `spec.suspend is ${String(r.suspend.value)} (${owners})${agrees ? ", as decided" : p("yellow", ` — the decision wants ${String(wanted)}: the controller has not acted yet, or another manager set it back`)}`);
  } else if (r.decision.effect === "gate") {
    // What the controller reports of the gated source, when it does (status.gate of a Gate-mode window).
    const pins = ctx.windows
      .filter((w) => ctx.selecting.some((v) => v.namespace === w.metadata?.namespace && v.name === w.metadata?.name))
      .map((w) => (w.status as { gate?: { upstream?: string; gatedSource?: string; upstreamRevision?: string; pinnedRevision?: string } } | undefined)?.gate)
      .filter((g) => g !== undefined)
      .map((g) => `${g.gatedSource ?? "the gated source"} pinned at ${g.pinnedRevision ?? "nothing yet"}; upstream ${g.upstream ?? ""} at ${g.upstreamRevision ?? "?"}`);
    label("Gate", ["Gate mode: Flux keeps reconciling and healing; only the revision of the gated source is held", ...pins].join("\n"));
  } else {
    label("Suspend", `spec.suspend is ${String(r.suspend.value)}${r.suspend.managers.length > 0 ? ` (set by ${r.suspend.managers.join(", ")})` : ""}`);
  }
  label("Applied", r.revisions.applied ?? "nothing yet");
  if (r.revisions.pending !== null) {
    const since = instant(r.revisions.waitingSince ?? undefined);
    const waited = since === undefined ? "" : `, waiting ${span(Math.max(0, now - since))}`;
    const goes = conflict
      ? "held until the conflict of modes is resolved"
      : r.decision.mayTakeChanges === true
        ? "goes out now: it may take changes"
        : ctx.nextOpen !== undefined
          ? `goes out when it opens: ${at(ctx.nextOpen.at, now, zoneNamed(ctx.nextOpen.cause?.window, ctx))}`
          : "no opening within a year";
    const count = (r.revisions.revisions ?? 1) > 1 ? ` (${r.revisions.revisions} revisions since the applied one)` : "";
    label("Pending", `${r.revisions.pending}${count}${waited}\n${goes}`);
  } else {
    label("Pending", r.revisions.source === null ? "unknown: it names no source" : "nothing: it has applied what its source offers");
  }

  for (const v of r.violations) {
    label("Violation", p("red", `applied ${v.revision} at ${v.at} while window ${v.window} was closed: ${v.cause}`));
  }

  lines.push("");
  if (r.windows.length === 0) {
    lines.push("No window selects it.");
  } else {
    lines.push(`Windows that select it (${r.windows.length}):`);
    lines.push(
      indent(
        table(
          ["WINDOW", "MODE", "ALONE, IT WOULD BE"],
          r.windows.map((w) => [`${w.namespace}/${w.name}`, w.mode, w.valid ? w.message : p("red", w.message)]),
        ),
      ),
    );
  }
  if (r.windows.length > 0) {
    lines.push("");
    if (r.overrides.length === 0) {
      lines.push("Overrides of these windows: none.");
    } else {
      lines.push(`Overrides of these windows (${r.overrides.length}):`);
      lines.push(
        indent(
          table(
            ["OVERRIDE", "WINDOW", "ACTION", "UNTIL", "PHASE", "REASON"],
            r.overrides.map((o) => {
              const until = instant(o.until ?? undefined);
              return [o.name, o.window, o.action, until === undefined ? "-" : `${when(until, now, zoneNamed(o.window, ctx))}`, o.phase ?? "-", o.reason];
            }),
          ),
        ),
      );
    }
  }
  if (r.notes.length > 0) lines.push("", ...r.notes.map((n) => `${p("yellow", "Note")}: ${n}.`));
  return `${lines.join("\n")}\n`;
}

