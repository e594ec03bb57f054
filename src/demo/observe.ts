// Watches the demo's namespace by polling: reads a Snapshot several times a second, prints what changed, and waits for conditions.

import type { WindowStatus } from "../api/index.ts";
import type { FluxObject } from "../kube/flux.ts";
import { Connection } from "../kube/connection.ts";
import type { KubeConfig } from "../kube/types.ts";
import { TARGET_RESOURCES, WINDOWS, type Resource } from "../kube/resources.ts";
import { Poller, orUndefined } from "./poll.ts";
import { CONFIGMAP, DEPLOYMENT, GATED_SOURCE, RT, RW, UPSTREAM_SOURCE, WINDOW_NAME, confVersionOf } from "./scenario.ts";
import { EMPTY, changes, type DemoEvent, type Entry, type Snapshot } from "./snapshot.ts";

export { DemoTimeoutError } from "./poll.ts";

/** How often the demo looks at the cluster: fine enough to time "seconds after the opening". */
const POLL_MS = 200;

/** Polls the demo's objects in `namespace` and reports each change as timeline entries. */
export class Observer extends Poller<Snapshot, Entry> {
  private readonly namespace: string;
  private readonly custom: Connection["custom"];
  private readonly core: Connection["core"];
  private readonly apps: Connection["apps"];

  constructor(kc: KubeConfig, namespace: string, onEntries: (entries: Entry[]) => void, now: () => number = Date.now) {
    super(POLL_MS, onEntries, now);
    this.namespace = namespace;
    // Polled several times a second: one kept-alive connection, each read bounded in time.
    const connection = new Connection(kc);
    this.custom = connection.custom;
    this.core = connection.core;
    this.apps = connection.apps;
  }

  /** The last snapshot read (EMPTY before the first). */
  get latest(): Snapshot {
    return this.last ?? EMPTY;
  }

  protected changes(prev: Snapshot | undefined, next: Snapshot): Entry[] {
    return changes(prev ?? EMPTY, next);
  }

  private async getCustom<T>(resource: Resource, name: string): Promise<T | undefined> {
    const { group, version, plural } = resource;
    return (await orUndefined(() => this.custom.getNamespacedCustomObject({ group, version, plural, namespace: this.namespace, name }))) as T | undefined;
  }

  protected async read(): Promise<Snapshot> {
    const namespace = this.namespace;
    const git = TARGET_RESOURCES["GitRepository"] as Resource;
    const ks = TARGET_RESOURCES["Kustomization"] as Resource;
    const [cm, deployment, upstream, gated, rt, rw, window, events] = await Promise.all([
      orUndefined(() => this.core.readNamespacedConfigMap({ namespace, name: CONFIGMAP })),
      orUndefined(() => this.apps.readNamespacedDeployment({ namespace, name: DEPLOYMENT })),
      this.getCustom<FluxObject>(git, UPSTREAM_SOURCE),
      this.getCustom<FluxObject>(git, GATED_SOURCE),
      this.getCustom<FluxObject>(ks, RT),
      this.getCustom<FluxObject>(ks, RW),
      this.getCustom<{ status?: WindowStatus }>(WINDOWS, WINDOW_NAME),
      this.core.listNamespacedEvent({ namespace }),
    ]);
    const ws = window?.status;
    const rwReady =
      rw !== undefined &&
      rw.status?.["observedGeneration"] === rw.metadata?.generation &&
      (rw.status?.conditions ?? []).some((c) => c.type === "Ready" && c.status === "True");
    const fluxgateEvents: DemoEvent[] = events.items
      .filter((e) => e.source?.component === "fluxgate" || e.reportingComponent === "fluxgate")
      .sort((a, b) => String(a.firstTimestamp ?? a.eventTime ?? "").localeCompare(String(b.firstTimestamp ?? b.eventTime ?? "")))
      .map((e) => ({
        uid: e.metadata.uid ?? `${e.metadata.name ?? ""}`,
        kind: e.involvedObject.kind ?? "",
        name: e.involvedObject.name ?? "",
        reason: e.reason ?? "",
        message: e.message ?? "",
      }));
    return {
      at: this.now(),
      conf: confVersionOf(cm?.data?.["nginx.conf"]),
      image: deployment === undefined ? undefined : (deployment.spec?.template.spec?.containers[0]?.image ?? ""),
      deploymentUid: deployment?.metadata?.uid,
      upstream: upstream?.status?.artifact?.revision,
      gated: gated?.status?.artifact?.revision,
      rtApplied: rt?.status?.lastAppliedRevision,
      rwApplied: rw?.status?.lastAppliedRevision,
      rtSuspended: rt?.spec?.suspend === true,
      rwSuspended: rw?.spec?.suspend === true,
      rwSource: rw?.spec?.sourceRef?.name,
      rwReady,
      window:
        ws === undefined
          ? undefined
          : {
              state: ws.state,
              reason: ws.reason,
              nextOpen: ws.nextOpen,
              nextClose: ws.nextClose,
              pending: (ws.pending ?? []).map((p) => ({
                name: p.name,
                pendingRevision: p.pendingRevision,
                appliedRevision: p.appliedRevision,
                revisions: p.revisions,
                waitingSince: p.waitingSince,
              })),
              pinnedRevision: ws.gate?.pinnedRevision,
            },
      events: fluxgateEvents,
    };
  }
}
