/// <reference lib="dom" />
// The fleet timeline's date header, by zoom: hours of a day, days of a week or month, weeks of a quarter; and where a zone changes its clock.

import { html } from "htm/preact";
import type { VNode } from "preact";
import { utcDay, zoneAbbreviation } from "./time.ts";
import { DAY } from "./view.ts";

const HOUR = 3_600_000;

function dayLabel(t: number): VNode {
  return html`<span class="long">${utcDay(t)}</span><span class="short" aria-hidden="true">${utcDay(t).replace(/ \S+$/, "")}</span>`;
}

/**
 * The axis over `[from, to)` in UTC. A day shows every hour; a week, its days and 6-hour ticks
 * (noon only where the screen is narrow); a month, its days; a quarter, its weeks (Mondays) over day lines.
 */
export function Axis(props: { from: number; to: number; now: number; title: string }): VNode {
  const span = props.to - props.from;
  const days = Math.round(span / DAY);
  const at = (t: number): string => `${((t - props.from) / span) * 100}%`;
  let marks: VNode[];
  if (days === 1) {
    marks = [
      html`<span class="day" style=${{ left: "0%", width: "100%" }}>${dayLabel(props.from)}</span>`,
      ...Array.from(
        { length: 23 },
        (_, i) =>
          html`<span class=${`hour-tick${(i + 1) % 3 === 0 ? " noon" : ""}`} aria-hidden="true" style=${{ left: at(props.from + (i + 1) * HOUR) }}>${String(i + 1).padStart(2, "0")}</span>`,
      ),
    ];
  } else if (days <= 7) {
    marks = [
      ...Array.from(
        { length: days },
        (_, i) => html`<span class="day" style=${{ left: at(props.from + i * DAY), width: `${100 / days}%` }}>${dayLabel(props.from + i * DAY)}</span>`,
      ),
      ...Array.from({ length: days * 4 }, (_, i) =>
        i % 4 === 0
          ? null
          : html`<span class=${i % 4 === 2 ? "hour-tick noon" : "hour-tick"} aria-hidden="true" style=${{ left: at(props.from + i * 6 * HOUR) }}>${String((i % 4) * 6).padStart(2, "0")}</span>`,
      ).filter((m): m is VNode => m !== null),
    ];
  } else if (days <= 31) {
    marks = Array.from({ length: days }, (_, i) => {
      const t = props.from + i * DAY;
      const d = new Date(t);
      return html`<span class="day compact" style=${{ left: at(t), width: `${100 / days}%` }} title=${utcDay(t)}>${d.getUTCDate() === 1 || i === 0 ? utcDay(t).replace(/^\S+ /, "") : String(d.getUTCDate())}</span>`;
    });
  } else {
    const firstMonday = props.from + ((8 - new Date(props.from).getUTCDay()) % 7) * DAY;
    marks = [];
    for (let t = firstMonday; t < props.to; t += 7 * DAY) {
      marks.push(
        html`<span class="week" style=${{ left: at(t), width: `${((7 * DAY) / span) * 100}%` }} title=${`week from ${utcDay(t)}`}>${utcDay(t).replace(/^\S+ /, "")}</span>`,
      );
    }
  }
  return html`<div class="row axis" role="row">
    <div class="label" role="columnheader"><span>${props.title}</span><span class="hint">UTC</span></div>
    <div class="days grid" role="columnheader" style=${{ backgroundSize: `${(DAY / span) * 100}% 100%` }}>
      ${marks}
      ${props.now >= props.from && props.now < props.to ? html`<span class="now-label" style=${{ left: at(props.now) }}>now</span>` : null}
    </div>
  </div>`;
}

/** A change of a zone's clock (summer time starting or ending) within a range. */
export interface ZoneChange {
  at: number;
  before: string;
  after: string;
}

const changes = new Map<string, ZoneChange[]>();

/**
 * Where `zone`'s abbreviation changes within `[from, to)` (CET → CEST), to the minute: found day by
 * day, then by halving the day (clocks change on the hour or half hour, at most a few times a year).
 */
export function zoneChanges(zone: string, from: number, to: number): ZoneChange[] {
  const key = `${zone}|${from}|${to}`;
  const cached = changes.get(key);
  if (cached !== undefined) return cached;
  const out: ZoneChange[] = [];
  let before = zoneAbbreviation(zone, from);
  for (let day = from; day < to; day += DAY) {
    const end = Math.min(day + DAY, to);
    const after = zoneAbbreviation(zone, end - 1);
    if (after === before) continue;
    let lo = day;
    let hi = end - 1;
    while (hi - lo > 60_000) {
      const mid = lo + Math.floor((hi - lo) / 2);
      if (zoneAbbreviation(zone, mid) === before) lo = mid;
      else hi = mid;
    }
    // The change is on a whole minute, the last in (lo, hi].
    out.push({ at: Math.floor(hi / 60_000) * 60_000, before, after });
    before = after;
  }
  changes.set(key, out);
  return out;
}
