// Public holidays as freezes: the days date-holidays (pinned in package.json) names for a country or subdivision, as whole local days of the window's zone.
//
// Only the library's data is taken (which dates, which names); the day itself is computed here, in
// the window's zone: from its first instant to the next day's (a DST day lasts 23 or 25 hours).

import { createRequire } from "node:module";
import type HolidaysLibrary from "date-holidays";
import { utc } from "./calendar.ts";
import { ScheduleError } from "./errors.ts";
import type { Interval, Rule, RuleRef } from "./rule.ts";
import type { ZoneRules } from "./zone.ts";

/** The holiday types of date-holidays; a freeze takes `public` ones unless it says otherwise. */
export const HOLIDAY_TYPES = ["public", "bank", "school", "optional", "observance"] as const;
export type HolidayType = (typeof HOLIDAY_TYPES)[number];
export const DEFAULT_HOLIDAY_TYPES: readonly HolidayType[] = ["public"];

/**
 * `{holidays: {country: "DE", subdivision: "BY"}}`, or in a fleet window
 * `{holidays: {fromClusterLabels: {country: "country", subdivision: "subdivision"}}}`: the codes are
 * the values of those labels of the cluster the window is evaluated for.
 */
export interface HolidaysSpec {
  /** ISO 3166-1 alpha-2 code, e.g. "DE". */
  country?: string | undefined;
  /** The subdivision's code within the country (ISO 3166-2 without the country), e.g. "BY". */
  subdivision?: string | undefined;
  types?: readonly string[] | undefined;
  /** The names of the cluster labels that hold the country and subdivision codes. */
  fromClusterLabels?: { country?: string | undefined; subdivision?: string | undefined } | undefined;
}

/** The cluster a window is evaluated for, where a fleet window takes its holidays from the cluster's labels. */
export interface ClusterContext {
  name: string;
  labels: Readonly<Record<string, string>>;
}

/** One holiday: its local date and its name as the library gives it (in the country's language). */
export interface HolidayDay {
  /** Epoch day of the local date (days since 1970-01-01). */
  day: number;
  name: string;
}

const DAY = 86_400_000;
/** How many years a search for the previous or next holiday looks at before it gives up: beyond the evaluator's ten-year horizon. */
const SEARCH_YEARS = 11;
/** date-holidays' data holds rules for these years; a year outside is taken to have no holidays. */
const FIRST_YEAR = 1000;
const LAST_YEAR = 9999;

let library: typeof HolidaysLibrary | null = null;

/**
 * date-holidays, loaded on first use: its data takes ~90 ms to load, which no window without a
 * holiday freeze (and no `fluxgate --version`) should pay.
 */
function Holidays(): typeof HolidaysLibrary {
  library ??= createRequire(import.meta.url)("date-holidays") as typeof HolidaysLibrary;
  return library;
}

let countryNames: Readonly<Record<string, string>> | null = null;
const subdivisionNames = new Map<string, Readonly<Record<string, string>>>();

/** The countries the library knows: code → name. */
export function holidayCountries(): Readonly<Record<string, string>> {
  const H = Holidays();
  countryNames ??= new H().getCountries("en");
  return countryNames;
}

/** The subdivisions of a known country: code → name (empty when it has none). */
export function holidaySubdivisions(country: string): Readonly<Record<string, string>> {
  let names = subdivisionNames.get(country);
  if (names === undefined) {
    const H = Holidays();
    names = new H().getStates(country, "en") ?? {};
    subdivisionNames.set(country, names);
  }
  return names;
}

/** Up to three codes close to `given`: the same but for case, a name that matches, or one letter off. */
function closest(given: string, known: Readonly<Record<string, string>>): string[] {
  const g = given.trim().toLowerCase();
  const scored: Array<{ code: string; score: number }> = [];
  for (const [code, name] of Object.entries(known)) {
    const c = code.toLowerCase();
    const n = name.toLowerCase();
    let score = Infinity;
    if (c === g) score = 0;
    else if (n === g) score = 1;
    else if (g.length >= 3 && n.startsWith(g)) score = 2;
    else if (distance(c, g) <= 1) score = 3;
    else if (g.length >= 4 && distance(n, g) <= 2) score = 4;
    if (score < Infinity) scored.push({ code, score });
  }
  return scored
    .sort((a, b) => a.score - b.score || (a.code < b.code ? -1 : 1))
    .slice(0, 3)
    .map((s) => `"${s.code}" (${known[s.code] ?? ""})`);
}

/** Levenshtein distance, for short codes and names. */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min((prev[j] as number) + 1, (row[j - 1] as number) + 1, (prev[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = row;
  }
  return prev[b.length] as number;
}

function suggestion(given: string, known: Readonly<Record<string, string>>): string {
  const near = closest(given, known);
  return near.length === 0 ? "" : `; did you mean ${near.join(" or ")}?`;
}

/**
 * Checks a country code and, when given, a subdivision code against the library; throws a
 * ScheduleError at `path.country` or `path.subdivision` that suggests the closest valid codes.
 *
 * @example checkHolidayRegion("DE", "BY", "spec.freezes[0].holidays")
 */
export function checkHolidayRegion(country: string, subdivision: string | undefined, path: string, source = ""): void {
  const countries = holidayCountries();
  if (!Object.hasOwn(countries, country)) {
    throw new ScheduleError(
      `unknown country "${country}"${source}: give an ISO 3166-1 alpha-2 code that date-holidays knows, such as "DE" or "US"${suggestion(country, countries)}`,
      `${path}.country`,
    );
  }
  if (subdivision === undefined) return;
  const subdivisions = holidaySubdivisions(country);
  if (!Object.hasOwn(subdivisions, subdivision)) {
    const codes = Object.keys(subdivisions);
    throw new ScheduleError(
      codes.length === 0
        ? `unknown subdivision "${subdivision}"${source}: ${country} (${countries[country] ?? ""}) has no subdivisions with holidays of their own; leave subdivision out`
        : `unknown subdivision "${subdivision}" of ${country}${source}: give one of ${codes.join(", ")}${suggestion(subdivision, subdivisions)}`,
      `${path}.subdivision`,
    );
  }
}

const calendars = new Map<string, HolidaysLibrary>();
const years = new Map<string, readonly HolidayDay[]>();

/**
 * The holidays of the given types in one year, by local date, in date order; holidays that share
 * a day are one entry whose name lists them ("A / B"). Cached per country, subdivision, types and year.
 */
export function holidaysOf(country: string, subdivision: string | undefined, types: readonly string[], year: number): readonly HolidayDay[] {
  const region = subdivision === undefined ? country : `${country}-${subdivision}`;
  const key = `${region}|${types.join(",")}|${year}`;
  const cached = years.get(key);
  if (cached !== undefined) return cached;
  let calendar = calendars.get(region);
  if (calendar === undefined) {
    const H = Holidays();
    calendar = subdivision === undefined ? new H(country) : new H(country, subdivision);
    calendars.set(region, calendar);
  }
  const byDay = new Map<number, string[]>();
  if (year >= FIRST_YEAR && year <= LAST_YEAR) {
    for (const h of calendar.getHolidays(year)) {
      if (!types.includes(h.type)) continue;
      const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(h.date);
      if (m === null) continue;
      const first = Math.floor(utc(Number(m[1]), Number(m[2]) - 1, Number(m[3])) / DAY);
      // A holiday of several days (the library's end is the next day's start in the country's zone).
      const days = Math.max(1, Math.round((h.end.getTime() - h.start.getTime()) / DAY));
      for (let d = first; d < first + days; d++) {
        const names = byDay.get(d) ?? [];
        if (!names.includes(h.name)) names.push(h.name);
        byDay.set(d, names);
      }
    }
  }
  const list = [...byDay.entries()].sort((a, b) => a[0] - b[0]).map(([day, names]) => ({ day, name: names.join(" / ") }));
  years.set(key, list);
  return list;
}

/** One holiday's whole local day as an interval, with its own reason. */
interface HolidayInterval extends Interval {
  ref: RuleRef;
}

/**
 * The freeze of a holiday calendar: one interval per holiday, from the local day's first instant to
 * the next day's, each naming its holiday. Holidays on consecutive days touch; the evaluator merges them.
 */
export class HolidayRule implements Rule {
  readonly ref: RuleRef;
  readonly namesEachInterval = true;
  private readonly zone: ZoneRules;
  private readonly country: string;
  private readonly subdivision: string | undefined;
  private readonly types: readonly string[];
  private readonly byYear = new Map<number, readonly HolidayInterval[]>();

  constructor(ref: RuleRef, zone: ZoneRules, country: string, subdivision: string | undefined, types: readonly string[]) {
    this.ref = ref;
    this.zone = zone;
    this.country = country;
    this.subdivision = subdivision;
    this.types = types;
  }

  /** The year's holidays as intervals of this zone (a holiday's local year is its date's year). */
  private intervals(year: number): readonly HolidayInterval[] {
    let list = this.byYear.get(year);
    if (list === undefined) {
      const out: HolidayInterval[] = [];
      for (const h of holidaysOf(this.country, this.subdivision, this.types, year)) {
        const start = this.zone.resolve(h.day * DAY);
        const end = this.zone.resolve((h.day + 1) * DAY);
        // A day a zone skipped (Pacific/Apia, 2011-12-30) has no instant to freeze.
        if (end <= start) continue;
        const reason = this.ref.reason === undefined ? h.name : `${this.ref.reason}: ${h.name}`;
        out.push({ start, end, ref: { ...this.ref, reason } });
      }
      list = out;
      this.byYear.set(year, list);
    }
    return list;
  }

  /** The local year of instant `t`. */
  private yearAt(t: number): number {
    return new Date(this.zone.wallAt(t)).getUTCFullYear();
  }

  atOrBefore(t: number): Interval | null {
    const year = this.yearAt(t);
    for (let y = year; y > year - SEARCH_YEARS; y--) {
      const list = this.intervals(y);
      const found = list.findLast((iv) => iv.start <= t);
      if (found !== undefined) return found;
    }
    return null;
  }

  after(t: number): Interval | null {
    const year = this.yearAt(t);
    for (let y = year; y < year + SEARCH_YEARS; y++) {
      const found = this.intervals(y).find((iv) => iv.start > t);
      if (found !== undefined) return found;
    }
    return null;
  }

  reach(t: number): number {
    const iv = this.atOrBefore(t);
    return iv === null ? -Infinity : iv.end;
  }

  reachBack(s: number): number {
    const iv = this.atOrBefore(s - 1);
    return iv !== null && iv.end >= s ? iv.start : Infinity;
  }
}

/** The region and types a holiday freeze names, its codes checked (those from a cluster's labels too). */
export function resolveHolidays(
  spec: HolidaysSpec,
  path: string,
  cluster: ClusterContext | undefined,
): { country: string; subdivision: string | undefined; types: readonly string[]; label: string } {
  const from = spec.fromClusterLabels;
  if (from !== undefined && (spec.country !== undefined || spec.subdivision !== undefined)) {
    throw new ScheduleError('needs country (a code such as "DE") or fromClusterLabels, not both', path);
  }
  const types = spec.types ?? DEFAULT_HOLIDAY_TYPES;
  types.forEach((t, i) => {
    if (!(HOLIDAY_TYPES as readonly string[]).includes(t)) {
      throw new ScheduleError(`unknown holiday type "${t}": give one of ${HOLIDAY_TYPES.join(", ")}`, `${path}.types[${i}]`);
    }
  });
  if (from === undefined) {
    if (spec.country === undefined)
      throw new ScheduleError('is required: an ISO 3166-1 alpha-2 code such as "DE" (or give fromClusterLabels)', `${path}.country`);
    checkHolidayRegion(spec.country, spec.subdivision, path);
    const label = `holidays ${spec.country}${spec.subdivision === undefined ? "" : `-${spec.subdivision}`}`;
    return { country: spec.country, subdivision: spec.subdivision, types, label };
  }
  const at = `${path}.fromClusterLabels`;
  if (from.country === undefined)
    throw new ScheduleError('is required: the name of the cluster label that holds the country code, e.g. "country"', `${at}.country`);
  if (cluster === undefined) {
    throw new ScheduleError(
      "takes the holidays from the cluster's labels, and this window is not evaluated for a known cluster: a fleet window is evaluated per cluster (fluxgate check, the Config Service), with the labels of fluxgate.yaml",
      at,
    );
  }
  const value = (key: string, field: string): string => {
    const v = cluster.labels[key];
    if (v === undefined) {
      throw new ScheduleError(
        `cluster ${cluster.name} has no label "${key}": give it one in fluxgate.yaml (its ${field} code) — a fleet window never takes "no holidays" for a cluster it cannot place`,
        `${at}.${field}`,
      );
    }
    return v;
  };
  const country = value(from.country, "country");
  // An empty subdivision label says "the whole country" in so many words; a missing one is refused.
  const sub = from.subdivision === undefined ? undefined : value(from.subdivision, "subdivision");
  const subdivision = sub === "" ? undefined : sub;
  try {
    checkHolidayRegion(
      country,
      subdivision,
      path,
      ` (label ${from.country}${subdivision === undefined ? "" : ` and ${from.subdivision}`} of cluster ${cluster.name})`,
    );
  } catch (e) {
    throw e instanceof ScheduleError ? e.at(e.path.replace(`${path}.`, `${at}.`)) : e;
  }
  const label = `holidays ${country}${subdivision === undefined ? "" : `-${subdivision}`} (cluster labels)`;
  return { country, subdivision, types, label };
}

/**
 * The labels of a cluster that a timing's holiday freezes read (`fromClusterLabels`), or null when
 * none does: two clusters with the same such labels have the same window, whatever else their labels say.
 */
export function holidayLabelsUsed(
  freezes: ReadonlyArray<{ holidays?: HolidaysSpec | undefined }> | undefined,
  labels: Readonly<Record<string, string>>,
): Record<string, string | null> | null {
  let used: Record<string, string | null> | null = null;
  for (const f of freezes ?? []) {
    const from = f.holidays?.fromClusterLabels;
    if (from === undefined) continue;
    used ??= {};
    for (const key of [from.country, from.subdivision]) if (key !== undefined) used[key] = labels[key] ?? null;
  }
  return used;
}
