// The informer caches of windows, overrides, targets and sources, and the lookups the reconcilers make in them.

import type { KubernetesObject } from "../kube/types.ts";
import type { Informer } from "../kube/informer.ts";
import type { Caches } from "./context.ts";
import type { FluxObject } from "../kube/flux.ts";
import { windowsSelecting, type OverrideView, type WindowView } from "../policy/index.ts";
import { windowKey, type Views, type WindowEntry } from "../policy/views.ts";

export type AnyInformer = Informer<KubernetesObject>;

/** The first object named `name` in `namespace` among the informers' caches. */
function find<T extends KubernetesObject>(informers: readonly AnyInformer[], namespace: string, name: string): T | undefined {
  for (const i of informers) {
    const o = i.get(name, namespace);
    if (o !== undefined) return o as T;
  }
  return undefined;
}

/** Lookups over the informers; the informers themselves are started and stopped by the controller. */
export class InformerCaches implements Caches {
  /** The informer of the cluster's identity ConfigMap (policy/fleet.ts). */
  identity: AnyInformer[] = [];
  windows: AnyInformer[] = [];
  overrides: AnyInformer[] = [];
  readonly targets = new Map<string, AnyInformer[]>();
  readonly sources = new Map<string, AnyInformer[]>();
  private readonly views: Views;
  private readonly now: () => number;

  constructor(views: Views, now: () => number) {
    this.views = views;
    this.now = now;
  }

  /** Every informer the controller waits for before it leads, to start or stop them (the identity's starts and stops apart). */
  all(): AnyInformer[] {
    return [...this.windows, ...this.overrides, ...[...this.targets.values()].flat(), ...[...this.sources.values()].flat()];
  }

  windowObject(key: string): KubernetesObject | undefined {
    const [namespace, name] = key.split("/", 2) as [string, string];
    return find(this.windows, namespace, name);
  }

  overrideObject(key: string): KubernetesObject | undefined {
    const [namespace, name] = key.split("/", 2) as [string, string];
    return find(this.overrides, namespace, name);
  }

  targetObject(key: string): FluxObject | undefined {
    const [kind, namespace, name] = key.split("/", 3) as [string, string, string];
    return find<FluxObject>(this.targets.get(kind) ?? [], namespace, name);
  }

  sourceObject(key: string): FluxObject | undefined {
    const [kind, namespace, name] = key.split("/", 3) as [string, string, string];
    return find<FluxObject>(this.sources.get(kind) ?? [], namespace, name);
  }

  /** Every window object in the caches. */
  windowObjects(): KubernetesObject[] {
    return this.windows.flatMap((i) => i.list());
  }

  /** Every override object in the caches. */
  overrideObjects(): KubernetesObject[] {
    return this.overrides.flatMap((i) => i.list());
  }

  windowEntries(): WindowEntry[] {
    const now = this.now();
    return this.windowObjects().map((w) => this.views.window(w, now));
  }

  /** Moves each time the cluster's identity does: the windows' decisions are scoped by it. */
  identityVersion(): number {
    return this.views.identityVersion;
  }

  windowViews(): WindowView[] {
    return this.windowEntries().map((e) => e.view);
  }

  overrideViews(): OverrideView[] {
    const out: OverrideView[] = [];
    for (const o of this.overrideObjects()) {
      const view = this.views.override(o, this.now()).view;
      if (view !== null) out.push(view);
    }
    return out;
  }

  watchesKind(kind: string): boolean {
    return this.targets.has(kind);
  }

  allTargets(): FluxObject[] {
    return [...this.targets.values()].flatMap((informers) => informers.flatMap((i) => i.list()));
  }

  targetsOf(view: WindowView): FluxObject[] {
    const out: FluxObject[] = [];
    const kinds = new Set(view.targets.map((t) => t.kind));
    for (const kind of kinds) {
      for (const i of this.targets.get(kind) ?? []) {
        for (const t of i.list()) if (windowsSelecting(t, [view]).length > 0) out.push(t);
      }
    }
    return out;
  }

  /** Keys of the overrides that name a window. */
  overridesOfWindow(namespace: string, name: string): string[] {
    return this.overrideObjects()
      .filter((o) => o.metadata?.namespace === namespace && (o as { spec?: { windowRef?: { name?: unknown } } }).spec?.windowRef?.name === name)
      .map((o) => windowKey(namespace, o.metadata?.name ?? ""));
  }
}
