// Watches the demo's namespace by polling: reads a Snapshot several times a second, prints what changed, and waits for conditions.

import { setTimeout as sleep } from "node:timers/promises";
import type { WindowStatus } from "../api/index.ts";
import type { FluxObject } from "../kube/flux.ts";
import { Failure } from "../errors.ts";
import { Connection } from "../kube/connection.ts";
import { statusCodeOf } from "../kube/errors.ts";
import type { KubeConfig } from "../kube/types.ts";
import { TARGET_RESOURCES, WINDOWS, type Resource } from "../kube/resources.ts";
import { CONFIGMAP, DEPLOYMENT, GATED_SOURCE, RT, RW, UPSTREAM_SOURCE, WINDOW_NAME, confVersionOf } from "./scenario.ts";
import { EMPTY, changes, type DemoEvent, type Entry, type Snapshot } from "./snapshot.ts";

/** How often the demo looks at the cluster: fine enough to time "seconds after the opening". */
const POLL_MS = 200;

/** A condition did not hold in time; the message says what was awaited. */
export class DemoTimeoutError extends Failure {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, { reason: "Timeout", cause: options?.cause });
  }
}

async function orUndefined<T>(read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (e) {
    if (statusCodeOf(e) === 404) return undefined;
    throw e;
  }
}

interface Waiter {
  probe: (s: Snapshot) => boolean;
  deadline: number;
  what: string;
  resolve: (s: Snapshot) => void;
  reject: (e: Error) => void;
}

/** Polls the demo's objects in `namespace` and reports each change as timeline entries. */
export class Observer {
  private readonly namespace: string;
  private readonly custom: Connection["custom"];
  private readonly core: Connection["core"];
  private readonly apps: Connection["apps"];
  private readonly onEntries: (entries: Entry[]) => void;
  private readonly now: () => number;
  private current: Snapshot = EMPTY;
  private waiters: Waiter[] = [];
  private running = false;
  private loop: Promise<void> | undefined;
  private lastError: unknown;

  constructor(kc: KubeConfig, namespace: string, onEntries: (entries: Entry[]) => void, now: () => number = Date.now) {
    this.namespace = namespace;
    // Polled several times a second: one kept-alive connection, each read bounded in time.
    const connection = new Connection(kc);
    this.custom = connection.custom;
    this.core = connection.core;
    this.apps = connection.apps;
    this.onEntries = onEntries;
    this.now = now;
  }

  get latest(): Snapshot {
    return this.current;
  }

  start(): void {
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
    for (const w of this.waiters) w.reject(new DemoTimeoutError(`stopped while waiting for ${w.what}`));
    this.waiters = [];
  }

  /**
   * Resolves with the first snapshot (this one or a later one) for which `probe` holds; rejects
   * after `timeoutMs` with a DemoTimeoutError naming `what`.
   */
  until(what: string, probe: (s: Snapshot) => boolean, timeoutMs: number): Promise<Snapshot> {
    if (this.current !== EMPTY && probe(this.current)) return Promise.resolve(this.current);
    return new Promise((resolve, reject) => {
      this.waiters.push({ probe, deadline: this.now() + timeoutMs, what, resolve, reject });
    });
  }

  /** Resolves true if `probe` holds at some snapshot within `ms`, false if it never did. */
  async holdsWithin(probe: (s: Snapshot) => boolean, ms: number): Promise<Snapshot | undefined> {
    try {
      return await this.until("", probe, ms);
    } catch (e) {
      if (e instanceof DemoTimeoutError) return undefined;
      throw e;
    }
  }

  private async run(): Promise<void> {
    while (this.running) {
      try {
        const next = await this.read();
        const entries = changes(this.current, next);
        this.current = next;
        if (entries.length > 0) this.onEntries(entries);
        this.lastError = undefined;
      } catch (e) {
        this.lastError = e; // the API server may be busy for a moment; the next poll tries again
      }
      const now = this.now();
      this.waiters = this.waiters.filter((w) => {
        if (this.current !== EMPTY && w.probe(this.current)) {
          w.resolve(this.current);
          return false;
        }
        if (now > w.deadline) {
          const detail = this.lastError instanceof Error ? ` (last error: ${this.lastError.message})` : "";
          w.reject(new DemoTimeoutError(`timed out waiting for ${w.what}${detail}`));
          return false;
        }
        return true;
      });
      await sleep(POLL_MS);
    }
  }

  private async getCustom<T>(resource: Resource, name: string): Promise<T | undefined> {
    const { group, version, plural } = resource;
    return (await orUndefined(() => this.custom.getNamespacedCustomObject({ group, version, plural, namespace: this.namespace, name }))) as T | undefined;
  }

  private async read(): Promise<Snapshot> {
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
