// The controller: informers on windows, overrides, targets and sources feed one work queue; reconcilers enforce and report.

import type { KubeConfig, KubernetesObject } from "@kubernetes/client-node";
import { CustomObjectsApi } from "@kubernetes/client-node";
import type { WindowStatus } from "../api/index.ts";
import { KubeClient, statusCodeOf } from "../kube/client.ts";
import { Informer } from "../kube/informer.ts";
import { LeaderElector } from "../kube/lease.ts";
import { WorkQueue, type Outcome } from "../kube/queue.ts";
import { OVERRIDES, SOURCE_KINDS, TARGET_RESOURCES, WINDOWS, type Resource } from "../kube/resources.ts";
import { EventRecorder } from "./events.ts";
import { keyOf, objectKey, sourceKeyOf, type FluxObject } from "./flux.ts";
import type { Logger } from "./log.ts";
import type { Metrics } from "./metrics.ts";
import { reconcileReleasedSource } from "./gate.ts";
import { reconcileOverride } from "./override.ts";
import { windowsSelecting, type OverrideView, type WindowView } from "../policy/index.ts";
import { reconcileTarget, type TargetMemory } from "./target.ts";
import { Views, windowKey, type WindowEntry } from "./views.ts";
import { reconcileWindow } from "./window.ts";
import { RELEASED_FROM } from "../api/constants.ts";

/** The controller's clock; tests inject one that jumps. */
export interface Clock {
  now(): number;
}

export interface ControllerOptions {
  kubeConfig: KubeConfig;
  /** Namespaces to watch; empty for all. */
  namespaces: readonly string[];
  targetKinds: readonly string[];
  resyncPeriodMs: number;
  leaderElection?: { namespace: string; name: string; identity: string; leaseDurationMs?: number; renewDeadlineMs?: number; retryPeriodMs?: number } | undefined;
  eventsAddress?: string | undefined;
  log: Logger;
  metrics: Metrics;
  clock?: Clock;
  /** Keys reconciled at once. */
  concurrency?: number;
  /** Called when this replica loses the lease; the process should exit so it restarts clean. */
  onLostLeadership?: () => void;
  /** As Flux's flag: a window acts only on targets in its own namespace. Default false. */
  noCrossNamespaceRefs?: boolean;
}

type AnyInformer = Informer<KubernetesObject>;

/** How long a window waits after a change of one of its targets or sources before it updates its status. */
const STATUS_DEBOUNCE_MS = 1_000;

/**
 * How often the controller compares its clock with a monotonic one. Timers run on monotonic time, so
 * after the wall clock is stepped (NTP, a VM resumed, an injected clock) a timer set for the next
 * transition would fire early or, worse, late by the size of the jump; a jump re-plans everything instead.
 */
const CLOCK_CHECK_MS = 1_000;
/** A difference between the two clocks larger than this, within one check, is a jump (NTP slewing is ~0.5 ms/s). */
const CLOCK_JUMP_MS = 500;

/** Keys of the work queue: one per window, override and target. */
const W = "W|";
const O = "O|";
const T = "T|";
const S = "S|";

/**
 * Runs the reconcilers. Informers run on every replica so a new leader starts warm; only the
 * leader (or the only replica, without leader election) processes the queue and writes.
 */
export class Controller {
  readonly client: KubeClient;
  readonly log: Logger;
  readonly metrics: Metrics;
  readonly clock: Clock;
  readonly events: EventRecorder;
  readonly views: Views;
  readonly queue: WorkQueue;
  /** Targets each window selected at its last reconcile. */
  readonly selection = new Map<string, Set<string>>();
  /** Per target: what fluxgate last wrote and what it saw. */
  readonly memory = new Map<string, TargetMemory>();
  /** Per window: the state this process last wrote to its status (the informer's copy may lag). */
  readonly reportedStates = new Map<string, string | undefined>();
  /** Per window: the inputs of its last decision, to know when its targets must be re-planned. */
  readonly decisionInputs = new Map<string, string>();
  private readonly options: ControllerOptions;
  private windowInformers: AnyInformer[] = [];
  private overrideInformers: AnyInformer[] = [];
  private readonly targetInformers = new Map<string, AnyInformer[]>();
  private readonly sourceInformers = new Map<string, AnyInformer[]>();
  /** Gated sources of deleted windows, deleted once no Kustomization uses them. */
  private readonly releasedSources = new Set<string>();
  /** Source key → target keys that take their artifact from it. */
  private readonly sourceIndex = new Map<string, Set<string>>();
  private elector: LeaderElector | null = null;
  private resyncTimer: NodeJS.Timeout | undefined;
  private clockTimer: NodeJS.Timeout | undefined;
  private synced = false;
  private running = false;

  constructor(options: ControllerOptions) {
    this.options = options;
    this.views = new Views({ noCrossNamespaceRefs: options.noCrossNamespaceRefs ?? false });
    this.log = options.log;
    this.metrics = options.metrics;
    this.clock = options.clock ?? { now: () => Date.now() };
    this.client = new KubeClient(options.kubeConfig, (verb, resource, code) =>
      this.metrics.apiRequests.inc({ verb, resource, code: code === undefined ? "error" : String(code) }),
    );
    this.events = new EventRecorder(this.client, this.log, {
      eventsAddress: options.eventsAddress,
      now: () => this.clock.now(),
      onError: (operation) => this.metrics.errors.inc({ operation }),
    });
    this.queue = new WorkQueue({ concurrency: options.concurrency ?? 16 });
  }

  /** True once every informer has listed. */
  get ready(): boolean {
    return this.synced;
  }

  get isLeader(): boolean {
    return this.elector === null ? this.running : this.elector.isLeader;
  }

  /** Starts the informers, waits for their first list, then leads (or campaigns to). */
  async start(): Promise<void> {
    const namespaces = this.options.namespaces.length === 0 ? [undefined] : [...this.options.namespaces];
    const informersFor = (resource: Resource, handler: (obj: KubernetesObject, kind: "add" | "update" | "delete") => void): AnyInformer[] =>
      namespaces.map(
        (namespace) =>
          new Informer<KubernetesObject>(this.options.kubeConfig, resource, handler, {
            namespace,
            // A watch is counted when it starts, before any answer: code "started".
            onRequest: (verb, code) => this.metrics.apiRequests.inc({ verb, resource: resource.plural, code: verb === "watch" ? "started" : code === undefined ? "error" : String(code) }),
            onError: (err) => {
              this.metrics.errors.inc({ operation: "watch" });
              // A CRD that was just created answers 429 for a moment ("storage is (re)initializing"): retried, not news.
              const fields = { resource: resource.plural, namespace: namespace ?? "", err };
              if (statusCodeOf(err) === 429) this.log.debug("Failed to watch", fields);
              else this.log.error("Failed to watch", fields);
            },
          }),
      );
    this.windowInformers = informersFor(WINDOWS, (obj, kind) => this.onWindow(obj, kind));
    this.overrideInformers = informersFor(OVERRIDES, (obj, kind) => this.onOverride(obj, kind));
    for (const kind of this.options.targetKinds) {
      const resource = TARGET_RESOURCES[kind];
      if (resource === undefined) throw new Error(`unknown target kind ${kind}`);
      if (!(await this.served(resource))) {
        this.log.info("Skipped target kind: its CRD is not installed", { kind });
        continue;
      }
      this.targetInformers.set(kind, informersFor(resource, (obj, change) => this.onTarget(obj, change)));
    }
    for (const kind of SOURCE_KINDS) {
      const resource = TARGET_RESOURCES[kind] as Resource;
      if (!(await this.served(resource))) continue;
      this.sourceInformers.set(kind, informersFor(resource, (obj, change) => this.onSource(obj, change)));
    }
    const all = [...this.windowInformers, ...this.overrideInformers, ...[...this.targetInformers.values()].flat(), ...[...this.sourceInformers.values()].flat()];
    await Promise.all(all.map((i) => i.start()));
    this.synced = true;
    this.log.info("Synced informers", { informers: all.length, namespaces: this.options.namespaces.length === 0 ? "all" : this.options.namespaces.join(",") });
    const election = this.options.leaderElection;
    if (election === undefined) {
      this.lead();
      return;
    }
    this.elector = new LeaderElector(this.options.kubeConfig, {
      ...election,
      onStartedLeading: () => {
        this.log.info("Started leading", { lease: `${election.namespace}/${election.name}`, identity: election.identity });
        this.lead();
      },
      onStoppedLeading: () => {
        this.log.error("Lost the leader lease; stopping", { lease: `${election.namespace}/${election.name}` });
        this.metrics.leader.set(0);
        this.queue.stop();
        this.running = false;
        this.options.onLostLeadership?.();
      },
      onError: (err) => {
        this.metrics.errors.inc({ operation: "leader-election" });
        this.log.error("Failed to renew or acquire the lease", { err });
      },
    });
    this.elector.start();
  }

  async stop(): Promise<void> {
    clearInterval(this.resyncTimer);
    clearInterval(this.clockTimer);
    this.queue.stop();
    this.running = false;
    await this.elector?.stop();
    const all = [...this.windowInformers, ...this.overrideInformers, ...[...this.targetInformers.values()].flat(), ...[...this.sourceInformers.values()].flat()];
    await Promise.all(all.map((i) => i.stop()));
    this.client.close();
  }

  /** Re-plans everything now: every window, override and target. Used by the periodic resync and after clock jumps. */
  resync(): void {
    for (const w of this.windowInformers.flatMap((i) => i.list())) this.queue.add(W + windowKey(w.metadata?.namespace ?? "", w.metadata?.name ?? ""));
    for (const o of this.overrideInformers.flatMap((i) => i.list())) this.queue.add(O + windowKey(o.metadata?.namespace ?? "", o.metadata?.name ?? ""));
    for (const informers of this.targetInformers.values()) for (const t of informers.flatMap((i) => i.list())) this.queue.add(T + keyOf(t));
  }

  /** Resolves when the queue has nothing to do right now (tests). */
  async settled(): Promise<void> {
    await this.queue.idle();
  }

  private lead(): void {
    this.running = true;
    this.metrics.leader.set(1);
    this.queue.start((key) => this.process(key));
    this.resync();
    this.resyncTimer = setInterval(() => this.resync(), this.options.resyncPeriodMs);
    this.resyncTimer.unref();
    this.watchClock();
  }

  /** Re-plans everything when the clock jumps, instead of waiting for timers set on the old time. */
  private watchClock(): void {
    let wall = this.clock.now();
    let mono = performance.now();
    this.clockTimer = setInterval(() => {
      const [w, m] = [this.clock.now(), performance.now()];
      const jump = w - wall - (m - mono);
      [wall, mono] = [w, m];
      if (Math.abs(jump) <= CLOCK_JUMP_MS) return;
      this.metrics.clockJumps.inc();
      this.log.info("Detected a clock jump; re-planning every window and target", { jumpMs: Math.round(jump), now: new Date(w).toISOString() });
      this.resync();
    }, CLOCK_CHECK_MS);
    this.clockTimer.unref();
  }

  private async served(resource: Resource): Promise<boolean> {
    const api = this.options.kubeConfig.makeApiClient(CustomObjectsApi);
    const namespace = this.options.namespaces[0];
    try {
      const { group, version, plural } = resource;
      if (namespace === undefined) await api.listClusterCustomObject({ group, version, plural, limit: 1 });
      else await api.listNamespacedCustomObject({ group, version, plural, namespace, limit: 1 });
      return true;
    } catch (e) {
      if (statusCodeOf(e) === 404) return false;
      throw e;
    }
  }

  // ---- lookups used by the reconcilers ----

  windowObject(key: string): KubernetesObject | undefined {
    const [namespace, name] = key.split("/", 2) as [string, string];
    for (const i of this.windowInformers) {
      const o = i.get(name, namespace);
      if (o !== undefined) return o;
    }
    return undefined;
  }

  overrideObject(key: string): KubernetesObject | undefined {
    const [namespace, name] = key.split("/", 2) as [string, string];
    for (const i of this.overrideInformers) {
      const o = i.get(name, namespace);
      if (o !== undefined) return o;
    }
    return undefined;
  }

  targetObject(key: string): FluxObject | undefined {
    const [kind, namespace, name] = key.split("/", 3) as [string, string, string];
    for (const i of this.targetInformers.get(kind) ?? []) {
      const o = i.get(name, namespace);
      if (o !== undefined) return o;
    }
    return undefined;
  }

  sourceObject(key: string): FluxObject | undefined {
    const [kind, namespace, name] = key.split("/", 3) as [string, string, string];
    for (const i of this.sourceInformers.get(kind) ?? []) {
      const o = i.get(name, namespace);
      if (o !== undefined) return o;
    }
    return undefined;
  }

  /** Every window, validated (cached by generation). */
  windowEntries(): WindowEntry[] {
    const now = this.clock.now();
    return this.windowInformers.flatMap((i) => i.list()).map((w) => this.views.window(w, now));
  }

  windowViews(): WindowView[] {
    return this.windowEntries().map((e) => e.view);
  }

  /** Every valid override. */
  overrideViews(): OverrideView[] {
    const out: OverrideView[] = [];
    for (const o of this.overrideInformers.flatMap((i) => i.list())) {
      const view = this.views.override(o, this.clock.now()).view;
      if (view !== null) out.push(view);
    }
    return out;
  }

  /** Every target in the informer caches. */
  allTargets(): FluxObject[] {
    return [...this.targetInformers.values()].flatMap((informers) => informers.flatMap((i) => i.list()));
  }

  /** Targets a window selects now, from the informer caches. */
  targetsOf(view: WindowView): FluxObject[] {
    const out: FluxObject[] = [];
    const kinds = new Set(view.targets.map((t) => t.kind));
    for (const kind of kinds) {
      for (const i of this.targetInformers.get(kind) ?? []) {
        for (const t of i.list()) if (windowsSelecting(t, [view]).length > 0) out.push(t);
      }
    }
    return out;
  }

  /** Windows whose status mentions the target: those selecting it now and those that did at their last reconcile. */
  windowsOfTarget(target: KubernetesObject): string[] {
    const key = keyOf(target);
    const out = new Set(windowsSelecting(target, this.windowViews()).map((w) => w.key));
    for (const [w, set] of this.selection) if (set.has(key)) out.add(w);
    return [...out];
  }

  enqueueWindow(key: string, afterMs = 0): void {
    this.queue.addAfter(W + key, afterMs);
  }

  enqueueTarget(key: string, afterMs = 0): void {
    this.queue.addAfter(T + key, afterMs);
  }

  enqueueOverride(key: string, afterMs = 0): void {
    this.queue.addAfter(O + key, afterMs);
  }

  memoryOf(key: string): TargetMemory {
    let m = this.memory.get(key);
    if (m === undefined) {
      m = { lastWrite: null, reverts: 0, revertedBy: null, revertedAt: undefined, revertedWrite: null, appliedRevision: undefined, parentDeclaresSuspend: false, violation: null, fresh: true };
      this.memory.set(key, m);
    }
    return m;
  }

  previousStatus(obj: KubernetesObject): WindowStatus | undefined {
    return (obj as { status?: WindowStatus }).status;
  }

  // ---- informer events ----

  private onWindow(obj: KubernetesObject, kind: "add" | "update" | "delete"): void {
    const key = windowKey(obj.metadata?.namespace ?? "", obj.metadata?.name ?? "");
    // An override reports whether its window exists: it waits (WindowNotFound) until the window is created.
    if (kind !== "update") for (const o of this.overridesOfWindow(obj.metadata?.namespace ?? "", obj.metadata?.name ?? "")) this.enqueueOverride(o);
    if (kind === "delete") {
      this.views.forgetWindow(key);
      this.metrics.forgetWindow(obj.metadata?.namespace ?? "", obj.metadata?.name ?? "");
      for (const t of this.selection.get(key) ?? []) this.enqueueTarget(t);
      this.selection.delete(key);
      this.decisionInputs.delete(key);
      this.reportedStates.delete(key);
      return;
    }
    this.enqueueWindow(key);
  }

  /** Keys of the overrides that name a window. */
  private overridesOfWindow(namespace: string, name: string): string[] {
    return this.overrideInformers
      .flatMap((i) => i.list())
      .filter((o) => o.metadata?.namespace === namespace && (o as { spec?: { windowRef?: { name?: unknown } } }).spec?.windowRef?.name === name)
      .map((o) => windowKey(namespace, o.metadata?.name ?? ""));
  }

  private onOverride(obj: KubernetesObject, kind: "add" | "update" | "delete"): void {
    const key = windowKey(obj.metadata?.namespace ?? "", obj.metadata?.name ?? "");
    if (kind === "delete") {
      const entry = this.views.override(obj, this.clock.now());
      this.views.forgetOverride(key);
      if (entry.windowName !== undefined) this.enqueueWindow(windowKey(obj.metadata?.namespace ?? "", entry.windowName));
      return;
    }
    this.enqueueOverride(key);
  }

  private onTarget(obj: KubernetesObject, kind: "add" | "update" | "delete"): void {
    const key = keyOf(obj);
    const source = sourceKeyOf(obj);
    for (const [s, set] of this.sourceIndex) if (s !== source) set.delete(key);
    if (kind === "delete") {
      this.memory.delete(key);
    } else if (source !== null) {
      let set = this.sourceIndex.get(source);
      if (set === undefined) this.sourceIndex.set(source, (set = new Set()));
      set.add(key);
    }
    if (kind !== "delete") this.enqueueTarget(key);
    // A Kustomization that stopped using a released gated source may have been its last user.
    for (const s of this.releasedSources) this.queue.add(S + s);
    // A window's status summarises its targets: a burst of target changes (a transition) folds into one update.
    for (const w of this.windowsOfTarget(obj)) this.enqueueWindow(w, STATUS_DEBOUNCE_MS);
  }

  private onSource(obj: KubernetesObject, kind: "add" | "update" | "delete"): void {
    const namespace = obj.metadata?.namespace ?? "";
    const name = obj.metadata?.name ?? "";
    const sourceKey = objectKey(obj.kind ?? "", namespace, name);
    if (kind !== "delete" && obj.metadata?.labels?.[RELEASED_FROM] !== undefined) {
      this.releasedSources.add(sourceKey);
      this.queue.add(S + sourceKey);
    } else {
      this.releasedSources.delete(sourceKey);
    }
    const windows = new Set<string>();
    // Gate windows follow their upstream and own their gated source.
    for (const e of this.windowEntries()) {
      const gate = e.spec?.gate;
      if (gate !== undefined && e.view.namespace === namespace && gate.upstream.kind === obj.kind && (gate.upstream.name === name || gate.gatedName === name)) windows.add(e.view.key);
    }
    const targets = this.sourceIndex.get(objectKey(obj.kind ?? "", namespace, name)) ?? new Set<string>();
    for (const t of targets) {
      const target = this.targetObject(t);
      if (target !== undefined) for (const w of this.windowsOfTarget(target)) windows.add(w);
    }
    for (const w of windows) this.enqueueWindow(w, STATUS_DEBOUNCE_MS);
  }

  // ---- the reconcile loop ----

  private async process(key: string): Promise<Outcome> {
    const kind = key.slice(0, 2);
    const rest = key.slice(2);
    const label = kind === W ? "ReconciliationWindow" : kind === O ? "WindowOverride" : kind === S ? "Source" : "Target";
    this.metrics.reconciles.inc({ kind: label });
    try {
      if (kind === W) return await reconcileWindow(this, rest);
      if (kind === O) return await reconcileOverride(this, rest);
      if (kind === S) {
        await reconcileReleasedSource(this, rest, this.allTargets());
        return { kind: "done" };
      }
      return await reconcileTarget(this, rest);
    } catch (error) {
      this.metrics.errors.inc({ operation: `reconcile-${label}` });
      this.log.error(`Failed to reconcile ${label}`, { key: rest, err: error });
      return { kind: "retry", error };
    }
  }
}
