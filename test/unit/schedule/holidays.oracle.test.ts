// fluxgate's holiday freezes (date-holidays, pinned) against Python's `holidays` package (pinned, in the tools cache): public holidays of ten countries over ten years.
//
// For each region, the dates each library names as public holidays in 2026-2035 are compared. The
// libraries are kept by different people from different sources, so they differ; every difference
// must be one of EXPLAINED (the region, the dates, which library has them, and why), and EXPLAINED
// is written out in docs/schedules.md ("Public holidays"), row for row. A new difference, or one
// that went away, fails the test: none is silent.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { holidaysOf } from "../../../src/schedule/index.ts";
import { askPythonHolidays } from "../../harness/holidays-oracle.ts";

const YEARS = Array.from({ length: 10 }, (_, i) => 2026 + i);
/** Ten countries; Germany and Canada also with a subdivision, Great Britain as England. */
const REGIONS: ReadonlyArray<[string, string | null]> = [
  ["DE", null],
  ["DE", "BY"],
  ["FR", null],
  ["JP", null],
  ["US", null],
  ["GB", "ENG"],
  ["CA", null],
  ["CA", "QC"],
  ["AU", null],
  ["IT", null],
  ["ES", null],
  ["NL", null],
];

type Side = "date-holidays only" | "Python only";

interface Explained {
  region: string;
  only: Side;
  holiday: string;
  dates: string[];
  why: string;
}

/** Every difference, grouped by region, side and holiday; the same rows as docs/schedules.md's table. */
export const EXPLAINED: readonly Explained[] = [
  {
    region: "JP",
    only: "Python only",
    holiday: "National Holiday",
    dates: ["2032-09-21"],
    why: "Japan's law makes a day between two holidays a holiday (Respect for the Aged Day and the Autumnal Equinox Day of 2032); date-holidays misses this one",
  },
  {
    region: "US",
    only: "Python only",
    holiday: "Veterans Day (observed)",
    dates: ["2028-11-10", "2029-11-12", "2034-11-10", "2035-11-12"],
    why: "Veterans Day on a weekend is observed on the Friday or Monday; date-holidays types that day a bank holiday, not a public one",
  },
  {
    region: "CA",
    only: "Python only",
    holiday: "Christmas Day / New Year's Day (observed)",
    dates: ["2027-12-27", "2028-01-03", "2032-12-27", "2033-01-03", "2033-12-26", "2034-01-02"],
    why: "Python observes a weekend Christmas or New Year's Day on the next weekday; date-holidays' Canada has no such day",
  },
  {
    region: "CA-QC",
    only: "Python only",
    holiday: "Christmas Day / New Year's Day / Saint John the Baptist Day / Canada Day (observed)",
    dates: ["2027-12-27", "2028-01-03", "2029-06-25", "2029-07-02", "2032-12-27", "2033-01-03", "2033-12-26", "2034-01-02", "2035-06-25", "2035-07-02"],
    why: "the same for Quebec, and for a Sunday Fête nationale (24 June) and Canada Day (1 July)",
  },
  {
    region: "AU",
    only: "date-holidays only",
    holiday: "Easter Saturday, Easter Sunday",
    dates: [
      "2026-04-04",
      "2026-04-05",
      "2027-03-27",
      "2027-03-28",
      "2028-04-15",
      "2028-04-16",
      "2029-03-31",
      "2029-04-01",
      "2030-04-20",
      "2030-04-21",
      "2031-04-12",
      "2031-04-13",
      "2032-03-27",
      "2032-03-28",
      "2033-04-16",
      "2033-04-17",
      "2034-04-08",
      "2034-04-09",
      "2035-03-24",
      "2035-03-25",
    ],
    why: "holidays of most states, not of the Commonwealth: date-holidays counts them for all of Australia, Python only in the states (give a subdivision)",
  },
  {
    region: "AU",
    only: "date-holidays only",
    holiday: "Christmas Day, Boxing Day, New Year's Day (substitute day)",
    dates: ["2026-12-28", "2027-12-27", "2027-12-28", "2028-01-03", "2032-12-27", "2032-12-28", "2033-01-03", "2033-12-27", "2034-01-02"],
    why: "weekend substitutes, which each state sets: date-holidays gives them to all of Australia, Python only in the states",
  },
  {
    region: "AU",
    only: "Python only",
    holiday: "Australia Day",
    dates: ["2030-01-26", "2031-01-26"],
    why: "Australia Day on a weekend: Python keeps 26 January, date-holidays moves it to the Monday (next row)",
  },
  {
    region: "AU",
    only: "date-holidays only",
    holiday: "Australia Day",
    dates: ["2030-01-28", "2031-01-27"],
    why: "the Monday after a weekend 26 January, where date-holidays puts the day (previous row)",
  },
  {
    region: "IT",
    only: "Python only",
    holiday: "National Unity Day",
    dates: ["2027-11-07", "2028-11-05", "2029-11-04", "2030-11-03", "2031-11-02", "2032-11-07", "2033-11-06", "2034-11-05", "2035-11-04"],
    why: "the Day of National Unity and the Armed Forces, a public holiday again by a 2025 law, on the first Sunday of November; date-holidays does not have it yet (2026's is 1 November, All Saints' Day in both)",
  },
  {
    region: "ES",
    only: "date-holidays only",
    holiday: "national holidays on a Sunday, or that the regions replace",
    dates: [
      "2026-11-01",
      "2026-12-06",
      "2027-08-15",
      "2030-01-06",
      "2030-12-08",
      "2031-10-12",
      "2032-08-15",
      "2033-05-01",
      "2033-12-25",
      "2033-12-26",
      "2034-01-01",
    ],
    why: "Spain's regions may move a national holiday that falls on a Sunday, or swap some for their own, year by year: Python's national list leaves those out, date-holidays keeps every one (and 2033-12-26, its substitute for a Sunday Christmas)",
  },
  {
    region: "NL",
    only: "Python only",
    holiday: "Good Friday",
    dates: ["2026-04-03", "2027-03-26", "2028-04-14", "2029-03-30", "2030-04-19", "2031-04-11", "2032-03-26", "2033-04-15", "2034-04-07", "2035-03-23"],
    why: "not a general day off in the Netherlands: Python counts it public, date-holidays as a school holiday (types: [school] freezes it)",
  },
  {
    region: "NL",
    only: "Python only",
    holiday: "Liberation Day",
    dates: ["2030-05-05", "2035-05-05"],
    why: "a day off only every fifth year: Python counts those years' as public, date-holidays types every year's a school holiday",
  },
];

function regionName(country: string, subdivision: string | null): string {
  return subdivision === null ? country : `${country}-${subdivision}`;
}

test("the pinned holiday libraries agree on ten countries over ten years but for the differences listed, and those are in the docs", async () => {
  const answers = await askPythonHolidays(REGIONS.map(([country, subdivision]) => ({ country, subdivision, years: YEARS })));
  const found = new Map<string, { region: string; only: Side; names: Set<string>; dates: string[] }>();
  let compared = 0;
  for (const [i, [country, subdivision]] of REGIONS.entries()) {
    const answer = answers[i];
    assert.ok(answer?.ok === true, `${regionName(country, subdivision)}: ${answer?.error ?? "no answer"}`);
    assert.equal(answer.version, "0.109");
    const python = new Map<string, string[]>();
    for (const [day, name] of answer.days ?? []) python.set(day, [...(python.get(day) ?? []), name]);
    const ours = new Map<string, string>();
    for (const year of YEARS) {
      for (const h of holidaysOf(country, subdivision ?? undefined, ["public"], year))
        ours.set(new Date(h.day * 86_400_000).toISOString().slice(0, 10), h.name);
    }
    for (const day of [...new Set([...python.keys(), ...ours.keys()])].sort()) {
      compared++;
      if (python.has(day) && ours.has(day)) continue;
      const only: Side = ours.has(day) ? "date-holidays only" : "Python only";
      // Grouped as EXPLAINED groups them: by region, side and the explained holiday whose dates hold the day.
      const group = EXPLAINED.find((e) => e.region === regionName(country, subdivision) && e.only === only && e.dates.includes(day));
      const key = group === undefined ? `${regionName(country, subdivision)}|${only}|unexplained` : `${group.region}|${group.only}|${group.holiday}`;
      const entry = found.get(key) ?? { region: regionName(country, subdivision), only, names: new Set<string>(), dates: [] };
      entry.dates.push(day);
      entry.names.add(ours.get(day) ?? (python.get(day) ?? []).join(" / "));
      found.set(key, entry);
    }
  }
  assert.ok(compared > 1000, `compared ${compared} days`);
  const unexplained = [...found.entries()]
    .filter(([k]) => k.endsWith("|unexplained"))
    .map(([, v]) => `${v.region} ${v.only}: ${v.dates.join(", ")} (${[...v.names].join("; ")})`);
  assert.deepEqual(unexplained, [], "differences no entry of EXPLAINED lists");
  const expected = EXPLAINED.map((e) => `${e.region}|${e.only}|${e.holiday}: ${e.dates.join(", ")}`).sort();
  const actual = [...found.entries()].map(([k, v]) => `${k}: ${v.dates.join(", ")}`).sort();
  assert.deepEqual(actual, expected, "EXPLAINED lists a difference that is no longer there, or misses a date");
  const total = EXPLAINED.reduce((n, e) => n + e.dates.length, 0);
  assert.equal(total, 86);

  // docs/schedules.md lists the same rows.
  const docs = readFileSync(new URL("../../../docs/schedules.md", import.meta.url), "utf8");
  for (const e of EXPLAINED) {
    const row = `| ${e.region} | ${e.only} | ${e.holiday} | ${e.dates.join(", ")} | ${e.why} |`;
    assert.ok(docs.includes(row), `docs/schedules.md lacks the row:\n${row}`);
  }
  assert.match(docs, new RegExp(`${total} days in all`), "the docs give the count");
});
