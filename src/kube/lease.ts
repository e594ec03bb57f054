// Leader election on a coordination.k8s.io Lease: one replica leads and writes; the others wait to take over.

import type { KubeConfig } from "@kubernetes/client-node";
import { statusCodeOf } from "./errors.ts";
import { Rest } from "./transport.ts";

/** A coordination.k8s.io/v1 Lease as the API server sends it (times as RFC 3339 strings with microseconds). */
interface Lease {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string; resourceVersion?: string };
  spec?: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    acquireTime?: string;
    renewTime?: string;
    leaseTransitions?: number;
  };
}

/** A MicroTime as Kubernetes writes it: RFC 3339 with six digits of fraction. */
function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/Z$/, "000Z");
}

const leases = (namespace: string): string => `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/leases`;

export interface LeaderElectionOptions {
  namespace: string;
  name: string;
  identity: string;
  /** How long a lease is valid after its last renewal. */
  leaseDurationMs?: number;
  /** How long the leader keeps trying to renew before it gives up leading. */
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  onStartedLeading: () => void;
  onStoppedLeading: () => void;
  onError?: (error: unknown) => void;
}

/** Campaigns for a Lease, renews it while leading, and hands it over on stop. */
export class LeaderElector {
  private readonly rest: Rest;
  private readonly o: Required<LeaderElectionOptions>;
  private leading = false;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private lastRenew = 0;
  /** When we first saw the current holder's record unchanged (observed time, as client-go does). */
  private observed: { record: string; at: number } | null = null;

  constructor(kc: KubeConfig, options: LeaderElectionOptions) {
    // Renewed every retry period: one kept-alive connection, not a TLS handshake each time.
    // No retries inside a renewal: the elector's own retry period and renew deadline decide.
    this.rest = new Rest(kc, { attempts: 1 });
    this.o = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000, onError: () => undefined, ...options };
  }

  get isLeader(): boolean {
    return this.leading;
  }

  start(): void {
    void this.tick();
  }

  /** Stops campaigning; a leader releases the lease so another replica takes over at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    if (!this.leading) return;
    this.leading = false;
    try {
      const lease = await this.read();
      if (lease.spec?.holderIdentity === this.o.identity)
        await this.replace({ ...lease, spec: { ...lease.spec, holderIdentity: "", leaseDurationSeconds: 1 } });
    } catch (e) {
      this.o.onError(e);
    }
  }

  private async tick(): Promise<void> {
    if (this.stopped) return;
    let ok = false;
    try {
      ok = await this.bounded(this.tryAcquireOrRenew());
    } catch (e) {
      this.o.onError(e);
    }
    if (this.stopped) return;
    const now = Date.now();
    if (ok) {
      this.lastRenew = now;
      if (!this.leading) {
        this.leading = true;
        this.o.onStartedLeading();
      }
    } else if (this.leading && now - this.lastRenew > this.o.renewDeadlineMs) {
      this.leading = false;
      this.o.onStoppedLeading();
    }
    this.timer = setTimeout(() => void this.tick(), this.o.retryPeriodMs);
  }

  /**
   * An attempt that gets no answer within half the renew deadline counts as failed: a request
   * hanging on a dead connection must not keep a leader leading after its lease ran out. Two
   * failed attempts in a row pass the renew deadline before the lease expires for the others.
   */
  private async bounded(attempt: Promise<boolean>): Promise<boolean> {
    const ms = this.o.renewDeadlineMs / 2;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the API server did not answer the lease request within ${ms} ms`)), ms);
    });
    // An abandoned attempt that fails later is nobody's news.
    attempt.catch(() => undefined);
    try {
      return await Promise.race([attempt, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async tryAcquireOrRenew(): Promise<boolean> {
    const { namespace, name, identity } = this.o;
    const now = new Date();
    const spec = {
      holderIdentity: identity,
      leaseDurationSeconds: Math.ceil(this.o.leaseDurationMs / 1000),
      renewTime: microTime(now.getTime()),
    };
    let lease: Lease;
    try {
      lease = await this.read();
    } catch (e) {
      if (statusCodeOf(e) !== 404) throw e;
      try {
        await this.rest.json("POST", leases(namespace), {
          body: {
            apiVersion: "coordination.k8s.io/v1",
            kind: "Lease",
            metadata: { name, namespace },
            spec: { ...spec, acquireTime: microTime(now.getTime()), leaseTransitions: 0 },
          },
        });
        return true;
      } catch (err) {
        if (statusCodeOf(err) === 409) return false;
        throw err;
      }
    }
    const holder = lease.spec?.holderIdentity ?? "";
    if (holder !== "" && holder !== identity) {
      // Another replica holds it: it expires when its record has not changed for a lease duration,
      // measured on our clock (clocks of replicas may differ).
      const record = `${holder}|${String(lease.spec?.renewTime)}|${lease.metadata?.resourceVersion ?? ""}`;
      if (this.observed?.record !== record) this.observed = { record, at: Date.now() };
      const duration = (lease.spec?.leaseDurationSeconds ?? 15) * 1000;
      if (Date.now() - this.observed.at < duration) return false;
    }
    const taking = holder !== identity;
    try {
      await this.replace({
        ...lease,
        spec: {
          ...lease.spec,
          ...spec,
          ...(taking ? { acquireTime: microTime(now.getTime()), leaseTransitions: (lease.spec?.leaseTransitions ?? 0) + 1 } : {}),
        },
      });
      return true;
    } catch (e) {
      if (statusCodeOf(e) === 409) return false;
      throw e;
    }
  }

  private async read(): Promise<Lease> {
    return await this.rest.json<Lease>("GET", `${leases(this.o.namespace)}/${encodeURIComponent(this.o.name)}`);
  }

  /** Replaces the lease; the resourceVersion it carries makes a concurrent change fail with 409. */
  private async replace(lease: Lease): Promise<void> {
    await this.rest.json("PUT", `${leases(this.o.namespace)}/${encodeURIComponent(this.o.name)}`, {
      body: { apiVersion: "coordination.k8s.io/v1", kind: "Lease", ...lease },
    });
  }
}
