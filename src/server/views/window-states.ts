// Window states kept per commit until the next change of state: the fluxgate_serve_windows gauge, and each cluster's windows now for GET /fleet/clusters.

import type { Gauge } from "prom-client";
import type { ClusterModel, Fleet } from "../model/model.ts";
import { windowView, type WindowView } from "./views.ts";

/**
 * Counts the windows of a fleet by cluster and state now. The counts hold until the commit moves
 * or the earliest next transition of any window passes, so a scrape of a large fleet costs a
 * lookup, not a run of the time engine over every window.
 */
export class WindowStates {
  private commit: string | null = null;
  private validUntil = 0;
  /** How many times the states were counted (for tests and the bench). */
  counted = 0;

  /** Sets `gauge` from the fleet at `now`; recounts only when needed. */
  update(gauge: Gauge<"cluster" | "state">, fleet: Fleet, now: number): void {
    if (fleet.commit === this.commit && now < this.validUntil) return;
    gauge.reset();
    let next = Number.POSITIVE_INFINITY;
    for (const k of fleet.clusters) {
      for (const w of k.windows) {
        const view = windowView(w, k.overrides, now);
        gauge.inc({ cluster: k.entry.name, state: view.state });
        if (view.nextTransition !== null) next = Math.min(next, Date.parse(view.nextTransition.at));
      }
      // An override that begins or ends changes a state too; its times are in its interval.
      for (const o of k.overrides) for (const at of [o.input?.start, o.input?.end]) if (at !== undefined && at > now) next = Math.min(next, at);
    }
    this.commit = fleet.commit;
    this.validUntil = next;
    this.counted++;
  }
}

/** A window's state now, as GET /fleet/clusters lists it. */
export type WindowStateView = Pick<WindowView, "name" | "state" | "overridden" | "reason" | "nextTransition" | "fleet" | "valid">;

/** The first instant after `now` at which something of the cluster changes state: a window's next transition, an override's start or end. */
function nextChange(k: ClusterModel, views: readonly WindowView[], now: number): number {
  let next = Number.POSITIVE_INFINITY;
  for (const v of views) if (v.nextTransition !== null) next = Math.min(next, Date.parse(v.nextTransition.at));
  for (const o of k.overrides) for (const at of [o.input?.start, o.input?.end]) if (at !== undefined && at > now) next = Math.min(next, at);
  return next;
}

/**
 * Each cluster's windows with their state now, kept per commit until the first of them changes
 * state (or an override begins or ends): a page of a large fleet costs lookups, not a run of the
 * time engine over every window at every request.
 */
export class ClusterStates {
  private commit: string | null = null;
  private readonly entries = new Map<string, { from: number; validUntil: number; windows: WindowStateView[] }>();
  /** How many times a cluster's states were computed (for tests). */
  computed = 0;

  /** The windows of cluster `k` of commit `commit` at `now`. */
  windows(commit: string, k: ClusterModel, now: number): WindowStateView[] {
    if (commit !== this.commit) {
      this.entries.clear();
      this.commit = commit;
    }
    const known = this.entries.get(k.entry.name);
    // A view holds for the stretch between two changes, from the instant it was made at (a clock may go back: a test's does).
    if (known !== undefined && known.from <= now && now < known.validUntil) return known.windows;
    // The next transition is all a fleet page shows of what comes: one looked ahead, not the dozens nextOpen and nextClose may need.
    const views = k.windows.map((w) => windowView(w, k.overrides, now, 1));
    const windows = views.map((v): WindowStateView => ({
      name: v.name,
      valid: v.valid,
      state: v.state,
      overridden: v.overridden,
      reason: v.reason,
      nextTransition: v.nextTransition,
      fleet: v.fleet,
    }));
    this.entries.set(k.entry.name, { from: now, validUntil: nextChange(k, views, now), windows });
    this.computed++;
    return windows;
  }
}
