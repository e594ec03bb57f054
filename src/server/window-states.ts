// The fluxgate_serve_windows gauge, counted once per commit and again only when a window changes state, not at every scrape.

import type { Gauge } from "prom-client";
import type { Fleet } from "./model.ts";
import { windowView } from "./views.ts";

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
