// fluxgate's recurrence rules against python-dateutil's rrule (with Python's zoneinfo), on thousands of generated rules in ten zones over ten years.
//
// Each generated rule (FREQ DAILY to YEARLY with INTERVAL, COUNT, UNTIL, BYMONTH, BYWEEKNO,
// BYYEARDAY, BYMONTHDAY, BYDAY with ordinals, BYSETPOS, WKST, EXDATE; a time of day often in a
// zone's DST change) is walked by fluxgate's engine (`after`, and `atOrBefore` back over the same
// starts) and by dateutil, and the two lists of instants are compared. dateutil with zoneinfo reads
// a local time as RFC 5545 §3.3.5 does (PEP 495's fold=0: the first of a repeated time, the offset
// before a gap), so the lists are equal; every difference must be one of the kinds listed in
// EXPLAINED, each checked by its own test of the case, and none may be left unexplained.

import assert from "node:assert/strict";
import { test } from "node:test";
import { compileRecurrence, ScheduleError, zoneRules, type RecurrenceSpec } from "../../../src/schedule/index.ts";
import type { RecurrenceRuleIntervals } from "../../../src/schedule/recurrence.ts";
import { askDateutil, type RruleRequest } from "../../harness/rrule-oracle.ts";

const SEED = 20261128;
const RULES = Number(process.env["RRULE_ORACLE_RULES"] ?? 5200);
const OCCURRENCES = 24;
const YEAR_MS = 365.25 * 86_400_000;
const TEN_YEARS_MS = 10 * YEAR_MS;
/** 2026-01-01 to 2036-01-01. */
const FROM_YEAR = 2026;
const YEARS = 10;

/** Times of day at which each zone's clocks change (gaps and repeats), where generated rules often start. */
const ZONES: Readonly<Record<string, readonly string[]>> = {
  UTC: ["00:00", "12:00"],
  "Europe/Berlin": ["02:00", "02:30", "02:59", "03:00"],
  "America/New_York": ["01:30", "02:00", "02:30", "03:00"],
  "Australia/Lord_Howe": ["01:45", "02:00", "02:15", "02:30"],
  "America/Santiago": ["23:30", "00:00", "00:30", "23:59"],
  "Asia/Tokyo": ["00:00", "09:00"],
  "Australia/Adelaide": ["02:00", "02:30", "03:00"],
  "Pacific/Chatham": ["02:45", "03:00", "03:30", "03:45"],
  "America/Havana": ["00:00", "00:30", "01:00"],
  "Europe/London": ["01:00", "01:30", "02:00"],
};

/** A seeded generator (mulberry32): the same rules on every run. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WEEKDAYS = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"];
const pad = (n: number, w = 2): string => String(n).padStart(w, "0");

interface Case {
  spec: RecurrenceSpec;
  zone: string;
  /** The local date from which both walk (dtstart, or the first day asked for). */
  firstDay: string;
  untilLocal: string | null;
}

function generate(random: () => number, zone: string): Case {
  const int = (lo: number, hi: number): number => lo + Math.floor(random() * (hi - lo + 1));
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T;
  const some = (n: number, make: () => string): string => [...new Set(Array.from({ length: int(1, n) }, make))].join(",");
  const signed = (max: number): string => String(random() < 0.3 ? -int(1, max) : int(1, max));
  const freq = pick(["DAILY", "WEEKLY", "WEEKLY", "MONTHLY", "MONTHLY", "MONTHLY", "YEARLY", "YEARLY"] as const);
  const parts = [`FREQ=${freq}`];
  let anyBy = false;
  const by = (p: number, text: () => string): void => {
    if (random() < p) {
      parts.push(text());
      anyBy = true;
    }
  };
  let weekNo = false;
  by(freq === "YEARLY" ? 0.4 : 0.2, () => `BYMONTH=${some(3, () => String(int(1, 12)))}`);
  const hasMonth = parts.some((p) => p.startsWith("BYMONTH="));
  if (freq === "YEARLY" && random() < 0.15) {
    parts.push(`BYWEEKNO=${some(3, () => signed(53))}`);
    anyBy = weekNo = true;
  }
  if (freq === "YEARLY") by(0.12, () => `BYYEARDAY=${some(3, () => signed(366))}`);
  if (freq !== "WEEKLY") by(freq === "MONTHLY" ? 0.4 : 0.2, () => `BYMONTHDAY=${some(3, () => signed(31))}`);
  const ordinals = (freq === "MONTHLY" || freq === "YEARLY") && !weekNo;
  const ordinalMax = freq === "MONTHLY" || hasMonth ? 5 : 53;
  by(0.55, () => `BYDAY=${some(3, () => (ordinals && random() < 0.5 ? `${signed(ordinalMax)}${pick(WEEKDAYS)}` : pick(WEEKDAYS)))}`);
  // dateutil reads BYDAY=TH,5MO as Thursdays that are fifth Mondays (see EXPLAINED); with BYSETPOS
  // or COUNT that cannot be checked against the union of two rules, so such rules are not generated.
  const mixed = mixedByDay(parts.join(";")) !== null || weekNo;
  if (anyBy && !mixed && random() < 0.15) parts.push(`BYSETPOS=${some(2, () => signed(4))}`);
  if (random() < 0.2) parts.push(`WKST=${pick(WEEKDAYS)}`);
  if (random() < 0.35) parts.push(`INTERVAL=${int(2, 4)}`);
  // A first date: in the ten years, often a little before a change of the zone's clocks.
  const year = int(FROM_YEAR, FROM_YEAR + YEARS - 2);
  let first = Date.UTC(year, int(0, 11), int(1, 28));
  const changes = zoneRules(zone).transitionsIn(Date.UTC(year, 0, 1), Date.UTC(year + 1, 0, 1));
  if (changes.length > 0 && random() < 0.5) first = Math.floor((pick(changes) - int(0, 20) * 86_400_000) / 86_400_000) * 86_400_000;
  const d = new Date(first);
  const firstDay = `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
  let untilLocal: string | null = null;
  const end = random();
  if (end < 0.15 && !mixed && !(freq === "WEEKLY" && parts.some((p) => p.startsWith("BYSETPOS=")))) {
    parts.push(`COUNT=${int(1, 30)}`);
  } else if (end < 0.3) {
    const u = new Date(first + int(1, 3 * 365) * 86_400_000 + int(0, 1439) * 60_000);
    const text = `${u.getUTCFullYear()}${pad(u.getUTCMonth() + 1)}${pad(u.getUTCDate())}T${pad(u.getUTCHours())}${pad(u.getUTCMinutes())}00`;
    if (random() < 0.5) {
      parts.push(`UNTIL=${text}Z`);
    } else {
      parts.push(`UNTIL=${text}`);
      untilLocal = `${text.slice(0, 4)}-${text.slice(4, 6)}-${text.slice(6, 8)}T${text.slice(9, 11)}:${text.slice(11, 13)}:00`;
    }
  }
  const at = random() < 0.6 ? pick(ZONES[zone] as readonly string[]) : `${pad(int(0, 23))}:${pad(pick([0, 15, 30, 45, int(0, 59)]))}`;
  const order = parts.slice(1).sort(() => random() - 0.5);
  const spec: RecurrenceSpec = { recurrence: [parts[0], ...order].join(";"), at, duration: "1h" };
  return { spec, zone, firstDay, untilLocal };
}

/** BYDAY with both plain (TH) and numbered (5MO) weekdays: the two rules whose union RFC 5545 means; null when not mixed. */
function mixedByDay(rule: string): [string, string] | null {
  const m = /(^|;)BYDAY=([^;]*)/.exec(rule);
  if (!m) return null;
  const items = (m[2] as string).split(",");
  const plain = items.filter((d) => /^[A-Z]{2}$/.test(d));
  const numbered = items.filter((d) => !/^[A-Z]{2}$/.test(d));
  if (plain.length === 0 || numbered.length === 0) return null;
  const withDays = (days: string[]): string => rule.replace(/BYDAY=[^;]*/, `BYDAY=${days.join(",")}`);
  return [withDays(plain), withDays(numbered)];
}

/**
 * The kinds of difference between fluxgate and dateutil, each checked case by case below.
 * - byday-and: dateutil keeps a day of a BYDAY list that mixes plain and numbered weekdays
 *   (`BYDAY=TH,5MO`) only when it matches both kinds (a Thursday that is a fifth Monday: never);
 *   RFC 5545 §3.3.10 lists days, any of which matches, so fluxgate takes every Thursday and every
 *   fifth Monday. Checked: fluxgate's starts are dateutil's union of the rule with only the plain
 *   weekdays and the rule with only the numbered ones.
 * - weekno-next-year: a day at the end of December in week 1 of the next week-numbering year
 *   (RFC 5545 weeks start on WKST; week 1 holds four days of its year), where BYWEEKNO names that
 *   week from the end (`-52` of a 52-week year). fluxgate takes it: it is in the week named.
 *   dateutil counts negative weeks within the calendar year only, so it takes the week's January
 *   days and leaves its December days. Checked: the extra starts are exactly such days, and
 *   without them the lists are equal (rules with BYWEEKNO are generated without COUNT and
 *   BYSETPOS, which would carry the difference on).
 * - weekno-previous-year: early January days in the last week of the previous week-numbering year
 *   when that year has 52 weeks and BYWEEKNO names 53. dateutil takes them as week 53: it counts
 *   the previous year's weeks from the current year's length (`lnumweeks = 52+(self.yearlen-
 *   no1wkst) % 7//4` in dateutil/rrule.py). fluxgate does not: that week is week 52. Checked as
 *   the one above, with dateutil's extra starts.
 * - weekly-setpos-first-week: with FREQ=WEEKLY and BYSETPOS, dateutil picks the positions of the
 *   first week among the days from dtstart on only (its first week starts at dtstart, not on WKST);
 *   RFC 5545 picks among the whole week's days, then drops those before dtstart. Checked:
 *   dateutil, asked from the first day of dtstart's week (and its starts before dtstart dropped),
 *   gives fluxgate's starts (such rules are generated without COUNT, which that would change).
 */
const EXPLAINED = ["byday-and", "weekno-next-year", "weekno-previous-year", "weekly-setpos-first-week"] as const;

/** The first day of RFC 5545 week 1 of `year` (weeks start on `wkst`, 0 = Monday; week 1 holds at least four days of the year). */
function weekOne(year: number, wkst: number): number {
  const jan1 = Date.UTC(year, 0, 1) / 86_400_000;
  const back = (((jan1 + 3) % 7) - wkst + 7) % 7;
  return back <= 3 ? jan1 - back : jan1 - back + 7;
}

/**
 * Whether `ours` and `theirs` differ only by days at the edges of week-numbering years
 * (EXPLAINED: weekno-next-year, weekno-previous-year): the kinds found, or null.
 */
function weekNoEdges(rule: string, zone: string, ours: readonly number[], theirs: readonly number[]): Array<(typeof EXPLAINED)[number]> | null {
  const weeks = /BYWEEKNO=([^;]*)/.exec(rule)?.[1]?.split(",").map(Number) ?? [];
  if (weeks.length === 0) return null;
  const wkstText = /WKST=([A-Z]{2})/.exec(rule)?.[1];
  const wkst = wkstText === undefined ? 0 : WEEKDAYS.indexOf(wkstText);
  const z = zoneRules(zone);
  const dayYear = (t: number): [number, number] => {
    const wall = z.wallAt(t);
    return [Math.floor(wall / 86_400_000), new Date(wall).getUTCFullYear()];
  };
  // December days of next year's week 1, which the rule names only from the end.
  const nextYear = (t: number): boolean => {
    const [day, y] = dayYear(t);
    const next = weekOne(y + 1, wkst);
    return !weeks.includes(1) && day >= next && weeks.includes(-((weekOne(y + 2, wkst) - next) / 7));
  };
  // January days of the previous year's last week, when that year has 52 weeks and the rule names week 53.
  const previousYear = (t: number): boolean => {
    const [day, y] = dayYear(t);
    return day < weekOne(y, wkst) && weeks.includes(53) && (weekOne(y, wkst) - weekOne(y - 1, wkst)) / 7 === 52;
  };
  const oursExtra = ours.filter(nextYear);
  const theirsExtra = theirs.filter(previousYear);
  if (oursExtra.length + theirsExtra.length === 0) return null;
  const last = Math.min(ours[ours.length - 1] ?? Infinity, theirs[theirs.length - 1] ?? Infinity);
  const a = ours.filter((t) => !nextYear(t) && t <= last);
  const b = theirs.filter((t) => !previousYear(t) && t <= last);
  if (JSON.stringify(a) !== JSON.stringify(b)) return null;
  return [...(oursExtra.length > 0 ? (["weekno-next-year"] as const) : []), ...(theirsExtra.length > 0 ? (["weekno-previous-year"] as const) : [])];
}

/** fluxgate's starts: walked forward with `after`, then checked backward with `atOrBefore`. */
function fluxgateStarts(rule: RecurrenceRuleIntervals, from: number, end: number): number[] {
  const out: number[] = [];
  let t = from;
  while (out.length < OCCURRENCES) {
    const iv = rule.after(t);
    if (iv === null || iv.start > end) break;
    out.push(iv.start);
    t = iv.start;
  }
  for (let i = 0; i < out.length; i++) {
    const s = out[i] as number;
    assert.equal(rule.atOrBefore(s)?.start, s, `atOrBefore finds each start (${rule.ref.label})`);
    if (i > 0) assert.equal(rule.atOrBefore(s - 1)?.start, out[i - 1], `atOrBefore finds the start before (${rule.ref.label})`);
  }
  return out;
}

test("Python's zone data agrees with the runtime's for the ten zones over the years compared (else a difference would be one of data, not of rules)", async () => {
  const zones = Object.keys(ZONES);
  const requests = zones.map((zone) => {
    const z = zoneRules(zone);
    const changes = z.transitionsIn(Date.UTC(FROM_YEAR, 0, 1), Date.UTC(FROM_YEAR + 2 * YEARS, 0, 1));
    const offsetsAt = [Date.UTC(FROM_YEAR, 0, 15), Date.UTC(FROM_YEAR, 6, 15), ...changes.flatMap((x) => [x - 1000, x])];
    return { zone, offsetsAt };
  });
  const answers = await askDateutil(requests);
  requests.forEach((r, i) => {
    const z = zoneRules(r.zone);
    const ours = r.offsetsAt.map((t) => z.offsetAt(t));
    assert.deepEqual(answers[i]?.offsets, ours, `${r.zone}: Python's zoneinfo (its tzdata) and Node's ICU disagree; update the older of the two`);
  });
});

test(
  `${RULES} generated rules in ten zones over ten years: fluxgate's occurrences are dateutil's, every difference explained`,
  { timeout: 600_000 },
  async () => {
    const random = prng(SEED);
    const zones = Object.keys(ZONES);
    const cases: Array<Case & { request: RruleRequest; union: RruleRequest | null; ours: number[] | "never" }> = [];
    for (let i = 0; i < RULES; i++) {
      const c = generate(random, zones[i % zones.length] as string);
      const zone = zoneRules(c.zone);
      const anchored = random() < 0.5;
      const startWall = Date.parse(`${c.firstDay}T00:00Z`);
      const from = zone.resolveRfc5545(startWall) - 1;
      const end = from + TEN_YEARS_MS;
      let spec: RecurrenceSpec = { ...c.spec };
      const tryCompile = (s: RecurrenceSpec): RecurrenceRuleIntervals | "never" => {
        try {
          return compileRecurrence(s, zone, { window: "w", kind: "allow", index: 0 }, "spec.schedules[0]") as RecurrenceRuleIntervals;
        } catch (e) {
          if (e instanceof ScheduleError && e.detail.startsWith("never occurs")) return "never";
          throw new Error(`${c.zone} ${JSON.stringify(s)}: ${(e as Error).message}`, { cause: e });
        }
      };
      // With a first date, or without one when the rule does not need it (then dateutil starts on the day asked for).
      const withStart = (s: RecurrenceSpec): RecurrenceSpec => ({ ...s, dtstart: c.firstDay });
      let compiled: RecurrenceRuleIntervals | "never";
      try {
        compiled = tryCompile(anchored ? withStart(spec) : spec);
      } catch (e) {
        if (!(e instanceof Error) || !e.message.includes("needs dtstart")) throw e;
        spec = withStart(spec);
        compiled = tryCompile(spec);
      }
      if (anchored) spec = withStart(spec);
      let ours = compiled === "never" ? ("never" as const) : fluxgateStarts(compiled, from, end);
      // Leave out one or two of the starts: as a date (that day's start) or as a date-time.
      if (ours !== "never" && ours.length > 2 && random() < 0.25) {
        const walls = [ours[1], ours[ours.length - 1]].slice(0, random() < 0.5 ? 1 : 2).map((t) => new Date(zone.wallAt(t as number)).toISOString());
        spec = { ...spec, exdates: walls.map((w, k) => (k === 0 && random() < 0.5 ? w.slice(0, 10) : w.slice(0, 16))) };
        const again = tryCompile(spec);
        ours = again === "never" ? "never" : fluxgateStarts(again, from, end);
      }
      const dtstart = `${c.firstDay}T${spec.at as string}`;
      const rule = c.untilLocal === null ? (spec.recurrence as string) : (spec.recurrence as string).replace(/;?UNTIL=[^;]*/, "").replace(/^;/, "");
      const exdates = (spec.exdates ?? []).map((x) => (x.length === 10 ? `${x}T${spec.at as string}` : x));
      const request = { rules: [rule], zone: c.zone, dtstart, untilLocal: c.untilLocal, exdates, count: OCCURRENCES, end };
      const split = mixedByDay(rule);
      let union: RruleRequest | null = split === null ? null : { ...request, rules: split };
      if (/FREQ=WEEKLY/.test(rule) && /BYSETPOS/.test(rule)) {
        // The first day of dtstart's week: weeks start on WKST (Monday unless given).
        const wkst = WEEKDAYS.indexOf(/WKST=([A-Z]{2})/.exec(rule)?.[1] ?? "MO");
        const day = Date.parse(`${c.firstDay}T00:00Z`) / 86_400_000;
        const weekStart = new Date((day - ((((day + 3) % 7) - wkst + 7) % 7)) * 86_400_000).toISOString().slice(0, 10);
        union = { ...request, dtstart: `${weekStart}T${spec.at as string}`, count: OCCURRENCES + 7 };
      }
      cases.push({ ...c, spec, ours, request, union });
    }
    const requests = cases.flatMap((c) => (c.union === null ? [c.request] : [c.request, c.union]));
    const all = await askDateutil(requests);
    const answers = cases.map((c) => all[requests.indexOf(c.request)]);
    const unions = cases.map((c) => (c.union === null ? undefined : all[requests.indexOf(c.union)]));

    const unexplained: string[] = [];
    const explained = new Map<(typeof EXPLAINED)[number], number>();
    let compared = 0;
    let never = 0;
    let occurrences = 0;
    let inGap = 0;
    let repeated = 0;
    cases.forEach((c, i) => {
      const a = answers[i];
      assert.ok(a?.ok && a.timedOut !== true, `dateutil failed on ${JSON.stringify(c.request)}: ${a?.error ?? "it took too long"}`);
      const theirs = a.times ?? [];
      compared++;
      if (c.ours === "never") {
        // fluxgate refuses the rule; dateutil finds no start in the range compared.
        never++;
        if (theirs.length > 0)
          unexplained.push(`${c.zone} ${JSON.stringify(c.spec)}: fluxgate says it never occurs, dateutil has ${new Date(theirs[0] as number).toISOString()}`);
        return;
      }
      occurrences += c.ours.length;
      const z = zoneRules(c.zone);
      const minute = Number((c.spec.at as string).slice(0, 2)) * 60 + Number((c.spec.at as string).slice(3));
      for (const t of c.ours) {
        const wall = z.wallAt(t);
        if (Math.round((wall % 86_400_000) / 60_000) !== minute) inGap++;
        else if (z.wallAt(t + (z.offsetAt(t) - z.offsetAt(t + 86_400_000))) === wall && z.offsetAt(t) > z.offsetAt(t + 86_400_000)) repeated++;
      }
      const union = unions[i];
      if (union !== undefined && JSON.stringify(c.ours) !== JSON.stringify(theirs)) {
        assert.ok(union.ok && union.timedOut !== true, `dateutil failed on ${JSON.stringify(c.union)}: ${union.error ?? "it took too long"}`);
        const weekly = c.union?.dtstart !== c.request.dtstart;
        const from = zoneRules(c.zone).resolveRfc5545(Date.parse(`${c.request.dtstart}Z`));
        const times = weekly ? (union.times ?? []).filter((t) => t >= from).slice(0, OCCURRENCES) : union.times;
        if (JSON.stringify(c.ours) === JSON.stringify(times)) {
          const kind = weekly ? "weekly-setpos-first-week" : "byday-and";
          explained.set(kind, (explained.get(kind) ?? 0) + 1);
          return;
        }
      }
      const edges = JSON.stringify(c.ours) === JSON.stringify(theirs) ? null : weekNoEdges(c.spec.recurrence as string, c.zone, c.ours, theirs);
      if (edges !== null) {
        for (const kind of edges) explained.set(kind, (explained.get(kind) ?? 0) + 1);
        return;
      }
      if (JSON.stringify(c.ours) !== JSON.stringify(theirs)) {
        const k = c.ours.findIndex((t, j) => t !== theirs[j]);
        const at = k < 0 ? c.ours.length : k;
        unexplained.push(
          `${c.zone} ${JSON.stringify(c.spec)}: #${at} fluxgate ${c.ours[at] === undefined ? "-" : new Date(c.ours[at]).toISOString()} dateutil ${theirs[at] === undefined ? "-" : new Date(theirs[at]).toISOString()}`,
        );
      }
    });
    console.log(
      `compared ${compared} rules (${occurrences} starts, ${inGap} of them at a local time a gap skips, ${repeated} at one that repeats; ${never} rules fluxgate refuses as never occurring); explained: ${JSON.stringify(Object.fromEntries(explained))}; unexplained: ${unexplained.length}`,
    );
    assert.deepEqual(unexplained.slice(0, 30), [], `${unexplained.length} unexplained differences`);
    assert.ok([...explained.keys()].every((k) => EXPLAINED.includes(k)));
    assert.ok(compared >= 5000, `at least 5,000 rules compared, not ${compared}`);
    assert.ok(inGap >= 20 && repeated >= 20, `the rules start in DST gaps (${inGap}) and repeated hours (${repeated})`);
  },
);

/** fluxgate's first `n` starts of a rule in a zone from a local date, and dateutil's. */
async function both(zone: string, spec: RecurrenceSpec & { dtstart: string }, n: number): Promise<{ ours: string[]; theirs: string[] }> {
  const z = zoneRules(zone);
  const rule = compileRecurrence(spec, z, { window: "w", kind: "allow", index: 0 }, "s") as RecurrenceRuleIntervals;
  const from = z.resolveRfc5545(Date.parse(`${spec.dtstart}T00:00Z`)) - 1;
  const ours = fluxgateStartsN(rule, from, n);
  const [answer] = await askDateutil([
    {
      rules: [spec.recurrence as string],
      zone,
      dtstart: `${spec.dtstart}T${spec.at as string}`,
      untilLocal: null,
      exdates: [],
      count: n,
      end: from + TEN_YEARS_MS,
    },
  ]);
  assert.ok(answer?.ok, answer?.error);
  const iso = (t: number): string => new Date(t).toISOString().slice(0, 16);
  return { ours: ours.map(iso), theirs: (answer.times ?? []).map(iso) };
}

function fluxgateStartsN(rule: RecurrenceRuleIntervals, from: number, n: number): number[] {
  const out: number[] = [];
  for (let t = from; out.length < n;) {
    const iv = rule.after(t);
    if (iv === null) break;
    out.push(iv.start);
    t = iv.start;
  }
  return out;
}

test("a local time in a gap or a repeated hour: dateutil with zoneinfo agrees with fluxgate's RFC 5545 §3.3.5 reading", async () => {
  // New York skips 02:00-03:00 on 14 March 2027 and repeats 01:00-02:00 on 7 November 2027.
  const gap = await both("America/New_York", { recurrence: "FREQ=YEARLY;BYMONTH=3;BYDAY=2SU", at: "02:30", duration: "1h", dtstart: "2027-01-01" }, 1);
  assert.deepEqual(gap, { ours: ["2027-03-14T07:30"], theirs: ["2027-03-14T07:30"] }, "02:30 EST, which the clock shows as 03:30 EDT");
  const repeat = await both("America/New_York", { recurrence: "FREQ=YEARLY;BYMONTH=11;BYDAY=1SU", at: "01:30", duration: "1h", dtstart: "2027-01-01" }, 1);
  assert.deepEqual(repeat, { ours: ["2027-11-07T05:30"], theirs: ["2027-11-07T05:30"] }, "01:30 EDT, the first of the two");
});

test("explained: dateutil keeps only days matching both a plain and a numbered BYDAY (byday-and)", async () => {
  const r = await both("UTC", { recurrence: "FREQ=MONTHLY;BYDAY=TH,5MO", at: "09:00", duration: "1h", dtstart: "2026-03-01" }, 6);
  assert.deepEqual(r.ours, ["2026-03-05T09:00", "2026-03-12T09:00", "2026-03-19T09:00", "2026-03-26T09:00", "2026-03-30T09:00", "2026-04-02T09:00"]);
  assert.deepEqual(r.theirs, [], "a Thursday that is a fifth Monday: never");
});

test("explained: with FREQ=WEEKLY and BYSETPOS, dateutil picks positions in the first week from dtstart on (weekly-setpos-first-week)", async () => {
  // Week of Monday 2030-02-04: MO 4, TH 7, SA 9; the first of them is the 4th, before dtstart.
  const r = await both("UTC", { recurrence: "FREQ=WEEKLY;BYDAY=MO,TH,SA;BYSETPOS=1", at: "10:00", duration: "1h", dtstart: "2030-02-09" }, 2);
  assert.deepEqual(r.ours, ["2030-02-11T10:00", "2030-02-18T10:00"]);
  assert.deepEqual(r.theirs, ["2030-02-09T10:00", "2030-02-11T10:00"]);
});

test("explained: weeks at the edges of week-numbering years (weekno-next-year, weekno-previous-year)", async () => {
  // 2031 has 52 weeks; its week 1 (week -52) starts on Monday 2030-12-30.
  const next = await both("UTC", { recurrence: "FREQ=YEARLY;BYWEEKNO=-52;BYDAY=MO,WE", at: "10:00", duration: "1h", dtstart: "2030-12-01" }, 2);
  assert.deepEqual(next.ours, ["2030-12-30T10:00", "2031-01-01T10:00"]);
  assert.deepEqual(next.theirs, ["2031-01-01T10:00", "2032-01-05T10:00"]);
  // 2038 has 52 weeks: Saturday 2039-01-01 is in its week 52, not in a week 53.
  const previous = await both("UTC", { recurrence: "FREQ=YEARLY;BYWEEKNO=53;BYDAY=SA", at: "10:00", duration: "1h", dtstart: "2038-06-01" }, 1);
  assert.deepEqual(previous.theirs, ["2039-01-01T10:00"]);
  assert.notEqual(previous.ours[0], "2039-01-01T10:00");
});
