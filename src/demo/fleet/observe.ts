// Watches the fleet by polling: each cluster as its API server has it, and each cluster as the Config Service knows it from its pushes.

import type { WindowStatus } from "../../api/index.ts";
import type { FluxObject } from "../../kube/flux.ts";
import { Connection } from "../../kube/connection.ts";
import type { KubeConfig } from "../../kube/types.ts";
import { OVERRIDES, TARGET_RESOURCES, WINDOWS, type Resource } from "../../kube/resources.ts";
import { Poller, orUndefined } from "../poll.ts";
import { clock, shortRevision } from "../snapshot.ts";
import { APP_NAMESPACE, CONFIG, FLUX_NAMESPACE, RELEASE, RT, RW, WINDOW, type FleetCluster } from "./layout.ts";

/** How often the demo looks at the clusters and at the Config Service. */
const POLL_MS = 400;

/** One cluster as its API server has it. */
export interface ClusterView {
  /** The version in ConfigMap shop-config (apps-rt) and shop-release (apps-rw). */
  readonly config: string | undefined;
  readonly release: string | undefined;
  readonly rtApplied: string | undefined;
  readonly rwApplied: string | undefined;
  readonly rwSuspended: boolean;
  /** The fleet window as the cluster runs it. */
  readonly window: { state: string; reason: string; nextOpen: string | undefined; timeZone: string | undefined } | undefined;
  /** The names of the WindowOverrides in flux-system. */
  readonly overrides: readonly string[];
}

/** apps-rw of one cluster as the cluster last pushed it to the Config Service. */
export interface PushedView {
  readonly reporting: string;
  readonly state: string | null;
  readonly pendingRevision: string | null;
  readonly nextChange: string | null;
  readonly lastReason: string | null;
}

export interface FleetSnapshot {
  readonly at: number;
  readonly clusters: Readonly<Record<string, ClusterView>>;
  readonly pushed: Readonly<Record<string, PushedView>>;
}

/** One line of the fleet's timeline: when, which cluster (or "fleet"), who acted, what happened. */
export interface FleetEntry {
  readonly at: number;
  readonly where: string;
  readonly actor: string;
  readonly text: string;
}

/** `07:52:03  edge-berlin   fluxgate  window fleet-changes is Open: …`. */
export function formatFleetEntry(e: FleetEntry): string {
  return `${clock(e.at)}  ${e.where.padEnd(12)}  ${e.actor.padEnd(8)}  ${e.text}`;
}

/** What changed in one cluster between two looks, in the order of cause and effect. */
export function clusterChanges(where: string, at: number, prev: ClusterView | undefined, next: ClusterView): FleetEntry[] {
  const out: FleetEntry[] = [];
  const say = (actor: string, text: string): void => void out.push({ at, where, actor, text });
  const before = new Set(prev?.overrides ?? []);
  for (const o of next.overrides) if (!before.has(o)) say("flux", `applied WindowOverride ${o} from Git`);
  for (const o of before) if (!next.overrides.includes(o)) say("flux", `pruned WindowOverride ${o}: it is no longer in Git`);
  const w = next.window;
  if (
    w !== undefined &&
    (prev?.window === undefined || prev.window.state !== w.state || prev.window.nextOpen !== w.nextOpen || prev.window.timeZone !== w.timeZone)
  ) {
    say("fluxgate", `window ${WINDOW} (${w.timeZone ?? "UTC"}) ${w.reason.startsWith(w.state) ? w.reason : `is ${w.state}: ${w.reason}`}`);
  }
  if (prev !== undefined && prev.rwSuspended !== next.rwSuspended) say("fluxgate", `${next.rwSuspended ? "suspended" : "resumed"} Kustomization ${RW}`);
  if (next.rtApplied !== prev?.rtApplied && next.rtApplied !== undefined) say("flux", `Kustomization ${RT} applied ${shortRevision(next.rtApplied)}`);
  if (next.config !== prev?.config && next.config !== undefined) say("cluster", `ConfigMap ${CONFIG}: ${prev?.config ?? "created"} → ${next.config}`);
  if (next.rwApplied !== prev?.rwApplied && next.rwApplied !== undefined) say("flux", `Kustomization ${RW} applied ${shortRevision(next.rwApplied)}`);
  if (next.release !== prev?.release && next.release !== undefined) say("cluster", `ConfigMap ${RELEASE}: ${prev?.release ?? "created"} → ${next.release}`);
  return out;
}

/** What the Config Service learnt of one cluster's apps-rw between two looks. */
export function pushedChanges(where: string, at: number, prev: PushedView | undefined, next: PushedView): FleetEntry[] {
  if (prev !== undefined && prev.state === next.state && prev.pendingRevision === next.pendingRevision && prev.reporting === next.reporting) return [];
  if (next.state === null) return [];
  const waits = next.pendingRevision === null ? "nothing waits" : `${shortRevision(next.pendingRevision)} waits`;
  const change = next.nextChange === null ? "" : `, next change ${clock(Date.parse(next.nextChange))} UTC`;
  return [{ at, where, actor: "pushed", text: `Config Service has ${RW} ${next.state}, ${waits}${change} (${next.lastReason ?? "?"})` }];
}

/** Polls every cluster and the Config Service's pushed status, reports each change, and waits for conditions. */
export class FleetObserver extends Poller<FleetSnapshot, FleetEntry> {
  private readonly connections: Map<string, Connection>;
  private readonly serviceUrl: string;
  private readonly token: string;

  constructor(
    clusters: ReadonlyMap<string, KubeConfig>,
    service: { url: string; token: string },
    onEntries: (entries: FleetEntry[]) => void,
    now: () => number = Date.now,
  ) {
    super(POLL_MS, onEntries, now);
    this.connections = new Map([...clusters].map(([name, kc]) => [name, new Connection(kc)]));
    this.serviceUrl = service.url;
    this.token = service.token;
  }

  get latest(): FleetSnapshot | undefined {
    return this.last;
  }

  protected changes(prev: FleetSnapshot | undefined, next: FleetSnapshot): FleetEntry[] {
    return [...this.connections.keys()].flatMap((name) => [
      ...clusterChanges(name, next.at, prev?.clusters[name], next.clusters[name] as ClusterView),
      ...pushedChanges(name, next.at, prev?.pushed[name], next.pushed[name] as PushedView),
    ]);
  }

  private async readCluster(c: Connection): Promise<ClusterView> {
    const ks = TARGET_RESOURCES["Kustomization"] as Resource;
    const get = <T>(r: Resource, name: string): Promise<T | undefined> =>
      orUndefined(() =>
        c.custom.getNamespacedCustomObject({ group: r.group, version: r.version, plural: r.plural, namespace: FLUX_NAMESPACE, name }),
      ) as Promise<T | undefined>;
    const [config, release, rt, rw, window, overrides] = await Promise.all([
      orUndefined(() => c.core.readNamespacedConfigMap({ namespace: APP_NAMESPACE, name: CONFIG })),
      orUndefined(() => c.core.readNamespacedConfigMap({ namespace: APP_NAMESPACE, name: RELEASE })),
      get<FluxObject>(ks, RT),
      get<FluxObject>(ks, RW),
      get<{ spec?: { timeZone?: string }; status?: WindowStatus }>(WINDOWS, WINDOW),
      c.custom.listNamespacedCustomObject({
        group: OVERRIDES.group,
        version: OVERRIDES.version,
        plural: OVERRIDES.plural,
        namespace: FLUX_NAMESPACE,
      }) as Promise<{
        items: { metadata: { name: string } }[];
      }>,
    ]);
    const ws = window?.status;
    return {
      config: config?.data?.["version"],
      release: release?.data?.["version"],
      rtApplied: rt?.status?.lastAppliedRevision,
      rwApplied: rw?.status?.lastAppliedRevision,
      rwSuspended: rw?.spec?.suspend === true,
      window: ws?.state === undefined ? undefined : { state: ws.state, reason: ws.reason ?? "", nextOpen: ws.nextOpen, timeZone: window?.spec?.timeZone },
      overrides: overrides.items.map((o) => o.metadata.name).sort(),
    };
  }

  private async readPushed(cluster: string): Promise<PushedView> {
    const r = await fetch(`${this.serviceUrl}/api/v1/clusters/${cluster}/status`, { headers: { authorization: `Bearer ${this.token}` } });
    if (!r.ok) throw new Error(`GET /api/v1/clusters/${cluster}/status: ${r.status} ${await r.text()}`);
    const body = (await r.json()) as {
      pushed: {
        reporting: string;
        targets: { name: string; state: string | null; pendingRevision: string | null; nextChange: string | null; lastReason: string }[];
      };
    };
    const t = body.pushed.targets.find((x) => x.name === RW);
    return {
      reporting: body.pushed.reporting,
      state: t?.state ?? null,
      pendingRevision: t?.pendingRevision === "" ? null : (t?.pendingRevision ?? null),
      nextChange: t?.nextChange === "" ? null : (t?.nextChange ?? null),
      lastReason: t?.lastReason ?? null,
    };
  }

  protected async read(): Promise<FleetSnapshot> {
    const names = [...this.connections.keys()];
    const [clusters, pushed] = await Promise.all([
      Promise.all(names.map((n) => this.readCluster(this.connections.get(n) as Connection))),
      Promise.all(names.map((n) => this.readPushed(n))),
    ]);
    return {
      at: this.now(),
      clusters: Object.fromEntries(names.map((n, i) => [n, clusters[i] as ClusterView])),
      pushed: Object.fromEntries(names.map((n, i) => [n, pushed[i] as PushedView])),
    };
  }
}

/** The clusters in the demo's order. */
export function names(fleet: readonly FleetCluster[]): string[] {
  return fleet.map((c) => c.name);
}
