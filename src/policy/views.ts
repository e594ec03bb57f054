// Validated views of windows and overrides, cached by object generation so each spec is compiled once.

import { InputError } from "../errors.ts";
import { CANCELLED_AT, CANCELLED_BY, OVERRIDE_REQUESTED_AT } from "../api/constants.ts";
import { WindowOverrideSchema, windowRefName, type WindowOverride } from "../api/override.ts";
import { parseWith, validateWindow } from "../api/validate.ts";
import { closeGracePeriodOf, modeOf, onRevertOf, type ReconciliationWindowSpec } from "../api/window.ts";
import type { ClusterContext } from "../schedule/index.ts";
import type { OverrideView, WindowView } from "./decision.ts";
import { overrideTiming } from "./override.ts";
import { fleetScope, overrideActsHere, scopeWindowParts, type ClusterIdentity } from "./fleet.ts";
import { canonicalJson } from "../api/canonical.ts";
import { objectKey, rawTargets } from "./select.ts";
import { splitTargets, type RefusedTarget } from "./tenancy.ts";

/** The parts of a stored window or override (a Kubernetes object) a view reads. */
export interface StoredObject {
  metadata?:
    | {
        namespace?: string | undefined;
        name?: string | undefined;
        uid?: string | undefined;
        generation?: number | undefined;
        deletionTimestamp?: Date | string | undefined;
        creationTimestamp?: Date | string | undefined;
        annotations?: Readonly<Record<string, string>> | undefined;
        labels?: Readonly<Record<string, string>> | undefined;
      }
    | undefined;
}

export interface WindowEntry {
  /** Its targets are only the entries it may act on (see `refused`). */
  view: WindowView;
  /** Target entries it may not act on: other namespaces, with --no-cross-namespace-refs. */
  refused: RefusedTarget[];
  /** The validated spec, when valid. */
  spec: ReconciliationWindowSpec | null;
  /** The validation problem, when the spec is invalid. */
  error: InputError | null;
}

export interface OverrideEntry {
  /** Null when the override is invalid. Its `end` is the effective one: `until`, or the cancellation when earlier. */
  view: OverrideView | null;
  error: string | null;
  windowName: string | undefined;
  /** `spec.until` (epoch ms), when valid. */
  until: number | undefined;
  /** When and by whom `fluxgate overrides cancel` ended it, when it did (the annotations). */
  cancelled: { at: number; by: string } | null;
  /** A fleet override that does not act on this cluster (policy/fleet.ts): why; then `view` is null though the spec is valid. */
  notSelected: string | null;
}

export function windowKey(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

/** The cluster's name and labels as a confirmed identity states them (a holiday freeze may take its country from them); none while unconfirmed. */
function contextOf(identity: ClusterIdentity): ClusterContext | undefined {
  return identity.confirmed ? { name: identity.cluster, labels: identity.labels } : undefined;
}

/** Caches validated windows and overrides by uid and generation. */
export class Views {
  private readonly windows = new Map<string, { stamp: string; entry: WindowEntry; obj: StoredObject; identity: number }>();
  private readonly overrides = new Map<string, { stamp: string; entry: OverrideEntry }>();
  private readonly noCrossNamespaceRefs: boolean;
  private cluster: ClusterContext | undefined;
  private readonly givenCluster: ClusterContext | undefined;

  private identity: ClusterIdentity;
  /** Moves when the identity does, so that every cached view is scoped again. */
  private identityStamp = 0;

  /**
   * `noCrossNamespaceRefs`: a window's entries that name another namespace are refused (the controller's flag).
   * `identity`: the cluster's, for fleet windows and overrides (policy/fleet.ts); until told, it is unconfirmed, which fails safe.
   * `cluster`: the cluster's own name and labels for a holiday freeze that takes its country from them; by default those of a
   * confirmed identity. Without them such a window is invalid (its targets are held, never opened by it), with a status that
   * names the field.
   */
  constructor(options: { noCrossNamespaceRefs?: boolean; identity?: ClusterIdentity; cluster?: ClusterContext } = {}) {
    this.noCrossNamespaceRefs = options.noCrossNamespaceRefs ?? false;
    this.identity = options.identity ?? { confirmed: false, problem: "the cluster's identity was not read" };
    this.givenCluster = options.cluster;
    this.cluster = options.cluster ?? contextOf(this.identity);
  }

  /** The cluster's identity as now known; views made since are scoped by it. */
  get clusterIdentity(): ClusterIdentity {
    return this.identity;
  }

  /** How many times the identity changed: a window's decision depends on it (its fleet scope, a holiday freeze's labels). */
  get identityVersion(): number {
    return this.identityStamp;
  }

  /** A new identity (the identity ConfigMap changed): every view is scoped again when next asked for. */
  setIdentity(identity: ClusterIdentity): void {
    this.identity = identity;
    this.cluster = this.givenCluster ?? contextOf(identity);
    this.identityStamp++;
  }

  window(obj: StoredObject, now: number): WindowEntry {
    const namespace = obj.metadata?.namespace ?? "";
    const name = obj.metadata?.name ?? "";
    const key = windowKey(namespace, name);
    // The same object as last time (a cache hands out the object it stored until the next watch
    // event replaces it): asked for on every target's reconcile, so not even its stamp is made.
    const known = this.windows.get(key);
    if (known?.obj === obj && known.identity === this.identityStamp) return known.entry;
    const stamp = `${obj.metadata?.uid ?? ""}/${obj.metadata?.generation ?? 0}/${obj.metadata?.deletionTimestamp === undefined ? "" : "deleting"}/${this.identityStamp}/${canonicalJson(obj.metadata?.labels ?? {})}`;
    if (known?.stamp === stamp) {
      this.windows.set(key, { ...known, obj, identity: this.identityStamp });
      return known.entry;
    }
    const spec = (obj as { spec?: unknown }).spec;
    const base = { key, namespace, name, deleting: obj.metadata?.deletionTimestamp !== undefined, labels: obj.metadata?.labels ?? {} };
    let entry: WindowEntry;
    try {
      const { window, compiled } = validateWindow(obj, now, { cluster: this.cluster });
      const { allowed, refused } = splitTargets(namespace, window.spec.targets, this.noCrossNamespaceRefs);
      const fleet = fleetScope(window.spec.clusterSelector, this.identity);
      const scoped = scopeWindowParts(fleet, { compiled, targets: allowed });
      entry = {
        view: {
          ...base,
          ...(fleet.kind === "own" ? {} : { fleet }),
          mode: modeOf(window.spec),
          compiled: scoped.compiled,
          targets: scoped.targets,
          closeGracePeriodMs: closeGracePeriodOf(window.spec),
          onRevert: onRevertOf(window.spec),
          gatedSource: window.spec.gate === undefined ? null : objectKey(window.spec.gate.upstream.kind, namespace, window.spec.gate.gatedName),
        },
        refused,
        spec: window.spec,
        error: null,
      };
    } catch (e) {
      if (!(e instanceof InputError)) throw e;
      const { allowed, refused } = splitTargets(namespace, rawTargets(spec), this.noCrossNamespaceRefs);
      entry = {
        view: { ...base, mode: "Suspend", compiled: null, targets: allowed, closeGracePeriodMs: 0, onRevert: "Hold", gatedSource: null },
        refused,
        spec: null,
        error: e,
      };
    }
    this.windows.set(key, { stamp, entry, obj, identity: this.identityStamp });
    return entry;
  }

  forgetWindow(key: string): void {
    this.windows.delete(key);
  }

  /** `now` matters only for an override that says neither when it was created nor when it was asked for (see policy/override.ts). */
  override(obj: StoredObject, now: number): OverrideEntry {
    const namespace = obj.metadata?.namespace ?? "";
    const name = obj.metadata?.name ?? "";
    const key = windowKey(namespace, name);
    const annotations = obj.metadata?.annotations ?? {};
    // A cancellation and the requested-at stamp are annotations, which do not move the generation.
    const stamp = `${obj.metadata?.uid ?? ""}/${obj.metadata?.generation ?? 0}/${annotations[CANCELLED_AT] ?? ""}/${annotations[CANCELLED_BY] ?? ""}/${annotations[OVERRIDE_REQUESTED_AT] ?? ""}/${this.identityStamp}`;
    const cached = this.overrides.get(key);
    if (cached?.stamp === stamp) return cached.entry;
    const windowName = windowRefName(obj) ?? undefined;
    let entry: OverrideEntry;
    try {
      const o: WindowOverride = parseWith(WindowOverrideSchema, obj);
      const timing = overrideTiming({ creationTimestamp: obj.metadata?.creationTimestamp, annotations, until: o.spec.until }, now);
      const scope = fleetScope(o.spec.clusterSelector, this.identity);
      const acts = overrideActsHere(scope, o.spec.action);
      const view: OverrideView = {
        namespace,
        name,
        window: o.spec.windowRef?.name ?? "",
        ...(o.spec.windowSelector === undefined ? {} : { windowSelector: o.spec.windowSelector }),
        action: o.spec.action,
        start: timing.start,
        end: timing.end,
        reason: o.spec.reason,
      };
      entry = {
        view: acts ? view : null,
        error: null,
        windowName,
        until: timing.until,
        cancelled: timing.cancelled,
        notSelected:
          acts || scope.kind === "own"
            ? null
            : scope.kind === "unconfirmed"
              ? `an Open opens nothing on a cluster that cannot confirm it is its own: ${scope.message}`
              : scope.message,
      };
    } catch (e) {
      if (!(e instanceof InputError)) throw e;
      entry = { view: null, error: e.message, windowName, until: undefined, cancelled: null, notSelected: null };
    }
    this.overrides.set(key, { stamp, entry });
    return entry;
  }

  forgetOverride(key: string): void {
    this.overrides.delete(key);
  }
}
