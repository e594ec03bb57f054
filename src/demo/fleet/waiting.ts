// The changes waiting across the fleet as the demo tells them, from the Config Service's GET /fleet/waiting.

import type { FleetWaiting, WaitingRelease } from "../../server/status/waiting.ts";
import { clock, shortRevision } from "../snapshot.ts";

export type { FleetWaiting };

/** `09:00 Europe/Berlin`: the local time of `at` in `zone`. */
function local(at: string, zone: string): string {
  return `${new Intl.DateTimeFormat("en-GB", { timeZone: zone, hour: "2-digit", minute: "2-digit", hourCycle: "h23" }).format(Date.parse(at))} ${zone}`;
}

function release(g: WaitingRelease, first: boolean): string {
  const who = `${g.clusters}${first ? (g.clusters === 1 ? " takes it" : " take it") : ""}`;
  if (g.at === null) return `${who} at no planned time (${g.state ?? "?"})`;
  const how = g.state === "frozen" ? "when the freeze ends" : g.state === "open" ? "now" : `at ${clock(Date.parse(g.at)).slice(0, 5)} UTC`;
  const zones = g.state === "closed" ? ` (${g.timeZones.map((z) => local(g.at as string, z)).join(", ")})` : "";
  return `${who} ${how}${zones}: ${g.names.join(", ")}`;
}

/**
 * One sentence per revision: "main@1a2b3c4 waits on 3 clusters; 2 take it at 08:00 UTC (09:00 Europe/Berlin, 03:00 America/New_York): edge-berlin,
 * edge-newyork; 1 at 08:01 UTC (17:01 Asia/Tokyo): edge-tokyo".
 */
export function waitingLines(view: FleetWaiting): string[] {
  return view.revisions.map(
    (r) =>
      `${shortRevision(r.revision)} waits on ${r.clusters} cluster${r.clusters === 1 ? "" : "s"}; ${r.releases.map((g, i) => release(g, i === 0)).join("; ")}`,
  );
}
