/// <reference lib="dom" />
// Lanes of a timeline: allow and freeze bands, overrides and a "now" line, each band a button; a chosen band's exact times; the legend.

import { html } from "htm/preact";
import type { VNode } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import type { TargetTimeline, WindowTimeline } from "../../views/views.ts";
import { hourMinute, length, localTime, utcTime } from "./time.ts";

const DAY = 86_400_000;

/** What a band stands for, shown when it is chosen. */
export interface BandInfo {
  kind: "open" | "frozen" | "override-open" | "override-freeze";
  cluster: string;
  window: string;
  zone: string;
  start: string;
  end: string;
  note: string;
}

const KIND_TEXT: Record<BandInfo["kind"], string> = {
  open: "Open",
  frozen: "Frozen",
  "override-open": "Override: open",
  "override-freeze": "Override: freeze",
};

/**
 * Each band's description, made once: a screen of lanes draws thousands of bands, each with four formatted instants, and draws them again as it is resized or a
 * band is chosen.
 */
const descriptions = new WeakMap<BandInfo, string>();

function describe(b: BandInfo): string {
  let text = descriptions.get(b);
  if (text === undefined) {
    text = describeNow(b);
    descriptions.set(b, text);
  }
  return text;
}

function describeNow(b: BandInfo): string {
  return `${KIND_TEXT[b.kind]}: ${b.window} on ${b.cluster}, ${localTime(b.start, b.zone)} to ${localTime(b.end, b.zone)} (${utcTime(b.start)} to ${utcTime(b.end)})${b.note ? `. ${b.note}` : ""}`;
}

/** A lane's bands, by the timeline they were made from (the same object while its answer does not change), so they are made once and described once. */
const laneBands = new WeakMap<WindowTimeline | TargetTimeline, { cluster: string; zone: string; bands: BandInfo[] }>();

function keptBands<T extends WindowTimeline | TargetTimeline>(
  cluster: string,
  zone: string,
  lane: T,
  make: (cluster: string, zone: string, lane: T) => BandInfo[],
): BandInfo[] {
  const kept = laneBands.get(lane);
  if (kept !== undefined && kept.cluster === cluster && kept.zone === zone) return kept.bands;
  const bands = make(cluster, zone, lane);
  laneBands.set(lane, { cluster, zone, bands });
  return bands;
}

export function bandsOf(cluster: string, zone: string, w: WindowTimeline): BandInfo[] {
  return keptBands(cluster, zone, w, makeBands);
}

function makeBands(cluster: string, zone: string, w: WindowTimeline): BandInfo[] {
  const windowZone = w.timeZone ?? zone;
  const base = { cluster, window: w.name, zone: windowZone };
  return [
    ...w.open.map((i): BandInfo => ({ ...base, kind: "open", start: i.start, end: i.end, note: "Targets may take changes." })),
    ...w.freezes.map((i): BandInfo => ({ ...base, kind: "frozen", start: i.start, end: i.end, note: i.reason ?? `Freeze ${i.label}` })),
    ...w.overrides.map((o): BandInfo => ({
      ...base,
      kind: o.action === "Open" ? "override-open" : "override-freeze",
      start: o.start,
      end: o.end,
      note: `${o.name}: ${o.reason}`,
    })),
  ];
}

/** Narrowest band, in pixels, that carries its word; narrower ones keep it in their title and label for screen readers. */
const MIN_LABEL_PX = 56;

/**
 * The width of the last track measured: the fleet's lanes all have the one width, so a lane drawn after another is drawn at its width at once, not drawn again
 * once measured.
 */
let lastWidth = 0;

/** A track's width measured before any lane is drawn (the fleet's axis is as wide as its lanes): the first lanes are drawn at it, once. */
export function trackWidthSeen(width: number): void {
  if (width > 0) lastWidth = width;
}

/** The width of an element in pixels, kept up to date as the page is resized. */
function useWidth(): [{ current: HTMLDivElement | null }, number] {
  const ref = useRef<HTMLDivElement | null>(null);
  const [width, setWidth] = useState(lastWidth);
  useEffect(() => {
    const element = ref.current;
    if (element === null) return;
    const measure = (): void => {
      lastWidth = element.clientWidth;
      setWidth(lastWidth);
    };
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  return [ref, width];
}

/** Why a window is invalid, in one line. */
export function invalidText(w: WindowTimeline): string {
  const problems = w.problems ?? [];
  return problems.length === 0 ? "the window file is not valid" : problems.map((p) => (p.path ? `${p.path}: ${p.message}` : p.message)).join("; ");
}

/**
 * The bands of a lane as buttons over `[from, to)`: each a word when wide enough, its exact times in its title; the first `limit` of them only, while the rest
 * wait for a later frame (null: all).
 */
function bandButtons(
  all: readonly BandInfo[],
  props: { from: number; to: number; onChoose: (b: BandInfo) => void; chosen: BandInfo | null; limit?: number | null },
  trackWidth: number,
): VNode[] {
  const { from, to } = props;
  const bands = props.limit === undefined || props.limit === null || props.limit >= all.length ? all : all.slice(0, props.limit);
  const span = to - from;
  const left = (t: number): string => `${(Math.max(0, t - from) / span) * 100}%`;
  const width = (s: number, e: number): string => `${((Math.min(e, to) - Math.max(s, from)) / span) * 100}%`;
  const pixels = (s: number, e: number): number => ((Math.min(e, to) - Math.max(s, from)) / span) * trackWidth;
  return bands.map((b) => {
    const s = Date.parse(b.start);
    const e = Date.parse(b.end);
    const text = describe(b);
    const chosen =
      props.chosen !== null &&
      props.chosen.start === b.start &&
      props.chosen.window === b.window &&
      props.chosen.kind === b.kind &&
      props.chosen.cluster === b.cluster;
    return html`<button type="button" class=${`band ${b.kind}${chosen ? " chosen" : ""}`} style=${{ left: left(s), width: width(s, e) }} title=${text} aria-label=${text} aria-pressed=${chosen} data-kind=${b.kind} data-start=${b.start} data-end=${b.end} onClick=${() => props.onChoose(b)}>
      ${pixels(s, e) >= MIN_LABEL_PX ? html`<span class="band-label">${b.kind === "open" ? "open" : b.kind === "frozen" ? "frozen" : b.kind === "override-open" ? "override open" : "override freeze"}</span>` : null}
    </button>`;
  });
}

/** Day lines behind a lane: one background, not an element a day (93 days of lanes would be thousands of elements). */
function gridStyle(span: number): Record<string, string> {
  return { backgroundSize: `${(DAY / span) * 100}% 100%` };
}

/** One lane of bands over `[from, to)`; `onChoose` gets the band a person clicks or presses. */
export function Lane(props: {
  cluster: string;
  zone: string;
  window: WindowTimeline;
  from: number;
  to: number;
  now: number;
  onChoose: (b: BandInfo) => void;
  chosen: BandInfo | null;
  /** How many of its bands are drawn yet (null: all). */
  limit?: number | null;
}): VNode {
  const { from, to } = props;
  const span = to - from;
  const [ref, trackWidth] = useWidth();
  const bands = bandsOf(props.cluster, props.zone, props.window);
  const left = (t: number): string => `${(Math.max(0, t - from) / span) * 100}%`;
  if (!props.window.valid) {
    const text = `Invalid: ${invalidText(props.window)}. The controller leaves this window's targets as they are.`;
    return html`<div class="track" ref=${ref} role="group" aria-label=${`Timeline of window ${props.window.name} on ${props.cluster}`}>
      <div class="band invalid" role="note" title=${text} data-kind="invalid"><span class="band-label">⚠ ${text}</span></div>
    </div>`;
  }
  return html`<div class="track grid" ref=${ref} role="group" aria-label=${`Timeline of window ${props.window.name} on ${props.cluster}`} style=${gridStyle(span)}>
    ${bandButtons(bands, props, trackWidth)}
    ${props.now >= from && props.now < to ? html`<span class="now-line" style=${{ left: left(props.now) }} aria-hidden="true"></span>` : null}
  </div>`;
}

/** A target's bands: its combined decision, from every window and override that selects it (as the controller decides). */
export function targetBands(cluster: string, zone: string, t: TargetTimeline): BandInfo[] {
  return keptBands(cluster, zone, t, makeTargetBands);
}

function makeTargetBands(cluster: string, zone: string, t: TargetTimeline): BandInfo[] {
  const base = { cluster, window: `${t.kind} ${t.name}`, zone };
  const by = `Decided by ${t.windows.length === 1 ? "window" : "windows"} ${t.windows.join(", ")} together`;
  return t.segments.flatMap((seg): BandInfo[] => {
    if (seg.state === null || seg.state === "closed") return [];
    const kind: BandInfo["kind"] = seg.overridden ? (seg.state === "open" ? "override-open" : "override-freeze") : seg.state === "open" ? "open" : "frozen";
    const rule =
      seg.cause === null
        ? ""
        : `${seg.cause.kind === "allow" ? "schedule" : seg.cause.kind.startsWith("override") ? "override" : "freeze"} ${seg.cause.label}${seg.cause.reason === undefined ? "" : ` (${seg.cause.reason})`} of window ${seg.cause.window}. `;
    return [{ ...base, kind, start: seg.start, end: seg.end, note: `${rule}${by}.` }];
  });
}

type LaneTimeline = { target: TargetTimeline } | { window: WindowTimeline };

/** How many band buttons a lane draws: its bands, or one note for an invalid window or a held target. Its bands are made once (kept per timeline). */
export function laneBandCount(cluster: string, zone: string, lane: LaneTimeline): number {
  return buttonBands(cluster, zone, lane)?.length ?? 1;
}

/** Makes a lane's bands and their descriptions now, in the task that brought them: the frame that draws them then only draws. */
export function prepareLane(cluster: string, zone: string, lane: LaneTimeline): void {
  for (const b of buttonBands(cluster, zone, lane) ?? []) describe(b);
}

/** The bands a lane draws as buttons; null when it draws one note instead. */
function buttonBands(cluster: string, zone: string, lane: LaneTimeline): BandInfo[] | null {
  if ("target" in lane) return lane.target.segments.some((seg) => seg.effect === "hold") ? null : targetBands(cluster, zone, lane.target);
  return lane.window.valid ? bandsOf(cluster, zone, lane.window) : null;
}

const TARGET_STATE_TEXT: Record<string, string> = { open: "● open", closed: "○ closed", frozen: "❄ frozen" };

/** How a target's row says its decision now. */
export function targetStateText(t: TargetTimeline, now: number): string {
  const s = t.segments.find((seg) => Date.parse(seg.start) <= now && now < Date.parse(seg.end));
  if (s === undefined) return "";
  if (s.effect === "hold") return "⚠ held as it is: a window that selects it is invalid";
  const state = TARGET_STATE_TEXT[s.state ?? "closed"] ?? "";
  return `${s.overridden ? `${state} (overridden)` : state}${s.effect === "gate" ? " · gate" : ""}`;
}

/** One target's lane: what the controller decides for it, all its windows together. */
export function TargetLane(props: {
  cluster: string;
  zone: string;
  target: TargetTimeline;
  from: number;
  to: number;
  now: number;
  onChoose: (b: BandInfo) => void;
  chosen: BandInfo | null;
  /** How many of its bands are drawn yet (null: all). */
  limit?: number | null;
}): VNode {
  const { from, to } = props;
  const span = to - from;
  const [ref, trackWidth] = useWidth();
  const label = `Decision for ${props.target.kind} ${props.target.name} on ${props.cluster}`;
  const left = (t: number): string => `${(Math.max(0, t - from) / span) * 100}%`;
  if (props.target.segments.some((seg) => seg.effect === "hold")) {
    const text = `Held as it is: a window that selects ${props.target.name} (${props.target.windows.join(", ")}) is invalid.`;
    return html`<div class="track" ref=${ref} role="group" aria-label=${label}><div class="band invalid" role="note" title=${text} data-kind="invalid"><span class="band-label">⚠ ${text}</span></div></div>`;
  }
  return html`<div class="track grid" ref=${ref} role="group" aria-label=${label} style=${gridStyle(span)}>
    ${bandButtons(targetBands(props.cluster, props.zone, props.target), props, trackWidth)}
    ${props.now >= from && props.now < to ? html`<span class="now-line" style=${{ left: left(props.now) }} aria-hidden="true"></span>` : null}
  </div>`;
}

/** Details of the chosen band, exact to the minute in the window's zone and in UTC. */
export function BandDetails(props: { band: BandInfo | null; onClose: () => void; extra?: VNode | null }): VNode {
  const b = props.band;
  return html`<section class="details" aria-live="polite" aria-label="Chosen interval">
    ${
      b === null
        ? html`<p class="hint">Choose a band (click, or Tab to it and press Enter) to see its exact times.</p>`
        : html`<div>
          <h3>${KIND_TEXT[b.kind]}: ${b.window} <span class="muted">on ${b.cluster}</span></h3>
          <dl class="times">
            <dt>Local (${b.zone})</dt><dd data-testid="detail-local">${localTime(b.start, b.zone)} → ${localTime(b.end, b.zone)}</dd>
            <dt>UTC</dt><dd data-testid="detail-utc">${utcTime(b.start)} → ${utcTime(b.end)}</dd>
            <dt>Length</dt><dd>${length(Date.parse(b.end) - Date.parse(b.start))}</dd>
            ${b.note ? html`<dt>Why</dt><dd>${b.note}</dd>` : null}
          </dl>
          ${props.extra ?? null}
          <button type="button" onClick=${props.onClose}>Close</button>
        </div>`
    }
  </section>`;
}

/** The legend: every band kind by pattern and word, so colour is never needed to read it. */
export function Legend(): VNode {
  return html`<ul class="legend" aria-label="Legend">
    <li><span class="swatch open" aria-hidden="true"></span> open: targets may take changes</li>
    <li><span class="swatch frozen" aria-hidden="true"></span> frozen: a freeze holds every change</li>
    <li><span class="swatch override-open" aria-hidden="true"></span> override open</li>
    <li><span class="swatch override-freeze" aria-hidden="true"></span> override freeze</li>
    <li><span class="swatch now" aria-hidden="true"></span> now</li>
    <li><span class="swatch invalid" aria-hidden="true"></span> invalid: the controller leaves its targets as they are</li>
    <li class="muted">Blank: closed. The axis is in UTC; each cluster's zone, with its abbreviation, is by its name.</li>
  </ul>`;
}

const STATE_TEXT: Record<string, string> = { open: "● open", closed: "○ closed", frozen: "❄ frozen", invalid: "⚠ invalid" };

/** The state of a window now, from its segments. */
export function stateNow(w: WindowTimeline, now: number): string {
  if (!w.valid) return "invalid";
  const s = w.segments.find((seg) => Date.parse(seg.start) <= now && now < Date.parse(seg.end));
  return s?.state ?? "closed";
}

/** How a window's row says its state now: an override in force is named, with until when, by whom and why. */
export function stateText(w: WindowTimeline, now: number, zone: string): string {
  const state = stateNow(w, now);
  if (!w.valid) return `${STATE_TEXT.invalid}: ${invalidText(w)}`;
  const o = w.overrides.find((band) => Date.parse(band.start) <= now && now < Date.parse(band.end));
  if (o === undefined) return STATE_TEXT[state] ?? state;
  const what = o.action === "Open" ? "open" : "frozen";
  return `${o.action === "Open" ? "●" : "❄"} overridden (${what} until ${hourMinute(o.end, w.timeZone ?? zone)}${o.by === undefined ? "" : `, by ${o.by}`}: ${o.reason})`;
}
