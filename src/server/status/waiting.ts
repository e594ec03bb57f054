// What each cluster will take at its next window: the changes waiting across the fleet, from pushed status, by revision and by the opening that releases them.

import type { PushedCluster } from "./store.ts";

/** How many cluster names a group lists; the count says how many there are. */
export const WAITING_NAMES_SHOWN = 50;

/** The clusters of one revision that one opening releases: the same windows, the same state, the same next change. */
export interface WaitingRelease {
  /** When they take it: their windows' next change (the opening while closed; the freeze's end while frozen), RFC 3339; null when unknown (none is due). */
  at: string | null;
  /** The state holding them now: "closed" until a window opens, "frozen" until a freeze ends, "open" when it is being taken. */
  state: string | null;
  /** The windows that govern the targets, as the clusters' controllers name them. */
  windows: string | null;
  clusters: number;
  /** The first WAITING_NAMES_SHOWN clusters, by name. */
  names: string[];
  /** The clusters' zones (fluxgate.yaml), distinct, sorted: where "tonight" is. */
  timeZones: string[];
  /** How many of them are stale: what they pushed last may be out of date. */
  stale: number;
}

/** One revision waiting somewhere in the fleet. */
export interface WaitingRevision {
  revision: string;
  /** Clusters with a target waiting on it, and targets. */
  clusters: number;
  targets: number;
  /** Since when the longest of them waits (RFC 3339). */
  oldestSince: string | null;
  /** By when they take it, the soonest first; the unknown last. */
  releases: WaitingRelease[];
}

/** GET /fleet/waiting. */
export interface FleetWaiting {
  revisions: WaitingRevision[];
  totals: { revisions: number; clusters: number; targets: number };
}

/** A cluster of fluxgate.yaml as the view needs it. */
export interface WaitingCluster {
  name: string;
  timeZone: string;
}

/** A revision's clusters and targets while the view is gathered. */
interface Gathered {
  targets: number;
  clusters: Set<string>;
  oldest: string | null;
  releases: Map<string, GatheredRelease>;
}
interface GatheredRelease {
  at: string | null;
  state: string | null;
  windows: string | null;
  clusters: Map<string, WaitingCluster>;
  stale: Set<string>;
}

function releaseKey(at: string | null, state: string | null, windows: string | null): string {
  return JSON.stringify([at, state, windows]);
}

/**
 * The fleet's waiting changes from what the clusters (`clusters`, of fluxgate.yaml, in order)
 * pushed: each revision with the clusters whose targets wait on it, grouped by when and by what
 * they take it. A cluster counts once per release group, whatever its number of targets waiting.
 * The biggest revision first (most clusters), then by name.
 *
 * @example fleetWaiting([{ name: "edge-berlin", timeZone: "Europe/Berlin" }], pushed, now, 900_000).revisions[0]?.releases[0]?.at // "2026-11-23T21:00:00Z"
 */
export function fleetWaiting(clusters: readonly WaitingCluster[], pushed: readonly PushedCluster[], now: number, staleAfterMs: number): FleetWaiting {
  const byName = new Map(pushed.map((p) => [p.cluster, p]));
  const revisions = new Map<string, Gathered>();
  let targets = 0;
  const waitingClusters = new Set<string>();
  for (const cluster of clusters) {
    const p = byName.get(cluster.name);
    if (p === undefined) continue;
    const stale = now - Date.parse(p.lastHeard) > staleAfterMs;
    for (const t of p.targets) {
      if (t.pendingRevision === null || t.pendingRevision === "") continue;
      targets += 1;
      waitingClusters.add(cluster.name);
      const r: Gathered = revisions.get(t.pendingRevision) ?? {
        targets: 0,
        clusters: new Set<string>(),
        oldest: null,
        releases: new Map<string, GatheredRelease>(),
      };
      revisions.set(t.pendingRevision, r);
      r.targets += 1;
      r.clusters.add(cluster.name);
      const since = t.pendingSince === null || t.pendingSince === "" ? t.lastEventAt : t.pendingSince;
      if (r.oldest === null || Date.parse(since) < Date.parse(r.oldest)) r.oldest = since;
      const at = t.nextChange === null || t.nextChange === "" ? null : t.nextChange;
      const windows = t.windows === "" ? null : t.windows;
      const key = releaseKey(at, t.state, windows);
      const g: GatheredRelease = r.releases.get(key) ?? { at, state: t.state, windows, clusters: new Map<string, WaitingCluster>(), stale: new Set<string>() };
      r.releases.set(key, g);
      g.clusters.set(cluster.name, cluster);
      if (stale) g.stale.add(cluster.name);
    }
  }
  const out: WaitingRevision[] = [...revisions].map(([revision, r]) => ({
    revision,
    clusters: r.clusters.size,
    targets: r.targets,
    oldestSince: r.oldest,
    releases: [...r.releases.values()]
      .map((g) => {
        const names = [...g.clusters.keys()].sort();
        return {
          at: g.at,
          state: g.state,
          windows: g.windows,
          clusters: names.length,
          names: names.slice(0, WAITING_NAMES_SHOWN),
          timeZones: [...new Set([...g.clusters.values()].map((c) => c.timeZone))].sort(),
          stale: g.stale.size,
        };
      })
      .sort((a, b) => (a.at === null ? 1 : b.at === null ? -1 : Date.parse(a.at) - Date.parse(b.at)) || b.clusters - a.clusters),
  }));
  out.sort((a, b) => b.clusters - a.clusters || a.revision.localeCompare(b.revision));
  return { revisions: out, totals: { revisions: out.length, clusters: waitingClusters.size, targets } };
}
