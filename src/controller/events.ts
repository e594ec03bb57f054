// Kubernetes Events on windows and targets, rate-limited, and optionally forwarded to Flux's notification-controller.

import type { KubernetesObject } from "../kube/types.ts";
import { createHash } from "node:crypto";
import { hostname } from "node:os";
import type { KubeClient } from "../kube/client.ts";
import { statusCodeOf } from "../kube/errors.ts";
import { jittered } from "../kube/jitter.ts";
import type { Logger } from "../kube/log.ts";
import { EVENT_COMPONENT } from "../api/constants.ts";
import { HEARTBEAT } from "../api/conditions.ts";

export type EventType = "Normal" | "Warning";

/** The same event (object, reason, message) is not repeated within this time. */
const REPEAT_MS = 10 * 60_000;

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
    reportingController: EVENT_COMPONENT,
    reportingInstance: instance,
  };
}

export interface EmitOptions {
  /** Also post the event to notification-controller. */
  forward?: boolean;
  metadata?: Record<string, string>;
  /**
   * Records the event at most once per `once` key (with the object and reason), for announcements
   * of a transition: the key names the interval the transition began (its start), and the event's
   * name is derived from it. Announcing it again — a retry, a restart after a crash between the
   * write and the event, a new leader — finds it recorded (409 AlreadyExists) and neither records
   * nor forwards it a second time.
   */
  once?: string;
  /**
   * With `once`, for an announcement nothing makes again (a target's transition, its notice): an emitted event whose create fails
   * for a reason that may pass (mayPassLater) is tried again, by its name, EVENT_TRIES times in all (see retryWait). Events a
   * reconcile announces again on its own (a window's warnings) are tried once.
   */
  retry?: boolean;
}

/**
 * The name of a once-only event: `<object>.<hash of object uid, reason and key>`, a valid name
 * whatever the object's name (DNS subdomain, at most 253 characters).
 */
export function onceEventName(obj: KubernetesObject, reason: string, once: string): string {
  const hash = createHash("sha256")
    .update(`${obj.metadata?.uid ?? ""}|${obj.kind ?? ""}|${reason}|${once}`)
    .digest("hex")
    .slice(0, 16);
  const base = (obj.metadata?.name ?? "object").slice(0, 200).replace(/[.-]+$/, "");
  return `${base || "object"}.${hash}`;
}

/** True when a create failed because an object of that name exists (not any other 409, e.g. a conflict). */
function alreadyExists(err: unknown): boolean {
  if (statusCodeOf(err) !== 409) return false;
  const body = (err as { body?: unknown }).body;
  let status: unknown = body;
  if (typeof body === "string") {
    try {
      status = JSON.parse(body);
    } catch {
      return false;
    }
  }
  return (status as { reason?: unknown } | null)?.reason === "AlreadyExists";
}

/** Tries of an emitted event with `retry` whose create fails for a reason that may pass (see mayPassLater), the first included. */
export const EVENT_TRIES = 6;

/**
 * True when a failed create answered with `code` may succeed if sent again: no answer (undefined), a 409 other than
 * AlreadyExists (a conflict), 429 (after the client's own tries: a throttle that lasts), or a server error.
 */
function mayPassLater(code: number | undefined): boolean {
  return code === undefined || code === 409 || code === 429 || code >= 500;
}

/** The first wait before an event is tried again; it doubles each time (1, 2, 4, 8, 16 s, each ± 20 %: some 25 to 37 s in all). */
const EVENT_RETRY_MS = 1_000;

/** The wait before try `attempt + 1`, doubling from `firstMs` with 20 % jitter, or undefined after the last. */
function retryWait(attempt: number, firstMs: number): number | undefined {
  if (attempt >= EVENT_TRIES) return undefined;
  return jittered(firstMs * 2 ** (attempt - 1));
}

/**
 * Events sent to the API server at once, at most: events are the slow lane. At a transition a
 * target's write is what the user waits for; its event (and the window's) follows once the
 * targets' writes are done, a few at a time, instead of competing with them for the API server.
 */
const EVENT_LANE = 4;

/**
 * The longest an event waits for the writes it follows. In a cluster whose targets keep changing the
 * target lane may never be empty for long: past this, the event is sent anyway, late but not lost.
 * Longer than a large transition takes (5,000 targets: about 10 s here), so that events never compete
 * with one.
 */
export const EVENT_WAIT_MAX_MS = 30_000;

export class EventRecorder {
  private readonly client: KubeClient;
  /** Places of the lane taken (creates in flight), and the creates waiting for one (first come, first sent). */
  private sending = 0;
  private readonly lane: (() => void)[] = [];
  /** Event creates made and not yet answered (waiting, in flight or to be tried again), and who waits for there to be none. */
  private unsent = 0;
  /** Events waiting to be tried again: each one's way to end its wait at once; and whether the recorder stopped (see stop, start). */
  private readonly pausing = new Set<() => void>();
  private stopped = false;
  /** Of each object (uid), the number of its last event with `retry`: a retried one that a later one overtook is not forwarded. */
  private readonly lastRetried = new Map<string, number>();
  private retriedCount = 0;
  private drainWaiters: (() => void)[] = [];
  private readonly log: Logger;
  private readonly eventsAddress: string | undefined;
  private readonly recent = new Map<string, number>();
  private readonly instance = hostname();
  private readonly now: () => number;
  private readonly onError: (operation: string) => void;
  private readonly after: () => Promise<void>;
  private readonly busy: () => boolean;
  private readonly waitMaxMs: number;
  private readonly retryMs: number;

  /**
   * `after`: resolves when the writes events follow are done (the targets' writes of a transition); events wait for it, for at most
   * `waitMaxMs` (EVENT_WAIT_MAX_MS). `busy`: true while those writes are under way (held()). `retryMs`: the first wait before an
   * emitted event with `retry` is tried again (EVENT_RETRY_MS).
   */
  constructor(
    client: KubeClient,
    log: Logger,
    options: {
      eventsAddress?: string | undefined;
      now: () => number;
      onError: (operation: string) => void;
      after?: () => Promise<void>;
      busy?: () => boolean;
      waitMaxMs?: number;
      retryMs?: number;
    },
  ) {
    this.client = client;
    this.log = log;
    this.eventsAddress = options.eventsAddress;
    this.now = options.now;
    this.onError = options.onError;
    this.after = options.after ?? (() => Promise.resolve());
    this.waitMaxMs = options.waitMaxMs ?? EVENT_WAIT_MAX_MS;
    this.retryMs = options.retryMs ?? EVENT_RETRY_MS;
    this.busy = options.busy ?? (() => false);
  }

  /**
   * True while the writes events follow are under way: an event recorded now would wait for them. A
   * reconcile that must record its event before it goes on (a window's transition) comes back after
   * them instead of holding a worker of the queue meanwhile.
   */
  held(): boolean {
    return this.busy();
  }

  /**
   * Records an event on `obj`. With `forward`, also posts it to notification-controller, so alerts
   * on the object's kind (e.g. Kustomization) carry it. Never throws: events are best effort. With `once` and `retry`, it is tried
   * again when its create fails for a reason that may pass (EVENT_TRIES, from EVENT_RETRY_MS); by its name, a second create of it is
   * AlreadyExists, never a second event. Others are tried once: a retry of an event without a name could double it.
   */
  emit(obj: KubernetesObject, type: EventType, reason: string, message: string, options: EmitOptions = {}): void {
    void this.send(obj, type, reason, message, options, false);
  }

  /**
   * As `emit`, and resolves once the event is recorded, found already recorded (`once`), or
   * failed (logged and counted, never thrown): false then. A transition awaits it before writing
   * the status that says the transition happened, so a crash in between announces it again, not never.
   * A reconcile waits for it, holding a worker of the queue: it goes ahead of the events emitted and
   * does not wait for the targets' writes (a window's transition waits for them before: afterTargets).
   */
  record(obj: KubernetesObject, type: EventType, reason: string, message: string, options: EmitOptions = {}): Promise<boolean> {
    return this.send(obj, type, reason, message, options, true);
  }

  private async send(obj: KubernetesObject, type: EventType, reason: string, message: string, options: EmitOptions, ahead: boolean): Promise<boolean> {
    const now = this.now();
    const name = options.once === undefined ? undefined : onceEventName(obj, reason, options.once);
    const key = name ?? `${obj.metadata?.uid ?? ""}|${reason}|${message}`;
    const last = this.recent.get(key);
    // A clock that jumped back makes `now - last` negative: that is not a repeat.
    if (last !== undefined && now - last < REPEAT_MS && now >= last) return true;
    this.recent.set(key, now);
    if (this.recent.size > 10_000) this.prune(now);
    const namespace = obj.metadata?.namespace ?? "default";
    const time = new Date(now);
    const event = {
      metadata: name === undefined ? { generateName: `${obj.metadata?.name ?? "object"}.`, namespace } : { name, namespace },
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
      source: { component: EVENT_COMPONENT },
      reportingComponent: EVENT_COMPONENT,
      reportingInstance: this.instance,
    };
    const forward = options.forward === true && this.eventsAddress !== undefined;
    const flux = (): FluxEvent => fluxEventOf(event.involvedObject, type, reason, message, time, this.instance, options.metadata);
    // An ordinary event is forwarded at once; a once-only one only after it proved new, so an alert never repeats it.
    if (forward && name === undefined) this.forward(flux());
    const retried = !ahead && name !== undefined && options.retry === true;
    const uid = obj.metadata?.uid ?? "";
    const number = retried ? ++this.retriedCount : 0;
    if (retried) this.lastRetried.set(uid, number);
    // Waiting for the targets' writes: at most waitMaxMs after the event was made, its tries together.
    const deadline = performance.now() + this.waitMaxMs;
    // A try that got no answer or a server error may have created it: found after that, it was not forwarded yet.
    let mayHaveCreated = false;
    this.unsent++;
    try {
      for (let attempt = 1; ; attempt++) {
        try {
          await this.inLane(() => this.client.createEvent(namespace, event), ahead, deadline);
          // Overtaken by a later event of the object while it waited to be tried again: recorded, its alert would come after the
          // later one's. (A first try keeps its place: the lane sends in order.)
          if (forward && name !== undefined && (attempt === 1 || this.lastRetried.get(uid) === number)) this.forward(flux());
          return true;
        } catch (err) {
          if (name !== undefined && alreadyExists(err)) {
            this.log.debug("Found an event already recorded", { reason, object: `${obj.kind}/${namespace}/${obj.metadata?.name}`, event: name });
            if (forward && mayHaveCreated && this.lastRetried.get(uid) === number) this.forward(flux());
            return true;
          }
          this.onError("event");
          const code = statusCodeOf(err);
          mayHaveCreated ||= code === undefined || code >= 500;
          const wait = retried && mayPassLater(code) ? retryWait(attempt, this.retryMs) : undefined;
          if (wait !== undefined && !this.stopped) {
            this.log.info("Failed to record event; trying again", {
              reason,
              object: `${obj.kind}/${namespace}/${obj.metadata?.name}`,
              inMs: Math.round(wait),
              err,
            });
            if (await this.pause(wait)) continue;
          }
          // Not remembered: a later announcement of the same transition (a reconcile's, a restarted controller's) tries again, and forwards it then.
          if (name !== undefined) this.recent.delete(key);
          this.log.error("Failed to record event", { reason, object: `${obj.kind}/${namespace}/${obj.metadata?.name}`, err });
          return false;
        }
      }
    } finally {
      if (retried && this.lastRetried.get(uid) === number) this.lastRetried.delete(uid);
      if (--this.unsent === 0) for (const w of this.drainWaiters.splice(0)) w();
    }
  }

  /** Waits `ms` before an event is tried again; false, at once, when the recorder stops meanwhile. */
  private pause(ms: number): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        this.pausing.delete(stop);
        resolve(true);
      }, ms).unref();
      function stop(): void {
        clearTimeout(timer);
        resolve(false);
      }
      this.pausing.add(stop);
    });
  }

  /** Gives up the events waiting to be tried again (the controller stops or lost its lease): each is logged as failed; drained() resolves once none is left. */
  stop(): void {
    this.stopped = true;
    for (const stop of this.pausing) stop();
    this.pausing.clear();
  }

  /** Tries events again after a failure, as before stop() (the controller leads again). */
  start(): void {
    this.stopped = false;
  }

  /**
   * Runs `send` once the lane has a place for it (see EVENT_LANE) and the writes it follows are done. The
   * writes are looked at when its turn comes, not when it was made: events of one transition still
   * waiting when the next begins let that one's targets go first. Until `deadline` (performance.now()) at most: `waitMaxMs` after
   * the event was made, its tries together.
   * `ahead` (an event a reconcile waits for): the first place free, and no wait for the writes.
   */
  private async inLane<T>(send: () => Promise<T>, ahead: boolean, deadline: number): Promise<T> {
    // A place is handed over by the event that leaves it (`sending` still counts it), so none is taken twice.
    if (this.sending >= EVENT_LANE) await new Promise<void>((resolve) => (ahead ? this.lane.unshift(resolve) : this.lane.push(resolve)));
    else this.sending++;
    try {
      if (!ahead) await this.followed(deadline);
      return await send();
    } finally {
      const next = this.lane.shift();
      if (next === undefined) this.sending--;
      else next();
    }
  }

  /** Resolves when every Kubernetes Event made so far has been recorded (or failed); forwarding to notification-controller is not counted. */
  drained(): Promise<void> {
    if (this.unsent === 0) return Promise.resolve();
    return new Promise<void>((resolve) => this.drainWaiters.push(resolve));
  }

  /** Resolves when the writes events follow are done, or at `deadline` (performance.now()), whichever comes first. */
  private async followed(deadline: number): Promise<void> {
    const left = deadline - performance.now();
    if (left <= 0 || !this.busy()) return;
    let timer: NodeJS.Timeout | undefined;
    const capped = new Promise<void>((resolve) => (timer = setTimeout(resolve, left).unref()));
    try {
      await Promise.race([this.after(), capped]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Forwards a `Heartbeat` of `obj` to notification-controller, with no Kubernetes Event: a receiver
   * of the cluster's events can tell a quiet cluster from a gone one. The message names the time,
   * so notification-controller's duplicate filter never drops one. No-op without --events-address.
   */
  heartbeat(obj: KubernetesObject, metadata: Record<string, string>): void {
    if (this.eventsAddress === undefined) return;
    const time = new Date(this.now());
    const involved = {
      apiVersion: obj.apiVersion,
      kind: obj.kind,
      name: obj.metadata?.name,
      namespace: obj.metadata?.namespace ?? "default",
      uid: obj.metadata?.uid,
      resourceVersion: obj.metadata?.resourceVersion,
    };
    this.forward(fluxEventOf(involved, "Normal", HEARTBEAT, `Heartbeat at ${time.toISOString()}`, time, this.instance, metadata));
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
