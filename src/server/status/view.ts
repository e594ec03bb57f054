// What the API shows of pushed status: per cluster (heard when, stale or not, its targets) and fleet-wide totals.

import type { PushedCluster } from "./store.ts";
import { observedOf, pushedProblem, upcomingWindows, type StatusSource, type TargetStatusView, type UpcomingWindowView } from "./newest.ts";

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
  /** Targets decided closed or frozen that, as observed, are not held (spec.suspend set back, the gate bypassed) or applied a change anyway. */
  diverged: number;
  /** The coming openings and freeze starts the cluster's windows announced (spec.notice), one per window, soonest first: from what it pushed. */
  upcoming: UpcomingWindowView[];
  /**
   * Where the figures come from: `live` when the service read the cluster through its context now (newer than any event), `pushed`, or null when neither has
   * anything.
   */
  source: StatusSource | null;
}

/** GET /fleet/status. */
export interface FleetPushStatus {
  /** The threshold after which a silent cluster counts as stale (seconds). */
  staleAfterSeconds: number;
  clusters: ClusterPushView[];
  totals: {
    clusters: number;
    reporting: number;
    stale: number;
    never: number;
    targets: number;
    waiting: number;
    oldestWaitingSince: string | null;
    diverged: number;
  };
}

/** What the fleet counts of a target, whichever source it comes from. */
interface Counted {
  pendingRevision: string | null;
  pendingSince: string | null;
  /** When its source last said anything of it. */
  at: string;
  diverged: boolean;
}

function waitingSince(t: Counted): string | null {
  return t.pendingRevision === null ? null : (t.pendingSince ?? t.at);
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
 * The fleet's status for the clusters of fluxgate.yaml (`names`, in order): what each pushed, or,
 * for a cluster read live just now (`live`), its targets from the newest source. Clusters that
 * pushed but are no longer in fluxgate.yaml are left out.
 */
export function fleetPushStatus(
  names: readonly string[],
  pushed: readonly PushedCluster[],
  now: number,
  staleAfterMs: number,
  live: ReadonlyMap<string, { targets: TargetStatusView[] }> = new Map(),
): FleetPushStatus {
  const byName = new Map(pushed.map((p) => [p.cluster, p]));
  const clusters = names.map((name): ClusterPushView => {
    const p = byName.get(name) ?? null;
    const read = live.get(name);
    const targets: Counted[] =
      read !== undefined
        ? read.targets.map((t) => ({ pendingRevision: t.pendingRevision, pendingSince: t.pendingSince, at: t.asOf, diverged: t.diverged }))
        : (p?.targets ?? []).map((t) => ({
            pendingRevision: t.pendingRevision,
            pendingSince: t.pendingSince,
            at: t.lastEventAt,
            diverged: observedOf({ ...t, problem: pushedProblem(t) }).diverged,
          }));
    const waits = targets.map(waitingSince);
    return {
      cluster: name,
      reporting: reportingOf(p, now, staleAfterMs),
      lastHeard: p?.lastHeard ?? null,
      targets: targets.length,
      waiting: waits.filter((w) => w !== null).length,
      oldestWaitingSince: earliest(waits),
      diverged: targets.filter((t) => t.diverged).length,
      upcoming: upcomingWindows(p?.targets ?? [], now),
      source: read !== undefined ? "live" : p === null ? null : "pushed",
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
      diverged: clusters.reduce((n, c) => n + c.diverged, 0),
    },
  };
}
