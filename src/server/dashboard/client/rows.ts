/// <reference lib="dom" />
// The fleet timeline's rows: a flat list (group, cluster, lane, details) of known heights, and one component per row that draws again only when its own data
// changed.

import { html } from "htm/preact";
import { Component, type VNode } from "preact";
import type { FleetClusterView } from "../../routes/fleet-clusters.ts";
import type { ClusterTimeline, TargetTimeline, WindowTimeline } from "../../views/views.ts";
import type { ClusterItem, Loaded } from "./api.ts";
import { zoneChanges } from "./axis.ts";
import type { LaneOrigin as LaneOriginComponent } from "./fleet-patch.ts";
import { Lazy, type Later } from "./lazy.ts";
import { clock, localTime } from "./time.ts";
import { BandDetails, Lane, stateNow, stateText, TargetLane, targetStateText, type BandInfo } from "./timeline.ts";

/** Where a window lane's window comes from, shown in its band's details: loaded as it is first shown, with the patch editor's modules. */
const LaneOrigin: Later<Parameters<typeof LaneOriginComponent>[0]> = () => import("./fleet-patch.ts").then((m) => m.LaneOrigin);

/** Heights in pixels, so where each row goes is known before it is drawn. */
export const HEIGHTS = { group: 36, head: 48, lane: 52, note: 52, details: 210 } as const;

export type LaneOf = { type: "target"; target: TargetTimeline } | { type: "window"; window: WindowTimeline };

export type Row =
  | { kind: "group"; key: string; label: string; count: number }
  | { kind: "head"; key: string; cluster: ClusterItem; windows: number | null }
  | { kind: "lane"; key: string; cluster: ClusterItem; lane: LaneOf; laneKey: string }
  | { kind: "note"; key: string; cluster: ClusterItem; text: string; failed: boolean }
  | { kind: "details"; key: string; cluster: ClusterItem; window: string | null };

/** The key of a lane in the address (`band=LANE@START`). */
export function laneKeyOf(lane: LaneOf): string {
  return lane.type === "target" ? `target:${lane.target.kind}/${lane.target.namespace}/${lane.target.name}` : `window:${lane.window.name}`;
}

export function heightOf(row: Row): number {
  return row.kind === "details"
    ? HEIGHTS.details
    : row.kind === "group"
      ? HEIGHTS.group
      : row.kind === "head"
        ? HEIGHTS.head
        : row.kind === "note"
          ? HEIGHTS.note
          : HEIGHTS.lane;
}

/** Everything a row is drawn from; a row draws again only when one of these is not the same value as before. */
export interface RowProps {
  row: Row;
  top: number;
  from: number;
  to: number;
  now: number;
  /** The cluster's status, as GET /fleet/clusters gives it (head rows). */
  status: Loaded<FleetClusterView> | null;
  /** The chosen band, given only to the lane (and the details row) that holds it. */
  chosen: BandInfo | null;
  /** The cluster is the chosen one (head rows). */
  selected: boolean;
  /** Its window lanes are shown (head rows). */
  expanded: boolean;
  /** How many of a lane's bands are drawn yet (null: all): a lane that came on the page is drawn over as many frames as its bands take. */
  bands: number | null;
  onChoose: (b: BandInfo, laneKey: string) => void;
  onClose: () => void;
  onToggle: (cluster: string) => void;
  onRetry: (cluster: string) => void;
}

/** Rows compare their props one by one: drawing 1,000 clusters again for one answer is what froze the page. */
export class RowView extends Component<RowProps> {
  override shouldComponentUpdate(next: RowProps): boolean {
    const now = this.props as unknown as Record<string, unknown>;
    const then = next as unknown as Record<string, unknown>;
    for (const key of Object.keys(then)) if (now[key] !== then[key]) return true;
    return false;
  }

  override render(): VNode {
    const p = this.props;
    const r = p.row;
    const style = { transform: `translateY(${p.top}px)`, height: `${heightOf(r)}px` };
    if (r.kind === "group") {
      const count = `${r.count} cluster${r.count === 1 ? "" : "s"}`;
      return html`<div class="vrow group-head" role="row" style=${style} data-group=${r.label}><div class="label fit" role="rowheader" title=${`${r.label} ${count}`}><strong>${r.label}</strong> <span class="muted">${count}</span></div></div>`;
    }
    const k = r.cluster;
    if (r.kind === "head")
      return html`<div class="vrow" role="row" style=${style} data-cluster=${k.name} data-status=${p.status?.state ?? "loading"}>${clusterHead(p, k, r.windows)}</div>`;
    if (r.kind === "note") {
      return html`<div class="vrow" role="row" style=${style} data-cluster=${k.name}><div class="row lane note"><div class=${`label${r.failed ? " error" : " muted"}`} role="cell">${r.text}${r.failed ? html` <button type="button" onClick=${() => p.onRetry(k.name)}>Try again</button>` : null}</div></div></div>`;
    }
    if (r.kind === "details") {
      // A window lane's details also say where the window comes from (the cluster's own file, or a fleet window and its patch).
      return html`<div class="vrow details-row" style=${style} data-cluster=${k.name}><${BandDetails} band=${p.chosen} onClose=${p.onClose} extra=${r.window === null ? null : html`<${Lazy} load=${LaneOrigin} props=${{ cluster: k.name, window: r.window }} />`} /></div>`;
    }
    const onChoose = (b: BandInfo): void => p.onChoose(b, r.laneKey);
    if (r.lane.type === "window") {
      const w = r.lane.window;
      const state = stateText(w, p.now, k.timeZone);
      return html`<div class="vrow" role="row" style=${style} data-cluster=${k.name}><div class="row lane" data-window=${w.name}>
        <div class="label" role="rowheader">
          <a class="fit" href=${`#/c/${encodeURIComponent(k.name)}/w/${encodeURIComponent(w.name)}`} title=${w.name}>${w.name}</a>
          <span class=${`state ${stateNow(w, p.now)} fit`} title=${state}>${state}</span>
        </div>
        <div role="cell" class="cell"><${Lane} cluster=${k.name} zone=${k.timeZone} window=${w} from=${p.from} to=${p.to} now=${p.now} onChoose=${onChoose} chosen=${p.chosen} limit=${p.bands} /></div>
      </div></div>`;
    }
    const t = r.lane.target;
    const windows = ` · ${t.windows.join(" + ")}`;
    const state = targetStateText(t, p.now);
    return html`<div class="vrow" role="row" style=${style} data-cluster=${k.name}><div class="row lane target-lane" data-target=${`${t.kind}/${t.namespace}/${t.name}`}>
      <div class="label" role="rowheader">
        <span class="fit" title=${`${t.kind} ${t.name}${windows}`}><span class="target-name">${t.kind} ${t.name}</span><span class="muted">${windows}</span></span>
        <span class="state fit" title=${state}>${state}</span>
      </div>
      <div role="cell" class="cell"><${TargetLane} cluster=${k.name} zone=${k.timeZone} target=${t} from=${p.from} to=${p.to} now=${p.now} onChoose=${onChoose} chosen=${p.chosen} limit=${p.bands} /></div>
    </div></div>`;
  }
}

/**
 * A cluster's head: its name, zone and clock (with the zone's abbreviation and any change of it in the range), labels, pending count, and the button for its
 * window lanes.
 */
function clusterHead(p: RowProps, k: ClusterItem, windows: number | null): VNode {
  const live = p.status?.state === "done" ? p.status.value.live : null;
  const pending = live !== null && live.live ? live.pending.length : null;
  const shifts = zoneChanges(k.timeZone, p.from, p.to);
  const labels = Object.entries(k.labels);
  const zone = `${k.timeZone} · ${clock(p.now, k.timeZone)}`;
  // One line each, a long name or zone ending in an ellipsis (its whole text in its title): a wrapped line would fall below the row, hidden. The clock is never
  // cut.
  return html`<div class=${`row cluster-head${p.selected ? " selected" : ""}`}>
    <div class="label" role="rowheader">
      <span class="head-line">
        <a class="fit" href=${`#/c/${encodeURIComponent(k.name)}`} title=${k.name}><strong>${k.name}</strong></a>
        ${pending !== null ? html`<span class=${`badge${pending > 0 ? " pending" : ""}`}>${pending} pending</span>` : null}
      </span>
      <span class="zone" title=${zone}><span class="zone-name fit" title=${k.timeZone}>${k.timeZone}</span><span class="clock">${` · ${clock(p.now, k.timeZone)}`}</span></span>
    </div>
    <div class="track-head">
      ${labels.length > 0 ? html`<span class="labels" aria-label="Labels">${labels.map(([key, value]) => html`<code class="chip">${key}=${value}</code>`)}</span>` : null}
      ${shifts.map((s) => html`<span class="zone-change" data-testid="zone-change">${s.before} → ${s.after} at ${localTime(s.at, k.timeZone)}</span>`)}
      ${
        windows === null || windows === 0
          ? null
          : html`<button type="button" class="lanes-toggle" aria-expanded=${p.expanded} onClick=${() => p.onToggle(k.name)}>${p.expanded ? "Hide" : "Show"} ${windows} window lane${windows === 1 ? "" : "s"}</button>`
      }
    </div>
  </div>`;
}

/**
 * A cluster's rows: its head, then its lanes (targets, windows, or both), a note while it loads or when it failed, the chosen band's details under its lane.
 */
export function clusterRows(
  k: ClusterItem,
  timeline: Loaded<ClusterTimeline>,
  options: { targets: boolean; windows: boolean; expanded: boolean; estimate: number; chosenLane: string | null },
): Row[] {
  if (timeline.state !== "done") {
    const head: Row = { kind: "head", key: `h:${k.name}`, cluster: k, windows: null };
    if (timeline.state === "failed")
      return [head, { kind: "note", key: `n:${k.name}`, cluster: k, text: `Could not load the timeline: ${timeline.message}`, failed: true }];
    return [
      head,
      ...Array.from({ length: options.estimate }, (_, i): Row => ({ kind: "note", key: `n:${k.name}:${i}`, cluster: k, text: "Loading…", failed: false })),
    ];
  }
  const t = timeline.value;
  // Window lanes are a detail of a target view: a button per cluster shows them.
  const rows: Row[] = [{ kind: "head", key: `h:${k.name}`, cluster: k, windows: options.targets && !options.windows ? t.windows.length : null }];
  const lanes: LaneOf[] = [];
  if (options.targets) lanes.push(...t.targets.map((target): LaneOf => ({ type: "target", target })));
  if (options.windows || options.expanded) lanes.push(...t.windows.map((window): LaneOf => ({ type: "window", window })));
  if (t.windows.length === 0) rows.push({ kind: "note", key: `n:${k.name}`, cluster: k, text: "no windows", failed: false });
  else if (lanes.length === 0)
    rows.push({ kind: "note", key: `n:${k.name}`, cluster: k, text: "no targets: no window selects a target declared here", failed: false });
  for (const lane of lanes) {
    const laneKey = laneKeyOf(lane);
    rows.push({ kind: "lane", key: `l:${k.name}:${laneKey}`, cluster: k, lane, laneKey });
    if (laneKey === options.chosenLane)
      rows.push({ kind: "details", key: `d:${k.name}`, cluster: k, window: lane.type === "window" ? lane.window.name : null });
  }
  return rows;
}
