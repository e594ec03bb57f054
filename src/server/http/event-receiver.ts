// The event receiver's checks and its write, apart from HTTP: the cluster, its signature, its rate, the event, the store.

import { HttpError } from "./errors.ts";
import type { Fleet } from "../model/model.ts";
import { RateLimiter } from "./ratelimit.ts";
import type { Service } from "../service.ts";
import { API_PREFIX } from "../paths.ts";
import { pushedEventOf } from "./flux-event.ts";
import type { RecordOutcome } from "../status/store.ts";

/** Events a cluster may post in a burst (a fleet-wide transition: one per target) and per second after it. */
export const EVENT_RATE = { burst: 300, perSecond: 20 };

/** The receiver's route, as the app names it in its metrics. */
export const EVENTS_ROUTE = `${API_PREFIX}/clusters/:cluster/events`;

export const RECEIVER_OFF = 'the event receiver is off: start "fluxgate serve" with --cluster-keys FILE (add a key with "fluxgate serve cluster-key add")';

/** What the receiver answers (202) once the event is durable. */
export interface Received {
  cluster: string;
  outcome: RecordOutcome | "heard";
}

/**
 * How often a known cluster's post has the repository look at HEAD again (which starts a git
 * process, and forking a large service holds its event loop for milliseconds): a cluster taken out
 * of fluxgate.yaml is refused within this, a new one at its first post.
 */
export const KNOWN_CLUSTERS_MS = 10_000;

/** The names of a fleet's clusters, built once per commit read: a post looks its cluster up without a scan. */
const namesOf = new WeakMap<Fleet, Set<string>>();

function clusterNames(fleet: Fleet): Set<string> {
  let names = namesOf.get(fleet);
  if (names === undefined) {
    names = new Set(fleet.clusters.map((k) => k.entry.name));
    namesOf.set(fleet, names);
  }
  return names;
}

/**
 * One receiver per service: both ways a post arrives (the app's route, and the server's own
 * listener that reads the body straight from Node's request) go through `receive`, and so share
 * one rate limit per cluster.
 */
export class EventReceiver {
  private readonly service: Service;
  private readonly limiter: RateLimiter;
  /** The cluster names the last post was checked against (not the fleet: an old model is not kept alive), and whether a newer look is under way. */
  private names: Set<string> | null = null;
  private namesAt = 0;
  private refreshing = false;

  constructor(service: Service) {
    this.service = service;
    this.limiter = new RateLimiter(service.push?.rate ?? EVENT_RATE);
  }

  /** True when the receiver is on (--cluster-keys). */
  get on(): boolean {
    return this.service.push !== null;
  }

  /** 404 unless the receiver is on and `cluster` is in fluxgate.yaml. */
  async known(cluster: string): Promise<void> {
    if (this.service.push === null) throw new HttpError(404, RECEIVER_OFF);
    if (this.names?.has(cluster) === true) {
      // A known cluster does not wait for a look at HEAD (a git process): in a fleet-wide
      // transition every post arriving meanwhile would. The look is taken for later posts.
      if (Date.now() - this.namesAt >= KNOWN_CLUSTERS_MS) this.refresh();
      return;
    }
    this.namesAt = Date.now();
    this.names = clusterNames(await this.service.repository.fleet());
    if (!this.names.has(cluster)) throw new HttpError(404, `cluster "${cluster.slice(0, 80)}" is not in fluxgate.yaml`);
  }

  private refresh(): void {
    if (this.refreshing) return;
    this.refreshing = true;
    this.namesAt = Date.now();
    this.service.repository.fleet().then(
      (fleet) => {
        this.names = clusterNames(fleet);
        this.refreshing = false;
      },
      // An unreadable commit: the reads say why; posts of known clusters are still taken.
      () => void (this.refreshing = false),
    );
  }

  /**
   * Checks a posted body of `cluster` (a known one: see `known`) and records it; resolves once it
   * is durable, since notification-controller retries what is not acknowledged. Throws HttpError:
   * 401 (signature), 429 (the cluster's rate), 400 (not Flux's event JSON).
   */
  async receive(cluster: string, body: Uint8Array, signature: string | undefined): Promise<Received> {
    const push = this.service.push;
    if (push === null) throw new HttpError(404, RECEIVER_OFF);
    // The signature is checked first: nothing of an unsigned request is parsed or stored, and it
    // counts against no cluster's rate (a stranger cannot use up a cluster's budget).
    if (!(await push.keys.verify(cluster, body, signature))) {
      const why = (await push.keys.has(cluster))
        ? "the X-Signature header is missing or is not the HMAC-SHA256 of the body with the cluster's key"
        : `cluster ${cluster} has no key: add one with "fluxgate serve cluster-key add --cluster ${cluster}"`;
      throw new HttpError(401, why);
    }
    const wait = this.limiter.take(cluster, Date.now());
    if (wait > 0) {
      this.service.metrics.rateLimited.inc();
      throw new HttpError(429, `cluster ${cluster} sent too many events; try again in ${wait}s`, { headers: { "Retry-After": String(wait) } });
    }
    const receivedAt = this.service.now();
    const event = pushedEventOf(cluster, body, receivedAt);
    if ("heard" in event) {
      await push.store.heard(cluster, receivedAt);
      return { cluster, outcome: "heard" };
    }
    return { cluster, outcome: await push.store.record(event) };
  }
}
