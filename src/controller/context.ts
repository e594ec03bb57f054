// What a reconciler is given: the cluster client, logs, metrics, events, the clock, the informer caches, the queue and the controller's memory — and nothing of
// the Controller itself.

import type { KubernetesObject } from "../kube/types.ts";
import type { KubeClient } from "../kube/client.ts";
import type { EventRecorder } from "./events.ts";
import type { FluxObject } from "../kube/flux.ts";
import type { Logger } from "../kube/log.ts";
import type { Metrics } from "./metrics.ts";
import type { OverrideView, WindowView } from "../policy/index.ts";
import type { ControllerState } from "./state.ts";
import type { Views, WindowEntry } from "../policy/views.ts";

/** How long a window waits after a change of one of its targets or sources before it updates its status: a burst folds into one write. */
export const STATUS_DEBOUNCE_MS = 1_000;

/** The controller's clock; tests inject one that jumps. */
export interface Clock {
  now(): number;
}

/** Read-only lookups in the informer caches. */
export interface Caches {
  windowObject(key: string): KubernetesObject | undefined;
  overrideObject(key: string): KubernetesObject | undefined;
  targetObject(key: string): FluxObject | undefined;
  sourceObject(key: string): FluxObject | undefined;
  /** Every window, validated (cached by generation). */
  windowEntries(): readonly WindowEntry[];
  windowViews(): readonly WindowView[];
  /** Moves each time the cluster's identity does: the windows' decisions are scoped by it. */
  identityVersion(): number;
  /** Every valid override. */
  overrideViews(): OverrideView[];
  /** Every target in the caches. */
  allTargets(): FluxObject[];
  /** Targets a window selects now. */
  targetsOf(view: WindowView): FluxObject[];
  /** Whether the controller watches a target kind (its CRD is served and --target-kinds names it). */
  watchesKind(kind: string): boolean;
}

/** Asks for another reconcile of an object, now or after a delay. */
export interface Enqueue {
  window(key: string, afterMs?: number): void;
  override(key: string, afterMs?: number): void;
  target(key: string, afterMs?: number): void;
  /** True while the window runs because it waited for the targets' writes (afterTargets) as long as it asked to, and they are still under way (WorkQueue.waitedOut). */
  windowWaitedOut(key: string): boolean;
}

export interface ReconcileContext {
  readonly client: KubeClient;
  readonly log: Logger;
  readonly metrics: Metrics;
  readonly clock: Clock;
  readonly events: EventRecorder;
  readonly views: Views;
  readonly cache: Caches;
  readonly enqueue: Enqueue;
  readonly state: ControllerState;
}
