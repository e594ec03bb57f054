// Kubernetes Events on windows and targets, rate-limited, and optionally forwarded to Flux's notification-controller.

import type { KubernetesObject } from "@kubernetes/client-node";
import { hostname } from "node:os";
import type { KubeClient } from "../kube/client.ts";
import type { Logger } from "./log.ts";

export type EventType = "Normal" | "Warning";

/** The same event (object, reason, message) is not repeated within this time. */
const REPEAT_MS = 10 * 60_000;
const COMPONENT = "fluxgate";

/** A Flux event as notification-controller receives it (fluxcd/pkg event v1beta1). */
export interface FluxEvent {
  involvedObject: { apiVersion?: string; kind?: string; namespace?: string; name?: string; uid?: string; resourceVersion?: string };
  severity: "info" | "error";
  timestamp: string;
  message: string;
  reason: string;
  metadata?: Record<string, string>;
  reportingController: string;
  reportingInstance?: string;
}

/** The API group notification-controller accepts metadata keys of whatever the involved object is. */
const EVENT_GROUP = "event.toolkit.fluxcd.io";

/**
 * The event as posted to notification-controller. It keeps only metadata keys prefixed with the
 * involved object's API group (or `event.toolkit.fluxcd.io`) and strips that prefix when it
 * notifies, so `revision` is sent as `kustomize.toolkit.fluxcd.io/revision`, as Flux's own
 * controllers do, and a Provider receives it as `revision`.
 */
export function fluxEventOf(
  involvedObject: FluxEvent["involvedObject"],
  type: EventType,
  reason: string,
  message: string,
  time: Date,
  instance: string,
  metadata?: Record<string, string>,
): FluxEvent {
  // "kustomize.toolkit.fluxcd.io/v1" → its group; a core object ("v1") has none.
  const [group = "", version] = (involvedObject.apiVersion ?? "").split("/");
  const prefix = version !== undefined && group !== "" ? group : EVENT_GROUP;
  return {
    involvedObject,
    severity: type === "Warning" ? "error" : "info",
    timestamp: time.toISOString().replace(/\.\d{3}Z$/, "Z"),
    message,
    reason,
    ...(metadata !== undefined ? { metadata: Object.fromEntries(Object.entries(metadata).map(([k, v]) => [`${prefix}/${k}`, v])) } : {}),
    reportingController: COMPONENT,
    reportingInstance: instance,
  };
}

export class EventRecorder {
  private readonly client: KubeClient;
  private readonly log: Logger;
  private readonly eventsAddress: string | undefined;
  private readonly recent = new Map<string, number>();
  private readonly instance = hostname();
  private readonly now: () => number;
  private readonly onError: (operation: string) => void;

  constructor(client: KubeClient, log: Logger, options: { eventsAddress?: string | undefined; now: () => number; onError: (operation: string) => void }) {
    this.client = client;
    this.log = log;
    this.eventsAddress = options.eventsAddress;
    this.now = options.now;
    this.onError = options.onError;
  }

  /**
   * Records an event on `obj`. With `forward`, also posts it to notification-controller, so alerts
   * on the object's kind (e.g. Kustomization) carry it. Never throws: events are best effort.
   */
  emit(obj: KubernetesObject, type: EventType, reason: string, message: string, options: { forward?: boolean; metadata?: Record<string, string> } = {}): void {
    const now = this.now();
    const key = `${obj.metadata?.uid ?? ""}|${reason}|${message}`;
    const last = this.recent.get(key);
    if (last !== undefined && now - last < REPEAT_MS) return;
    this.recent.set(key, now);
    if (this.recent.size > 10_000) this.prune(now);
    const namespace = obj.metadata?.namespace ?? "default";
    const time = new Date(now);
    const event = {
      metadata: { generateName: `${obj.metadata?.name ?? "object"}.`, namespace },
      involvedObject: {
        apiVersion: obj.apiVersion,
        kind: obj.kind,
        name: obj.metadata?.name,
        namespace,
        uid: obj.metadata?.uid,
        resourceVersion: obj.metadata?.resourceVersion,
      },
      reason,
      message,
      type,
      count: 1,
      firstTimestamp: time,
      lastTimestamp: time,
      source: { component: COMPONENT },
      reportingComponent: COMPONENT,
      reportingInstance: this.instance,
    };
    this.client.createEvent(namespace, event).catch((err: unknown) => {
      this.onError("event");
      this.log.error("Failed to record event", { reason, object: `${obj.kind}/${namespace}/${obj.metadata?.name}`, err });
    });
    if (options.forward === true && this.eventsAddress !== undefined) {
      this.forward(fluxEventOf(event.involvedObject, type, reason, message, time, this.instance, options.metadata));
    }
  }

  private forward(event: FluxEvent): void {
    const address = this.eventsAddress as string;
    fetch(address, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(event), signal: AbortSignal.timeout(15_000) })
      .then(async (res) => {
        await res.body?.cancel();
        // 429: notification-controller already had this event (same object, message and revision) within its rate-limit interval.
        if (res.status === 429) {
          this.log.debug("Notification-controller discarded a duplicate event", { address, reason: event.reason });
          return;
        }
        if (!res.ok) throw new Error(`HTTP ${res.status} from ${address}`);
      })
      .catch((err: unknown) => {
        this.onError("forward-event");
        this.log.error("Failed to forward event to notification-controller", { address, reason: event.reason, err });
      });
  }

  private prune(now: number): void {
    for (const [k, t] of this.recent) if (now - t >= REPEAT_MS) this.recent.delete(k);
  }
}
