// The informer caches of windows, overrides, targets and sources, and the lookups the reconcilers make in them.

import type { KubernetesObject } from "../kube/types.ts";
import { windowRefName } from "../api/override.ts";
import type { Informer } from "../kube/informer.ts";
import type { Caches } from "./context.ts";
import type { FluxObject } from "../kube/flux.ts";
import { identityOf, selects, type OverrideView, type WindowView } from "../policy/index.ts";
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
  /** The windows' entries and views as last made, and the informers' changes and identity they were made at. */
  private made: { stamp: string; entries: readonly WindowEntry[]; views: readonly WindowView[] } | undefined;

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

  /**
   * The windows' entries, made again only when a window informer's cache or the cluster's identity
   * changed: asked for at every target's reconcile. Frozen, with the views' array: windowsSelecting
   * indexes a frozen array once (policy/decision.ts).
   */
  windowEntries(): readonly WindowEntry[] {
    return this.windowsMade().entries;
  }

  /** Moves each time the cluster's identity does: the windows' decisions are scoped by it. */
  identityVersion(): number {
    return this.views.identityVersion;
  }

  windowViews(): readonly WindowView[] {
    return this.windowsMade().views;
  }

  /** The windows' entries and views as last made, made again when the informers' changes or the identity moved. */
  private windowsMade(): { entries: readonly WindowEntry[]; views: readonly WindowView[] } {
    const stamp = `${this.views.identityVersion}/${this.windows.map((i) => i.changeCount).join("/")}`;
    if (this.made?.stamp !== stamp) {
      const now = this.now();
      const entries = Object.freeze(this.windowObjects().map((w) => this.views.window(w, now)));
      this.made = { stamp, entries, views: Object.freeze(entries.map((e) => e.view)) };
    }
    return this.made;
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
    if (view.deleting) return out;
    // Only the namespaces its entries name: a window selects in its own namespace, or in the one an entry gives.
    const places = new Map<string, Set<string>>();
    for (const t of view.targets) {
      const namespace = t.namespace ?? view.namespace;
      // Flux objects are namespaced: an entry naming namespace "" selects nothing (and list("") would list every namespace).
      if (namespace === "") continue;
      const namespaces = places.get(t.kind) ?? new Set<string>();
      namespaces.add(namespace);
      places.set(t.kind, namespaces);
    }
    for (const [kind, namespaces] of places) {
      for (const i of this.targets.get(kind) ?? []) {
        for (const namespace of namespaces) for (const t of i.list(namespace)) if (selects(view.namespace, view.targets, identityOf(t))) out.push(t);
      }
    }
    return out;
  }

  /** Keys of the overrides of a window's namespace that name it, or name none (a fleet freeze, which may select it). */
  overridesOfWindow(namespace: string, name: string): string[] {
    return this.overrideObjects()
      .filter((o) => o.metadata?.namespace === namespace && (windowRefName(o) ?? name) === name)
      .map((o) => windowKey(namespace, o.metadata?.name ?? ""));
  }
}
