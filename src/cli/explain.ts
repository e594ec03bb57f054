// `fluxgate explain KIND/NAME`: for one Flux object, every window and override that selects it, the decision and the rule behind it, revisions, next change.

import type { KubernetesObject } from "../kube/types.ts";
import { appliedRevisionOf, isSuspended, keyOf, pendingOf, sourceKeyOf, suspendOwners, type FluxObject, type PendingRevision } from "../kube/flux.ts";
import { Views } from "../policy/views.ts";
import { OVERRIDES, resourceOf, WINDOWS, type Resource } from "../kube/resources.ts";
import type { RuleRef, Transition } from "../schedule/index.ts";
import { UsageError } from "./errors.ts";
import { painter } from "./format/color.ts";
import { renderExplained, type ExplainResult, type RuleResult } from "./format/explain.ts";
import { machine } from "./format/machine.ts";
import { rfc3339 } from "../schedule/format.ts";
import type { OverrideObject, WindowObject } from "./format/window.ts";
import { statusCodeOf } from "../kube/errors.ts";
import { kindNames } from "../api/kinds.ts";
import { CLUSTER_IDENTITY_NAME, CLUSTER_IDENTITY_NAMESPACE } from "../api/constants.ts";
import { connect, get, list, resourceOfKind, type Cluster, type ClusterFlags } from "./kube.ts";
import {
  decideTarget,
  decisionOfPlan,
  planTarget,
  observedTarget,
  recurrenceEntries,
  refusesTarget,
  revisionId,
  stateName,
  stateOf,
  targetTransitions,
  windowsSelecting,
  overridesOf,
  readClusterIdentity,
  CLUSTER_IDENTITY_REF,
  type ClusterIdentity,
  type OverrideView,
  type TargetDecision,
  type TargetObservation,
  type TargetPlan,
  type WindowView,
} from "../policy/index.ts";
import { kube, outputOf, type CommandIO, type CommandResult, type Values } from "./command.ts";

/** Runs `fluxgate explain KIND/NAME` (its spec: specs.ts). */
export function runExplain(v: Values, [object, name]: string[], io: CommandIO): Promise<CommandResult> {
  return explain({
    ...kube(v),
    object: object as string,
    name,
    output: outputOf(v.output, ["text", "json", "yaml"] as const, "text"),
    color: io.color,
    now: Date.now(),
  });
}

export interface ExplainOptions extends ClusterFlags {
  /** `KIND/NAME`, or `KIND` with `name`. */
  object: string;
  name?: string | undefined;
  output: "text" | "json" | "yaml";
  color: boolean;
  now: number;
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
  const recorded = (
    windowObjectOf(windows, window).status as { gate?: { upstreamRevision?: string; pendingRevisions?: number; pendingSince?: string } } | undefined
  )?.gate;
  return {
    appliedRevision: appliedRevisionOf(source),
    pendingRevision: offered,
    waitingSince: recorded?.pendingSince ?? upstreamObject?.status?.artifact?.lastUpdateTime,
    ...(recorded?.upstreamRevision === offered && recorded.pendingRevisions !== undefined ? { revisions: recorded.pendingRevisions } : {}),
  };
}

/**
 * The cluster's identity (ConfigMap flux-system/fluxgate-cluster), read only when a window has a
 * clusterSelector; when it cannot be read, unconfirmed (as the controller then acts), with a note.
 */
async function clusterIdentityOf(c: Cluster, windows: readonly WindowObject[], notes: string[]): Promise<ClusterIdentity> {
  if (!windows.some((w) => (w as { spec?: { clusterSelector?: unknown } }).spec?.clusterSelector !== undefined)) return readClusterIdentity(undefined);
  try {
    const configMap = await c.connection.core.readNamespacedConfigMap({ name: CLUSTER_IDENTITY_NAME, namespace: CLUSTER_IDENTITY_NAMESPACE });
    return readClusterIdentity(configMap);
  } catch (e) {
    const code = statusCodeOf(e) ?? statusCodeOf((e as Error).cause);
    if (code !== 404)
      notes.push(`the cluster's identity (${CLUSTER_IDENTITY_REF}) could not be read: fleet windows are shown as the controller runs them without it`);
    return readClusterIdentity(undefined);
  }
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
  if (resource === undefined) throw new UsageError(`${kind}: not a kind a window can govern; one of ${kindNames().join(", ")} (or ks, hr)`);
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
  /** What the controller wrote about the target on its windows. */
  observation: TargetObservation;
}

/**
 * The decision part of `explain`, from the target and the windows and overrides read (pure).
 *
 * @example explained(target, windows, overrides, Date.now()).decision.mayTakeChanges
 */
export function explained(
  target: FluxObject,
  windows: readonly WindowObject[],
  overrides: readonly OverrideObject[],
  now: number,
  identity: ClusterIdentity = readClusterIdentity(undefined),
): Explained {
  // Fleet windows and overrides (clusterSelector) are scoped by the cluster's identity, as the controller scopes them.
  const views = new Views({ identity });
  // What the controller wrote: a window it refuses for this target (--no-cross-namespace-refs) does not govern it.
  const observation = observedTarget({ kind: target.kind ?? "", namespace: target.metadata?.namespace ?? "", name: target.metadata?.name ?? "" }, windows);
  const selecting = windowsSelecting(
    target,
    windows.map((w) => views.window(w, now).view),
  ).filter((w) => !refusesTarget(observation, w));
  // An override names its window, or selects windows by label (a fleet freeze): policy's overridesOf says which, for both.
  const overrideObjects = overrides.filter((o) => {
    const view = views.override(o, now).view;
    if (view === null) return selecting.some((w) => w.namespace === o.metadata?.namespace && w.name === o.spec?.windowRef?.name);
    return selecting.some((w) => overridesOf(w, [view]).length > 0);
  });
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
    observation,
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
    throw new UsageError(
      `${resource.kind} "${name}" not found in namespace ${namespace}${c.namespaceGiven ? "" : " (the namespace of the current context; choose another with -n NAMESPACE)"}`,
    );
  }
  target.kind ??= resource.kind;
  const notes: string[] = [];
  const windows = await listWide<WindowObject>(c, WINDOWS, [namespace], notes);
  const identity = await clusterIdentityOf(c, windows, notes);
  // Overrides are read only where a window that selects the target lives.
  const first = explained(target, windows, [], now, identity);
  const selectingNamespaces = [...new Set([namespace, ...first.selecting.map((w) => w.namespace)])];
  const overrides = first.selecting.length === 0 ? [] : await listWide<OverrideObject>(c, OVERRIDES, selectingNamespaces, notes);
  const e = explained(target, windows, overrides, now, identity);
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
    .flatMap((w) =>
      (w.status?.violations ?? [])
        .filter((v) => v.kind === target.kind && v.namespace === namespace && v.name === name)
        .map((v) => ({ window: w.metadata?.name ?? "", revision: v.revision, at: v.at, cause: v.cause })),
    );
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
    recurrences: selecting.flatMap((w) => {
      const spec = views.window(windowObjectOf(windows, w), now).spec;
      if (w.compiled === null || spec === null) return [];
      return recurrenceEntries(spec, w.compiled, now).map((x) => ({
        namespace: w.namespace,
        window: w.name,
        kind: x.kind,
        path: x.path,
        rule: x.rule,
        words: x.words,
        label: x.label,
        active: x.active,
        next: x.next === null || x.local === null ? null : { start: rfc3339(x.next.start), end: rfc3339(x.next.end), local: x.local },
      }));
    }),
    violations,
    observed: {
      refusedBy: e.observation.refusedBy,
      problems: e.observation.problems.filter((p) => selecting.some((w) => w.namespace === p.namespace && w.name === p.name)),
    },
    notes,
  };
  if (options.output !== "text") return machine(result, options.output);
  return renderExplained(result, { now, selecting, windows, decision, nextTransition: e.next, nextOpen: e.nextOpen, alone, painter: painter(options.color) });
}

function windowObjectOf(windows: readonly WindowObject[], w: WindowView): WindowObject {
  return windows.find((o) => o.metadata?.namespace === w.namespace && o.metadata?.name === w.name) ?? {};
}
