// The controller: informers on windows, overrides, targets and sources feed one work queue; reconcilers enforce and report.

import { KubeClient } from "../kube/client.ts";
import { statusCodeOf } from "../kube/errors.ts";
import type { KubeConfig, KubernetesObject } from "../kube/types.ts";
import { Informer } from "../kube/informer.ts";
import { LeaderElector } from "../kube/lease.ts";
import { WorkQueue, type Outcome } from "../kube/queue.ts";
import { CONFIGMAPS, OVERRIDES, SOURCE_KINDS, TARGET_RESOURCES, WINDOWS, type Resource } from "../kube/resources.ts";
import { InformerCaches, type AnyInformer } from "./caches.ts";
import { STATUS_DEBOUNCE_MS, type Clock, type ReconcileContext } from "./context.ts";
import { EventRecorder } from "./events.ts";
import { keyOf, sourceKeyOf, trimTarget } from "../kube/flux.ts";
import { objectKey } from "../policy/select.ts";
import { reconcileReleasedSource } from "./gate.ts";
import type { Logger } from "../kube/log.ts";
import type { Metrics } from "./metrics.ts";
import { reconcileOverride } from "./override.ts";
import { windowsSelecting } from "../policy/index.ts";
import { DONE, isFailure, outcomeOf } from "./result.ts";
import { ControllerState } from "./state.ts";
import { targetPicture } from "./picture.ts";
import { planFor, reconcileTarget } from "./target.ts";
import { Views, windowKey } from "../policy/views.ts";
import { reconcileWindow } from "./window.ts";
import { CLUSTER_IDENTITY_NAME, CLUSTER_IDENTITY_NAMESPACE, RELEASED_FROM } from "../api/constants.ts";
import { canonicalJson } from "../api/canonical.ts";
import { windowRefName } from "../api/override.ts";
import { readClusterIdentity } from "../policy/cluster-identity.ts";

/** How long the first sync waits for the identity ConfigMap's list (it may be forbidden: then fleet windows stay unconfirmed). */
const IDENTITY_WAIT_MS = 10_000;
import { fluxKindOf } from "../api/kinds.ts";

/** How long a window's event and status may wait behind its targets' writes (a story waiting for a window's status allows for it). */
export { EVENT_WAIT_MAX_MS } from "./events.ts";

export type { Clock } from "./context.ts";

export interface ControllerOptions {
  kubeConfig: KubeConfig;
  /** Namespaces to watch; empty for all. */
  namespaces: readonly string[];
  targetKinds: readonly string[];
  resyncPeriodMs: number;
  leaderElection?:
    { namespace: string; name: string; identity: string; leaseDurationMs?: number; renewDeadlineMs?: number; retryPeriodMs?: number } | undefined;
  eventsAddress?: string | undefined;
  /** With eventsAddress: forward a Heartbeat of every governed target this often (ms). */
  heartbeatMs?: number | undefined;
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
  private readonly options: ControllerOptions;
  private readonly client: KubeClient;
  private readonly log: Logger;
  /** The metrics given in the options (read by probes and tests). */
  readonly metrics: Metrics;
  private readonly clock: Clock;
  private readonly views: Views;
  private readonly queue: WorkQueue;
  private readonly caches: InformerCaches;
  /** What the controller remembers between reconciles: owned by ControllerState, changed only through it. */
  private readonly state = new ControllerState();
  /** What the reconcilers are given. */
  private readonly context: ReconcileContext;
  private elector: LeaderElector | null = null;
  private resyncTimer: NodeJS.Timeout | undefined;
  private clockTimer: NodeJS.Timeout | undefined;
  private heartbeatTimer: NodeJS.Timeout | undefined;
  private synced = false;
  /** Whether the identity ConfigMap has been read (or found missing) once. */
  private identityKnown = false;
  // By override key: the window each override named when last seen (null: a fleet freeze, selecting windows of its namespace), so that moving or deleting
  // it plans again the windows it held.
  private readonly overrideWindows = new Map<string, string | null>();
  private running = false;

  constructor(options: ControllerOptions) {
    this.options = options;
    this.views = new Views({ noCrossNamespaceRefs: options.noCrossNamespaceRefs ?? false });
    this.log = options.log;
    this.metrics = options.metrics;
    this.clock = options.clock ?? { now: () => Date.now() };
    // The work queue retries failed writes with its own backoff and counts each failure, so the connection retries only what the API server throttled.
    this.client = new KubeClient(
      options.kubeConfig,
      (verb, resource, code) => this.metrics.apiRequests.inc({ verb, resource, code: code === undefined ? "error" : String(code) }),
      { retryServerErrors: false, onRequest: (r) => r.retried && this.metrics.apiRetries.inc({ code: String(r.code) }) },
    );
    const events = new EventRecorder(this.client, this.log, {
      eventsAddress: options.eventsAddress,
      now: () => this.clock.now(),
      onError: (operation) => this.metrics.errors.inc({ operation }),
      // Events wait for the targets' writes in the queue: at a transition they follow the writes instead of competing with them.
      after: () => this.queue.firstLaneIdle(),
      busy: () => this.queue.firstLaneBusy(),
    });
    // Targets first: at a transition their writes are what the user waits for; the windows' status and events follow them.
    this.queue = new WorkQueue({ concurrency: options.concurrency ?? 16, first: (key) => key.startsWith(T) });
    this.caches = new InformerCaches(this.views, () => this.clock.now());
    this.context = {
      client: this.client,
      log: this.log,
      metrics: this.metrics,
      clock: this.clock,
      events,
      views: this.views,
      cache: this.caches,
      state: this.state,
      enqueue: {
        window: (key, afterMs = 0) => this.queue.addAfter(W + key, afterMs),
        override: (key, afterMs = 0) => this.queue.addAfter(O + key, afterMs),
        target: (key, afterMs = 0) => this.queue.addAfter(T + key, afterMs),
        windowWaitedOut: (key) => this.queue.waitedOut(W + key),
      },
    };
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
    const informersFor = (
      resource: Resource,
      handler: (obj: KubernetesObject, kind: "add" | "update" | "delete") => void,
      transform?: (obj: KubernetesObject) => KubernetesObject,
      optional = false,
    ): AnyInformer[] =>
      namespaces.map(
        (namespace) =>
          new Informer<KubernetesObject>(this.options.kubeConfig, resource, handler, {
            namespace,
            transform,
            optional,
            // A watch is counted when it starts, before any answer: code "started".
            onRequest: (verb, code) =>
              this.metrics.apiRequests.inc({
                verb,
                resource: resource.plural,
                code: verb === "watch" ? "started" : code === undefined ? "error" : String(code),
              }),
            onReconnect: () => this.onReconnect(resource),
            onError: (err) => {
              this.metrics.errors.inc({ operation: "watch" });
              // A CRD that was just created answers 429 for a moment ("storage is (re)initializing"): retried, not news.
              const fields = { resource: resource.plural, namespace: namespace ?? "", err };
              if (statusCodeOf(err) === 429) this.log.debug("Failed to watch", fields);
              else this.log.error("Failed to watch", fields);
            },
          }),
      );
    // The cluster's identity, one ConfigMap in flux-system: the cache keeps the data of that one only.
    const identity = new Informer<KubernetesObject>(this.options.kubeConfig, CONFIGMAPS, (obj, kind) => this.onIdentity(obj, kind), {
      namespace: CLUSTER_IDENTITY_NAMESPACE,
      transform: (obj) => (obj.metadata?.name === CLUSTER_IDENTITY_NAME ? obj : { metadata: { name: obj.metadata?.name, namespace: obj.metadata?.namespace } }),
      onError: (err) => {
        this.metrics.errors.inc({ operation: "watch" });
        this.log.error("Failed to watch", { resource: CONFIGMAPS.plural, namespace: CLUSTER_IDENTITY_NAMESPACE, err });
      },
      // Listed (maybe after failures: RBAC, or flux-system created later) without the ConfigMap: it is missing, said once.
      // A watch starts once a list is in the cache: without the ConfigMap, the identity is missing.
      onRequest: (verb) => {
        if (verb === "watch" && identity.get(CLUSTER_IDENTITY_NAME, CLUSTER_IDENTITY_NAMESPACE) === undefined)
          this.identityChanged(readClusterIdentity(undefined), true);
      },
    });
    this.caches.identity = [identity];
    // Waited for a while only: a controller that may not read it (its Role missing) still governs every window of its own; until it
    // is read, fleet windows and overrides are unconfirmed, which fails safe.
    let waited: NodeJS.Timeout | undefined;
    const identityRead = Promise.race([identity.start(), new Promise<void>((resolve) => (waited = setTimeout(resolve, IDENTITY_WAIT_MS)))]).finally(() =>
      clearTimeout(waited),
    );
    this.caches.windows = informersFor(WINDOWS, (obj, kind) => this.onWindow(obj, kind));
    this.caches.overrides = informersFor(OVERRIDES, (obj, kind) => this.onOverride(obj, kind));
    const targets = this.options.targetKinds.map((kind) => {
      const resource = TARGET_RESOURCES[kind];
      if (resource === undefined) throw new Error(`unknown target kind ${kind}`);
      return { kind, resource };
    });
    const sources = SOURCE_KINDS.map((kind) => ({ kind, resource: TARGET_RESOURCES[kind] as Resource }));
    // Every informer starts at once; the first list of each kind is also the question whether the
    // cluster serves it (404: its CRD is not installed), so a cold start asks nothing before its lists.
    for (const { kind, resource } of targets) {
      // Thousands of targets: the cache keeps of each only what the reconcilers read (trimTarget).
      this.caches.targets.set(
        kind,
        informersFor(resource, (obj, change) => this.onTarget(obj, change), trimTarget, true),
      );
    }
    for (const { kind, resource } of sources) {
      this.caches.sources.set(
        kind,
        informersFor(resource, (obj, change) => this.onSource(obj, change), undefined, true),
      );
    }
    const all = this.caches.all();
    const starting = new Map(all.map((i) => [i, i.start()] as const));
    // Once the windows, the overrides and the identity that scopes them are in (the targets' pages are still coming), their
    // views are made (validated, schedules compiled): the first pass, and /readyz behind its first key, find them made.
    // What fails here fails again in the pass, which reports it.
    void Promise.all([identityRead, ...[...this.caches.windows, ...this.caches.overrides].map((i) => starting.get(i))])
      .then(() => {
        if (this.synced) return;
        this.caches.windowViews();
        this.caches.overrideViews();
      })
      .catch(() => undefined);
    const [started] = await Promise.all([Promise.all(all.map(async (i) => [i, await (starting.get(i) as Promise<boolean>)] as const)), identityRead]);
    const served = new Map(started);
    if (!identity.hasSynced)
      this.identityChanged({
        confirmed: false,
        problem: `ConfigMaps in ${CLUSTER_IDENTITY_NAMESPACE} could not be listed yet (does the Role fluxgate-cluster-identity exist there? see docs/install.md)`,
      });
    const unserved = (informers: readonly AnyInformer[]): boolean => informers.some((i) => served.get(i) === false);
    for (const { kind, resource } of targets) {
      if (!unserved(this.caches.targets.get(kind) ?? [])) continue;
      await Promise.all((this.caches.targets.get(kind) ?? []).map((i) => i.stop()));
      this.caches.targets.delete(kind);
      const older = await this.servedOlderVersion(kind, resource);
      if (older === undefined) this.log.info("Skipped target kind: its CRD is not installed", { kind });
      else
        this.log.error("Skipped target kind: the cluster serves only an older version of it; upgrade its Flux controller", {
          kind,
          served: older,
          wanted: resource.version,
        });
    }
    for (const { kind } of sources) {
      if (!unserved(this.caches.sources.get(kind) ?? [])) continue;
      await Promise.all((this.caches.sources.get(kind) ?? []).map((i) => i.stop()));
      this.caches.sources.delete(kind);
    }
    this.synced = true;
    this.log.info("Synced informers", {
      informers: this.caches.all().length,
      namespaces: this.options.namespaces.length === 0 ? "all" : this.options.namespaces.join(","),
    });
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
        this.context.events.stop();
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
    clearInterval(this.heartbeatTimer);
    this.queue.stop();
    this.context.events.stop();
    this.running = false;
    await this.elector?.stop();
    const all = [...this.caches.all(), ...this.caches.identity];
    await Promise.all(all.map((i) => i.stop()));
    this.client.close();
  }

  /** Re-plans everything now: every window, override and target. Used by the periodic resync and after clock jumps. */
  resync(): void {
    for (const w of this.caches.windowObjects()) this.queue.add(W + windowKey(w.metadata?.namespace ?? "", w.metadata?.name ?? ""));
    for (const o of this.caches.overrideObjects()) this.queue.add(O + windowKey(o.metadata?.namespace ?? "", o.metadata?.name ?? ""));
    for (const t of this.caches.allTargets()) this.queue.add(T + keyOf(t));
  }

  /** Forwards a Heartbeat, with its picture, of every target a window governs. */
  heartbeat(): void {
    const now = this.clock.now();
    const [windows, overrides] = [this.caches.windowViews(), this.caches.overrideViews()];
    for (const target of this.caches.allTargets()) {
      const plan = planFor(target, windows, overrides, now);
      if (plan.action !== "release") this.context.events.heartbeat(target, targetPicture(this.context, target, plan));
    }
  }

  /** Resolves when the queue has nothing to do right now and every Kubernetes Event made is recorded, both at once (tests, benchmarks). */
  async settled(): Promise<void> {
    do {
      await this.queue.idle();
      await this.context.events.drained();
    } while (this.queue.length > 0);
  }

  private lead(): void {
    this.running = true;
    this.context.events.start();
    this.metrics.leader.set(1);
    this.queue.start((key) => this.process(key));
    this.resync();
    this.resyncTimer = setInterval(() => this.resync(), this.options.resyncPeriodMs);
    this.resyncTimer.unref();
    this.watchClock();
    if (this.options.heartbeatMs !== undefined && this.options.eventsAddress !== undefined) {
      this.heartbeatTimer = setInterval(() => this.heartbeat(), this.options.heartbeatMs);
      this.heartbeatTimer.unref();
    }
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
    return this.client.served(resource, this.options.namespaces[0]);
  }

  /** The first older version of a kind the cluster serves (image-automation-controller before v1.0 serves only v1beta2). */
  private async servedOlderVersion(kind: string, resource: Resource): Promise<string | undefined> {
    for (const version of fluxKindOf(kind)?.olderVersions ?? []) {
      if (await this.served({ ...resource, version })) return version;
    }
    return undefined;
  }

  /** Windows whose status mentions the target: those selecting it now and those that did at their last reconcile. */
  private windowsOfTarget(target: KubernetesObject): string[] {
    const out = new Set(windowsSelecting(target, this.caches.windowViews()).map((w) => w.key));
    for (const w of this.state.windowsThatSelected(keyOf(target))) out.add(w);
    return [...out];
  }

  /**
   * A watch opened again after errors: the API server is back. Work that failed meanwhile is retried
   * now rather than at the end of the backoff the outage built up (a transition due during the outage
   * lands within a second of the server's return, not tens of seconds later).
   */
  private onReconnect(resource: Resource): void {
    const retried = this.running ? this.queue.retryFailedNow() : 0;
    this.log.info("Reconnected to the API server", { resource: resource.plural, retried });
  }

  // ---- informer events ----

  private onWindow(obj: KubernetesObject, kind: "add" | "update" | "delete"): void {
    const namespace = obj.metadata?.namespace ?? "";
    const name = obj.metadata?.name ?? "";
    const key = windowKey(namespace, name);
    // An override reports whether its window exists (a fleet freeze, whether it selects one): it waits (WindowNotFound) until the window is created.
    if (kind !== "update") for (const o of this.caches.overridesOfWindow(namespace, name)) this.context.enqueue.override(o);
    if (kind === "delete") {
      this.views.forgetWindow(key);
      this.metrics.forgetWindow(namespace, name);
      for (const t of this.state.forgetWindow(key)) this.context.enqueue.target(t);
      return;
    }
    this.context.enqueue.window(key);
  }

  private onIdentity(obj: KubernetesObject, kind: "add" | "update" | "delete"): void {
    if (obj.metadata?.name !== CLUSTER_IDENTITY_NAME) return;
    this.identityChanged(readClusterIdentity(kind === "delete" ? undefined : obj), kind === "delete");
  }

  /** A new identity: every window and override is scoped again (policy/fleet.ts), and re-plans the targets it governed. */
  private identityChanged(identity: ReturnType<typeof readClusterIdentity>, missing = false): void {
    const before = this.views.clusterIdentity;
    if (this.identityKnown && canonicalJson(before) === canonicalJson(identity)) return;
    this.identityKnown = true;
    this.views.setIdentity(identity);
    if (identity.confirmed) this.log.info("Read the cluster's identity", { cluster: identity.cluster, labels: canonicalJson(identity.labels) });
    // A cluster outside a fleet has no identity object: normal, said once; fleet windows, if any, say it in their status.
    else if (missing)
      this.log.info("The cluster has no identity object: fleet windows open by none of their schedules, fleet freezes hold", { problem: identity.problem });
    else
      this.log.error("Cannot confirm the cluster's identity: fleet windows open by none of their schedules, fleet freezes hold", { problem: identity.problem });
    for (const w of this.caches.windowObjects()) this.context.enqueue.window(windowKey(w.metadata?.namespace ?? "", w.metadata?.name ?? ""));
    for (const o of this.caches.overrideObjects()) this.context.enqueue.override(windowKey(o.metadata?.namespace ?? "", o.metadata?.name ?? ""));
  }

  private onOverride(obj: KubernetesObject, kind: "add" | "update" | "delete"): void {
    const namespace = obj.metadata?.namespace ?? "";
    const key = windowKey(namespace, obj.metadata?.name ?? "");
    const before = this.overrideWindows.get(key);
    const named = windowRefName(obj) ?? null;
    // Moved to other windows, or deleted: the windows it held before are planned again; its reconcile tells the new ones.
    if (before !== undefined && before !== named) this.enqueueWindowsOf(before, namespace);
    if (kind === "delete") {
      this.overrideWindows.delete(key);
      this.views.forgetOverride(key);
      this.enqueueWindowsOf(named, namespace);
      return;
    }
    this.overrideWindows.set(key, named);
    this.context.enqueue.override(key);
  }

  /** The windows an override names (`window`) or may select (null: a fleet freeze, and any window of its namespace may be one it holds, as override.ts finds them). */
  private enqueueWindowsOf(window: string | null, namespace: string): void {
    if (window !== null) this.context.enqueue.window(windowKey(namespace, window));
    else for (const w of this.caches.windowEntries()) if (w.view.namespace === namespace) this.context.enqueue.window(w.view.key);
  }

  private onTarget(obj: KubernetesObject, kind: "add" | "update" | "delete"): void {
    const key = keyOf(obj);
    this.state.indexTarget(key, sourceKeyOf(obj), kind === "delete");
    // fluxgate's own write coming back: the reconcile that wrote it planned the next one.
    if (kind !== "delete" && !this.state.isOwnWrite(key, obj.metadata?.resourceVersion)) this.context.enqueue.target(key);
    // A Kustomization that stopped using a released gated source may have been its last user.
    for (const s of this.state.releasedSourceKeys()) this.queue.add(S + s);
    // Before the first sync every window is queued anyway when the controller leads (resync): finding the windows of each
    // listed target (1,000 targets × every window, ~70 ms of a cold start) would only queue them again, a second later.
    if (!this.synced) return;
    // A window's status summarises its targets: a burst of target changes (a transition) folds into one update.
    for (const w of this.windowsOfTarget(obj)) this.context.enqueue.window(w, STATUS_DEBOUNCE_MS);
  }

  private onSource(obj: KubernetesObject, kind: "add" | "update" | "delete"): void {
    const namespace = obj.metadata?.namespace ?? "";
    const name = obj.metadata?.name ?? "";
    const sourceKey = objectKey(obj.kind ?? "", namespace, name);
    const released = kind !== "delete" && obj.metadata?.labels?.[RELEASED_FROM] !== undefined;
    this.state.markReleased(sourceKey, released);
    if (released) this.queue.add(S + sourceKey);
    const windows = new Set<string>();
    // Gate windows follow their upstream and own their gated source.
    for (const e of this.caches.windowEntries()) {
      const gate = e.spec?.gate;
      if (gate !== undefined && e.view.namespace === namespace && gate.upstream.kind === obj.kind && (gate.upstream.name === name || gate.gatedName === name))
        windows.add(e.view.key);
    }
    for (const t of this.state.targetsOfSource(sourceKey)) {
      const target = this.caches.targetObject(t);
      if (target !== undefined) for (const w of this.windowsOfTarget(target)) windows.add(w);
    }
    for (const w of windows) this.context.enqueue.window(w, STATUS_DEBOUNCE_MS);
  }

  // ---- the reconcile loop ----

  /** One key of the queue, reconciled; a typed error decides the requeue (stalled: done; waiting: later; else: backoff). */
  private async process(key: string): Promise<Outcome> {
    const kind = key.slice(0, 2);
    const rest = key.slice(2);
    const label = kind === W ? "ReconciliationWindow" : kind === O ? "WindowOverride" : kind === S ? "Source" : "Target";
    this.metrics.reconciles.inc({ kind: label });
    try {
      if (kind === W) return await reconcileWindow(this.context, rest);
      if (kind === O) return await reconcileOverride(this.context, rest);
      if (kind === S) {
        await reconcileReleasedSource(this.context, rest, this.caches.allTargets());
        return DONE;
      }
      return await reconcileTarget(this.context, rest);
    } catch (error) {
      if (isFailure(error)) {
        this.metrics.errors.inc({ operation: `reconcile-${label}` });
        this.log.error(`Failed to reconcile ${label}`, { key: rest, err: error });
      } else {
        this.log.debug(`Waiting to reconcile ${label}`, { key: rest, err: error });
      }
      return outcomeOf(error);
    }
  }
}
