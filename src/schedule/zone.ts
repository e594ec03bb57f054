// IANA time zones: UTC offsets at an instant, and wall-clock times resolved to instants by fluxgate's DST rules.
//
// Offsets come from the runtime's own zone database (Intl). Each zone's offset changes are found
// once per year (a daily sample, then bisection to the second) and kept in a table, so that the
// evaluator's many look-ups are binary searches rather than calls into Intl.

import { DATE_EDGE_MS, utc } from "./calendar.ts";
import { ScheduleError } from "./errors.ts";

const DAY = 86_400_000;
const SECOND = 1000;
const NONE: readonly number[] = Object.freeze([]);

interface YearTable {
  /** The year's first instant and the next year's. */
  readonly start: number;
  readonly end: number;
  /** Offset in effect at the start of the year (ms to add to UTC to get wall time). */
  readonly initial: number;
  /** Instants within the year where the offset changes, with the new offset. */
  readonly at: readonly number[];
  readonly offset: readonly number[];
}

/** How one zone maps instants to wall-clock times and back. */
export class ZoneRules {
  readonly name: string;
  private readonly format: Intl.DateTimeFormat | null;
  private readonly years = new Map<number, YearTable>();
  /** The last stretch of constant offset looked up: the evaluator asks about nearby instants many times in a row. */
  private spanFrom = 0;
  private spanTo = 0;
  private spanOffset = 0;

  constructor(name: string) {
    this.name = name;
    this.format =
      name === "UTC"
        ? null
        : new Intl.DateTimeFormat("en-US", {
            timeZone: name,
            hourCycle: "h23",
            year: "numeric",
            month: "numeric",
            day: "numeric",
            hour: "numeric",
            minute: "numeric",
            second: "numeric",
            era: "short",
          });
  }

  /** UTC offset in milliseconds at instant `t` (wall = t + offset). */
  offsetAt(t: number): number {
    if (this.format === null) return 0;
    if (t >= this.spanFrom && t < this.spanTo) return this.spanOffset;
    // Beyond the range of a Date (or not a number), the offset at the nearer edge.
    if (!(Math.abs(t) <= DATE_EDGE_MS)) t = t > 0 ? DATE_EDGE_MS : -DATE_EDGE_MS;
    const year = new Date(t).getUTCFullYear();
    const table = this.table(year);
    let lo = 0;
    let hi = table.at.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((table.at[mid] as number) <= t) lo = mid + 1;
      else hi = mid;
    }
    const offset = lo === 0 ? table.initial : (table.offset[lo - 1] as number);
    this.spanFrom = lo === 0 ? table.start : (table.at[lo - 1] as number);
    this.spanTo = lo < table.at.length ? (table.at[lo] as number) : table.end;
    this.spanOffset = offset;
    return offset;
  }

  /** Wall-clock time (as wall milliseconds) at instant `t`. */
  wallAt(t: number): number {
    return t + this.offsetAt(t);
  }

  /**
   * The instant of wall-clock time `wall`. A time that occurs twice (fall-back) resolves to its
   * first instant; a time skipped by a spring-forward gap resolves to the first instant after the gap.
   */
  resolve(wall: number): number {
    if (this.format === null) return wall;
    const before = this.offsetAt(wall - DAY);
    const after = this.offsetAt(wall + DAY);
    const larger = Math.max(before, after);
    const smaller = Math.min(before, after);
    // The larger offset gives the earlier instant: in a repeated hour, that is the first one.
    if (this.offsetAt(wall - larger) === larger) return wall - larger;
    if (this.offsetAt(wall - smaller) === smaller) return wall - smaller;
    // In a gap: find the transition, the first instant whose wall clock is past `wall`.
    let lo = wall - larger;
    let hi = wall - smaller;
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      if (this.wallAt(mid) > wall) hi = mid;
      else lo = mid;
    }
    return hi;
  }

  /**
   * The instant of wall-clock time `wall` as RFC 5545 §3.3.5 reads a local time (and calendar
   * programs show it): a time that occurs twice is its first instant, as in `resolve`; a time
   * skipped by a gap is read with the offset in effect before the gap, so it lands as far past the
   * gap's end as it was past its start (02:30 on a day that skips 02:00-03:00 is 03:30).
   */
  resolveRfc5545(wall: number): number {
    const t = this.resolve(wall);
    if (this.wallAt(t) === wall) return t;
    // In a gap: `t` is the change itself, and the offset before it is the one just before `t`.
    return wall - this.offsetAt(t - 1);
  }

  /** Largest offset in effect within a day of `t` (bounds the wall-clock reach of an instant). */
  maxOffsetNear(t: number): number {
    return Math.max(this.offsetAt(t - DAY), this.offsetAt(t), this.offsetAt(t + DAY));
  }

  /**
   * The latest wall-clock time reached at or before instant `t`. It is `wallAt(t)` except just
   * after the clocks went back, when the wall clock has already shown later times: every wall
   * time up to this one resolves (by `resolve`) to an instant at or before `t`, every later one
   * to an instant after it.
   */
  maxWallUpTo(t: number): number {
    let wall = this.wallAt(t);
    if (this.format === null) return wall;
    // A clock goes back by at most a day (Pacific/Apia's and Alaska's date-line moves were one day).
    const changes = this.transitionsIn(t - 2 * DAY, t);
    for (let i = 0; i < changes.length; i++) {
      const x = changes[i] as number;
      const before = x - 1 + this.offsetAt(x - 1);
      if (before > wall) wall = before;
    }
    return wall;
  }

  /** Instants in `(from, to]` at which the offset changes, in order. */
  transitionsIn(from: number, to: number): readonly number[] {
    if (this.format === null || !(to > from)) return NONE;
    // Within one stretch of constant offset (a year's boundary is not a change): none.
    this.offsetAt(from);
    if (from >= this.spanFrom && to < this.spanTo) return NONE;
    const out: number[] = [];
    const first = new Date(Math.max(from, -DATE_EDGE_MS)).getUTCFullYear();
    const last = new Date(Math.min(to, DATE_EDGE_MS)).getUTCFullYear();
    for (let year = first; year <= last; year++) {
      for (const x of this.table(year).at) if (x > from && x <= to) out.push(x);
    }
    return out;
  }

  private table(year: number): YearTable {
    const cached = this.years.get(year);
    if (cached) return cached;
    // The first and last years a Date holds are partial: Date.UTC gives NaN beyond the edge.
    const start = Math.max(-DATE_EDGE_MS, nanTo(utc(year, 0, 1), -DATE_EDGE_MS));
    const end = Math.min(DATE_EDGE_MS, nanTo(utc(year + 1, 0, 1), DATE_EDGE_MS));
    const initial = this.measure(start);
    const at: number[] = [];
    const offset: number[] = [];
    // A change at the year's first instant (Inuvik's clocks went back eight hours at 00:00:00Z on 1 January 1953) is
    // the year's: the year before ends just before it.
    if (start > -DATE_EDGE_MS && this.measure(start - SECOND) !== initial) {
      at.push(start);
      offset.push(initial);
    }
    let prevT = start;
    let prevO = initial;
    for (let t = start + DAY; t <= end; t += DAY) {
      const o = this.measure(Math.min(t, end));
      if (o !== prevO) {
        // Bisect to the second where the offset changes.
        let lo = prevT;
        let hi = Math.min(t, end);
        while (hi - lo > SECOND) {
          const mid = lo + Math.floor((hi - lo) / 2 / SECOND) * SECOND;
          if (this.measure(mid) === prevO) lo = mid;
          else hi = mid;
        }
        if (hi < end) {
          at.push(hi);
          offset.push(o);
        }
        prevO = o;
      }
      prevT = t;
    }
    const table = { start, end, initial, at, offset };
    this.years.set(year, table);
    return table;
  }

  /** Offset at `t` as the runtime's zone database says, to the second. */
  private measure(t: number): number {
    const fmt = this.format as Intl.DateTimeFormat;
    // Intl formats only what a Date holds; at the very edges, the offset at the edge stands for the rest.
    const whole = Math.floor(Math.min(Math.max(t, -DATE_EDGE_MS), DATE_EDGE_MS) / SECOND) * SECOND;
    let y = 0;
    let mo = 0;
    let d = 0;
    let h = 0;
    let mi = 0;
    let s = 0;
    let bc = false;
    for (const p of fmt.formatToParts(whole)) {
      switch (p.type) {
        case "year":
          y = Number(p.value);
          break;
        case "month":
          mo = Number(p.value);
          break;
        case "day":
          d = Number(p.value);
          break;
        case "hour":
          h = Number(p.value);
          break;
        case "minute":
          mi = Number(p.value);
          break;
        case "second":
          s = Number(p.value);
          break;
        case "era":
          bc = p.value.startsWith("B");
          break;
        default:
          break;
      }
    }
    const wall = utc(bc ? 1 - y : y, mo - 1, d, h, mi, s);
    return wall - whole;
  }
}

function nanTo(value: number, fallback: number): number {
  return Number.isNaN(value) ? fallback : value;
}

const zones = new Map<string, ZoneRules>();

/**
 * The rules of an IANA zone ("Europe/Berlin", "UTC"). Unknown names and UTC offsets are rejected:
 * a window's zone must follow its region's DST changes.
 */
export function zoneRules(name: string): ZoneRules {
  const cached = zones.get(name);
  if (cached) return cached;
  checkZoneName(name);
  const rules = new ZoneRules(name === "Etc/UTC" || name === "UTC" ? "UTC" : name);
  zones.set(name, rules);
  return rules;
}

let canonicalZones: readonly string[] | undefined;

function checkZoneName(name: string): void {
  // Known without a look-up: a process's first Intl.DateTimeFormat loads ICU's data (about 25 ms), which a window in UTC never needs.
  if (name === "UTC" || name === "Etc/UTC") return;
  if (name.trim() === "" || /^[+-]|^(UTC|GMT)[+-]/i.test(name)) {
    throw new ScheduleError(`time zone "${name}" is not an IANA zone name: write a region such as "Europe/Berlin", or "UTC"`);
  }
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: name });
  } catch (cause) {
    throw new ScheduleError(`time zone "${name}" is unknown: use an IANA zone name such as "Europe/Berlin" or "America/New_York"`, "", { cause });
  }
  // Intl accepts "europe/berlin"; Kubernetes (Go's time.LoadLocation) does not.
  canonicalZones ??= Intl.supportedValuesOf("timeZone");
  const sameButCase = canonicalZones.find((z) => z !== name && z.toLowerCase() === name.toLowerCase());
  if (sameButCase !== undefined) {
    throw new ScheduleError(`time zone "${name}" is unknown: zone names are case-sensitive, did you mean "${sameButCase}"?`);
  }
}
