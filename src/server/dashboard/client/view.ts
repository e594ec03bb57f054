/// <reference lib="dom" />
// What the fleet page shows, kept in the address (`#/?selector=ring%3Dprod&zoom=month...`): a reload or a shared link opens the same view.

export const DAY = 86_400_000;

/** Zoom levels: how many days the timeline spans. The longest is the API's limit (93 days). */
export const ZOOMS = { day: 1, week: 7, month: 31, quarter: 93 } as const;
export type Zoom = keyof typeof ZOOMS;

/** Which lanes each cluster shows: its targets' decisions (the default), its windows, or both. */
export type Lanes = "targets" | "windows" | "all";

export interface FleetView {
  /** Part of a cluster's name, any case. */
  search: string;
  /** A Kubernetes label selector on the clusters' fluxgate.yaml labels. */
  selector: string;
  /** A label key to group clusters by; "" for no groups. */
  group: string;
  /** The first UTC day shown, as `YYYY-MM-DD`. */
  from: string;
  zoom: Zoom;
  lanes: Lanes;
  /** The chosen cluster: scrolled to and marked. */
  cluster: string;
  /** The chosen band of that cluster: `LANE@START`, e.g. `window:apps-rw@2026-11-26T23:00:00Z`. */
  band: string;
}

/** `YYYY-MM-DD` of the UTC day holding `t`. */
export function dayOf(t: number): string {
  return new Date(Math.floor(t / DAY) * DAY).toISOString().slice(0, 10);
}

/** The default view: the whole fleet, this week from today (UTC), target lanes. */
export function defaultView(now: number): FleetView {
  return { search: "", selector: "", group: "", from: dayOf(now), zoom: "week", lanes: "targets", cluster: "", band: "" };
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The view in a hash such as `#/?zoom=month&from=2026-12-01`; what is missing or unreadable takes its default. */
export function viewOf(hash: string, now: number): FleetView {
  const view = defaultView(now);
  const query = hash.includes("?") ? hash.slice(hash.indexOf("?") + 1) : "";
  const params = new URLSearchParams(query);
  view.search = params.get("search") ?? "";
  view.selector = params.get("selector") ?? "";
  view.group = params.get("group") ?? "";
  const from = params.get("from");
  if (from !== null && DATE.test(from) && !Number.isNaN(Date.parse(`${from}T00:00:00Z`))) view.from = from;
  const zoom = params.get("zoom");
  if (zoom !== null && Object.hasOwn(ZOOMS, zoom)) view.zoom = zoom as Zoom;
  const lanes = params.get("lanes");
  if (lanes === "targets" || lanes === "windows" || lanes === "all") view.lanes = lanes;
  view.cluster = params.get("cluster") ?? "";
  view.band = params.get("band") ?? "";
  return view;
}

/** The hash of a view: only what differs from the default, so a plain fleet page stays `#/`. */
export function hashOf(view: FleetView, now: number): string {
  const base = defaultView(now);
  const params = new URLSearchParams();
  for (const key of ["search", "selector", "group", "from", "zoom", "lanes", "cluster", "band"] as const) {
    if (view[key] !== base[key]) params.set(key, view[key]);
  }
  const query = params.toString();
  return query === "" ? "#/" : `#/?${query}`;
}

/** The range a view shows, in epoch milliseconds. */
export function rangeOf(view: FleetView): { from: number; to: number } {
  const from = Date.parse(`${view.from}T00:00:00Z`);
  return { from, to: from + ZOOMS[view.zoom] * DAY };
}

/** The view moved by whole spans (-1 earlier, +1 later). */
export function shifted(view: FleetView, by: number): FleetView {
  const { from } = rangeOf(view);
  return { ...view, from: dayOf(from + by * ZOOMS[view.zoom] * DAY), band: "" };
}
