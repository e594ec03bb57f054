// Live status from clusters (--cluster-context NAME=CONTEXT): windows and overrides as the controller reports them, and direct overrides.

import { canonicalJson } from "../../api/canonical.ts";
import {
  CANCELLED_AT,
  CANCELLED_BY,
  closeGracePeriodOf,
  modeOf,
  onRevertOf,
  timeZoneOf,
  WindowStatusSchema,
  type ReconciliationWindowSpec,
  type WindowStatus,
  windowRefName,
} from "../../api/index.ts";
import { FLUX_NAMESPACE } from "../../gitops/layout.ts";
import { Connection, loadKubeConfig, PATCH } from "../../kube/connection.ts";
import { apiStatusOf } from "../../kube/errors.ts";
import { OVERRIDES, WINDOWS, type Resource } from "../../kube/resources.ts";
import { ConfigError, ConflictError, RemoteFailure } from "../model/errors.ts";
import type { ClusterModel } from "../model/model.ts";
import type { PushedCluster } from "./store.ts";
import type { ClusterPushView } from "./view.ts";
import type { PushedTargetView, UpcomingWindowView } from "./newest.ts";
import type { KubernetesObject } from "../../kube/types.ts";

/** A target that has a revision it has not applied, and the window holding it. */
export interface PendingView {
  window: string;
  kind: string;
  namespace: string;
  name: string;
  appliedRevision?: string;
  pendingRevision: string;
  waitingSince?: string;
}

/** A difference between a window in Git and the window in the cluster. */
export interface DriftView {
  window: string;
  /** `changed`: the cluster runs another spec; `not-applied`: in Git only; `not-in-git`: in the cluster only. */
  kind: "changed" | "not-applied" | "not-in-git";
}

export interface LiveWindow {
  name: string;
  generation: number | null;
  status: WindowStatus | null;
}

export interface LiveOverride {
  name: string;
  window: string | null;
  action: string | null;
  until: string | null;
  reason: string | null;
  phase: string | null;
}

/** What the cluster pushed (fluxgate serve --cluster-keys), null when the receiver is off. */
export type PushedStatusView =
  | (Omit<PushedCluster, "lastHeard" | "targets"> &
      Pick<ClusterPushView, "reporting" | "lastHeard"> & {
        targets: PushedTargetView[];
        /** The coming openings and freeze starts its windows announced (spec.notice), one per window, soonest first. */
        upcoming: UpcomingWindowView[];
      })
  | null;

/** What GET /clusters/{cluster}/status returns. */
export type LiveStatus = (
  | { cluster: string; live: false; message: string }
  | {
      cluster: string;
      live: true;
      context: string;
      windows: LiveWindow[];
      overrides: LiveOverride[];
      pending: PendingView[];
      drift: DriftView[];
    }
) & { pushed?: PushedStatusView };

/** Where live status comes from: the real clusters, or a fake in tests. */
export interface LiveSource {
  /** The context configured for a cluster, or null. */
  contextOf(cluster: string): string | null;
  /** Windows and overrides in the cluster's flux-system namespace. */
  read(cluster: string): Promise<{ windows: KubernetesObject[]; overrides: KubernetesObject[] }>;
  /** Creates an override in the cluster. */
  create(cluster: string, override: KubernetesObject): Promise<KubernetesObject>;
  /**
   * Cancels an override in the cluster now (the annotations `fluxgate overrides cancel` writes), so
   * that it ends even where Flux never took over an override delivered directly. "absent": the
   * cluster has no override of that name; "already": it was cancelled before, and stays as it was.
   */
  cancel(cluster: string, name: string, by: string, at: string): Promise<CancelResult>;
}

/** What a direct cancel found in the cluster. */
export type CancelResult = "cancelled" | "already" | "absent";

/**
 * Parses `--cluster-context NAME=CONTEXT` flags.
 *
 * @example parseClusterContexts(["edge-berlin=kind-berlin"]) // Map { "edge-berlin" => "kind-berlin" }
 */
export function parseClusterContexts(flags: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const flag of flags) {
    const at = flag.indexOf("=");
    if (at <= 0 || at === flag.length - 1) throw new ConfigError(`--cluster-context ${flag}: write NAME=CONTEXT, e.g. edge-berlin=kind-edge-berlin`);
    const name = flag.slice(0, at);
    if (out.has(name)) throw new ConfigError(`--cluster-context ${flag}: cluster ${name} is given twice`);
    out.set(name, flag.slice(at + 1));
  }
  return out;
}

/** Live status from real clusters through kubeconfig contexts. */
export class KubeLive implements LiveSource {
  private readonly contexts: ReadonlyMap<string, string>;
  private readonly clients = new Map<string, Connection>();

  constructor(contexts: ReadonlyMap<string, string>, kubeconfig?: string) {
    this.contexts = contexts;
    for (const [cluster, context] of contexts) {
      try {
        const kc = loadKubeConfig({ kubeconfig, context });
        this.clients.set(cluster, new Connection(kc));
      } catch (e) {
        throw new ConfigError(`--cluster-context ${cluster}=${context}: ${(e as Error).message}`, { cause: e });
      }
    }
  }

  contextOf(cluster: string): string | null {
    return this.contexts.get(cluster) ?? null;
  }

  private client(cluster: string): Connection["custom"] {
    const client = this.clients.get(cluster);
    if (client === undefined) throw new ConflictError(`no live connection to cluster ${cluster}: start the service with --cluster-context ${cluster}=CONTEXT`);
    return client.custom;
  }

  private async list(cluster: string, r: Resource): Promise<KubernetesObject[]> {
    // The connection tries again when the API server asks for it (429: e.g. a CRD's storage starting) or fails for a moment (5xx).
    const list = (await this.client(cluster).listNamespacedCustomObject({
      group: r.group,
      version: r.version,
      plural: r.plural,
      namespace: FLUX_NAMESPACE,
    })) as { items?: KubernetesObject[] };
    return list.items ?? [];
  }

  async read(cluster: string): Promise<{ windows: KubernetesObject[]; overrides: KubernetesObject[] }> {
    try {
      const [windows, overrides] = await Promise.all([this.list(cluster, WINDOWS), this.list(cluster, OVERRIDES)]);
      return { windows, overrides };
    } catch (e) {
      throw this.failure(cluster, "read windows from", e);
    }
  }

  async create(cluster: string, override: KubernetesObject): Promise<KubernetesObject> {
    const r = OVERRIDES;
    try {
      return (await this.client(cluster).createNamespacedCustomObject({
        group: r.group,
        version: r.version,
        plural: r.plural,
        namespace: FLUX_NAMESPACE,
        body: override,
      })) as KubernetesObject;
    } catch (e) {
      throw this.failure(cluster, "create the override in", e);
    }
  }

  async cancel(cluster: string, name: string, by: string, at: string): Promise<CancelResult> {
    const r = OVERRIDES;
    const client = this.client(cluster);
    const id = { group: r.group, version: r.version, plural: r.plural, namespace: FLUX_NAMESPACE, name };
    try {
      const found = (await client.getNamespacedCustomObject(id)) as KubernetesObject;
      if (found.metadata?.annotations?.[CANCELLED_AT] !== undefined) return "already";
      await client.patchNamespacedCustomObject({ ...id, body: { metadata: { annotations: { [CANCELLED_AT]: at, [CANCELLED_BY]: by } } } }, PATCH.merge);
      return "cancelled";
    } catch (e) {
      if (apiStatusOf(e).code === 404) return "absent";
      throw this.failure(cluster, "cancel the override in", e);
    }
  }

  private failure(cluster: string, what: string, e: unknown): ConflictError | RemoteFailure {
    if (e instanceof ConflictError || e instanceof RemoteFailure) return e;
    const context = this.contexts.get(cluster) ?? "";
    const { code, message } = apiStatusOf(e);
    if (code !== undefined) {
      if (code === 409) return new ConflictError(`cluster ${cluster} already has that override: ${message}`, { cause: e });
      if (code === 403 || code === 401)
        return new RemoteFailure(`the Kubernetes API of cluster ${cluster} (context ${context}) refused to ${what} it (${code}): ${message}`, { cause: e });
      return new RemoteFailure(`could not ${what} cluster ${cluster} (context ${context}): ${code} ${message}`, { cause: e });
    }
    return new RemoteFailure(`could not ${what} cluster ${cluster} (context ${context}): ${(e as Error).message}`, { cause: e });
  }
}

/** A spec with the CRD's defaults filled in, in a canonical form, so Git and cluster can be compared. */
function canonical(spec: unknown): string {
  const s = (spec ?? {}) as ReconciliationWindowSpec;
  let normal: unknown = spec;
  try {
    normal = { ...s, timeZone: timeZoneOf(s), mode: modeOf(s), closeGracePeriod: closeGracePeriodOf(s), onRevert: onRevertOf(s) };
  } catch {
    // An unparsable spec is compared as written.
  }
  return canonicalJson(normal);
}

/** Combines what a cluster reports with what Git holds for it. */
export function liveStatus(cluster: ClusterModel, context: string, objects: { windows: KubernetesObject[]; overrides: KubernetesObject[] }): LiveStatus {
  const windows: LiveWindow[] = objects.windows
    .map((o) => {
      const parsed = WindowStatusSchema.safeParse((o as { status?: unknown }).status ?? {});
      return { name: o.metadata?.name ?? "", generation: o.metadata?.generation ?? null, status: parsed.success ? parsed.data : null };
    })
    .sort((a, b) => a.name.localeCompare(b.name));
  const overrides: LiveOverride[] = objects.overrides
    .map((o) => {
      const spec = (o as { spec?: { action?: string; until?: string; reason?: string } }).spec;
      const status = (o as { status?: { phase?: string } }).status;
      return {
        name: o.metadata?.name ?? "",
        window: windowRefName(o),
        action: spec?.action ?? null,
        until: spec?.until ?? null,
        reason: spec?.reason ?? null,
        phase: status?.phase ?? null,
      };
    })
    .sort((a, b) => a.name.localeCompare(b.name));
  const pending = windows.flatMap((w) => (w.status?.pending ?? []).map((p): PendingView => ({ window: w.name, ...p })));
  const live = new Map(objects.windows.map((o) => [o.metadata?.name ?? "", (o as { spec?: unknown }).spec]));
  const drift: DriftView[] = [];
  for (const w of cluster.windows) {
    const spec = (w.manifest as { spec?: unknown } | null)?.spec;
    if (!live.has(w.name)) drift.push({ window: w.name, kind: "not-applied" });
    else if (canonical(spec) !== canonical(live.get(w.name))) drift.push({ window: w.name, kind: "changed" });
  }
  for (const name of live.keys()) if (!cluster.windows.some((w) => w.name === name)) drift.push({ window: name, kind: "not-in-git" });
  drift.sort((a, b) => a.window.localeCompare(b.window));
  return { cluster: cluster.entry.name, live: true, context, windows, overrides, pending, drift };
}
