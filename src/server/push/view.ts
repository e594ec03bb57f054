// What the API shows of pushed status: per cluster (heard when, stale or not, its targets) and fleet-wide totals.

import type { PushedCluster, PushedTarget } from "./store.ts";

/** A cluster as the fleet status shows it. */
export interface ClusterPushView {
  cluster: string;
  /** `never`: nothing received yet; `stale`: nothing within the stale threshold; `reporting`. */
  reporting: "never" | "stale" | "reporting";
  lastHeard: string | null;
  targets: number;
  /** Targets with a revision waiting for their window. */
  waiting: number;
  /** When the longest-waiting change of the cluster began waiting (RFC 3339), or null. */
  oldestWaitingSince: string | null;
}

/** GET /fleet/status. */
export interface FleetPushStatus {
  /** The threshold after which a silent cluster counts as stale (seconds). */
  staleAfterSeconds: number;
  clusters: ClusterPushView[];
  totals: { clusters: number; reporting: number; stale: number; never: number; targets: number; waiting: number; oldestWaitingSince: string | null };
}

function waitingSince(t: PushedTarget): string | null {
  return t.pendingRevision === null ? null : (t.pendingSince ?? t.lastEventAt);
}

function earliest(times: Array<string | null>): string | null {
  let best: string | null = null;
  for (const t of times) if (t !== null && (best === null || Date.parse(t) < Date.parse(best))) best = t;
  return best;
}

/** How a cluster reports: never, stale (silent past `staleAfterMs`) or reporting. */
export function reportingOf(pushed: PushedCluster | null, now: number, staleAfterMs: number): ClusterPushView["reporting"] {
  if (pushed === null) return "never";
  return now - Date.parse(pushed.lastHeard) > staleAfterMs ? "stale" : "reporting";
}

/**
 * The fleet's pushed status for the clusters of fluxgate.yaml (`names`, in order); clusters that
 * pushed but are no longer in fluxgate.yaml are left out.
 */
export function fleetPushStatus(names: readonly string[], pushed: readonly PushedCluster[], now: number, staleAfterMs: number): FleetPushStatus {
  const byName = new Map(pushed.map((p) => [p.cluster, p]));
  const clusters = names.map((name): ClusterPushView => {
    const p = byName.get(name) ?? null;
    const targets = p?.targets ?? [];
    const waits = targets.map(waitingSince);
    return {
      cluster: name,
      reporting: reportingOf(p, now, staleAfterMs),
      lastHeard: p?.lastHeard ?? null,
      targets: targets.length,
      waiting: waits.filter((w) => w !== null).length,
      oldestWaitingSince: earliest(waits),
    };
  });
  const count = (r: ClusterPushView["reporting"]): number => clusters.filter((c) => c.reporting === r).length;
  return {
    staleAfterSeconds: Math.round(staleAfterMs / 1000),
    clusters,
    totals: {
      clusters: clusters.length,
      reporting: count("reporting"),
      stale: count("stale"),
      never: count("never"),
      targets: clusters.reduce((n, c) => n + c.targets, 0),
      waiting: clusters.reduce((n, c) => n + c.waiting, 0),
      oldestWaitingSince: earliest(clusters.map((c) => c.oldestWaitingSince)),
    },
  };
}
