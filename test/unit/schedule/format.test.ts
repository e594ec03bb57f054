// rfc3339 and rfc3339Exact write, for any instant a Date holds (and those it does not), what Date's UTC fields say; so do localTime and utcTime,
// whose widths localTimeWidth and utcTimeWidth give without the strings.

import assert from "node:assert/strict";
import { test } from "node:test";
import { localTime, localTimeWidth, rfc3339, rfc3339Exact, utcTime, utcTimeWidth } from "../../../src/schedule/format.ts";
import { zoneRules, type ZoneRules } from "../../../src/schedule/zone.ts";

const pad = (n: number): string => String(n).padStart(2, "0");
/** The times as Date writes them, field by field. */
function byDate(t: number): string {
  const d = new Date(t);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}Z`;
}
function byDateExact(t: number): string {
  const ms = new Date(t).getUTCMilliseconds();
  return ms === 0 ? byDate(t) : `${byDate(t).slice(0, -1)}.${String(ms).padStart(3, "0")}Z`;
}

const WEEKDAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
/** The seconds of a time for people, from Date's fields: `:05`, `:00.500` (with milliseconds) or nothing. */
function secondsByDate(d: Date, milliseconds: boolean): string {
  const ms = milliseconds ? d.getUTCMilliseconds() : 0;
  if (ms !== 0) return `:${pad(d.getUTCSeconds())}.${String(ms).padStart(3, "0")}`;
  return d.getUTCSeconds() === 0 ? "" : `:${pad(d.getUTCSeconds())}`;
}
const intlFormats: Record<string, Intl.DateTimeFormat[]> = {};
/** The zone's short name as Intl says it at `t`, looked up each time: en-US's, else en-GB's, else the offset. */
function nameByIntl(t: number, zone: ZoneRules): string {
  if (zone.name === "UTC") return "UTC";
  const formats = (intlFormats[zone.name] ??= ["en-US", "en-GB"].map(
    (locale) => new Intl.DateTimeFormat(locale, { timeZone: zone.name, timeZoneName: "short" }),
  ));
  for (const format of formats) {
    const name = format.formatToParts(t).find((p) => p.type === "timeZoneName")?.value;
    if (name !== undefined && !/^(GMT|UTC)[+-]/.test(name)) return name;
  }
  const offset = zone.offsetAt(t) / 60_000;
  return `UTC${offset < 0 ? "-" : "+"}${pad(Math.floor(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`;
}
function localByDate(t: number, zone: ZoneRules, milliseconds: boolean): string {
  const d = new Date(zone.wallAt(t));
  return `${WEEKDAYS[d.getUTCDay()]} ${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}${secondsByDate(d, milliseconds)} ${nameByIntl(t, zone)}`;
}
function utcByDate(t: number, milliseconds: boolean): string {
  const d = new Date(t);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}${secondsByDate(d, milliseconds)}Z`;
}

function outcome(f: () => string): string {
  try {
    return f();
  } catch (e) {
    return `throws ${(e as Error).name}`;
  }
}

test("localTime and utcTime agree with Date's fields of the wall clock and Intl's name of the zone, in UTC and across changes of the clocks, to the second and to the millisecond; their widths with their lengths", () => {
  const instants = [
    0,
    -1,
    -999,
    -1000,
    -60_001,
    8.64e15,
    -8.64e15,
    8.64e15 + 1,
    Number.NaN,
    1.5,
    -1.5,
    Date.UTC(2026, 2, 29, 1, 0, 0, 500),
    Date.UTC(2026, 9, 25, 0, 59, 59, 999),
  ];
  let seed = 7;
  const random = (): number => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  const run = (from: number, step: number, f: (t: number, i: number) => number = (t) => t): number[] =>
    Array.from({ length: 3_000 }, (_, i) => f(from + i * step, i));
  instants.push(
    ...run(0, 0, () => Math.round((random() - 0.3) * 4e12)),
    // Runs of instants, one after another as a table writes them, across the changes of the clocks of Berlin (March and October) and Sydney (April), and six decades a week apart.
    ...run(Date.UTC(2026, 2, 29), 60_000, (t, i) => t + (i % 7 === 0 ? 500 : 0)),
    ...run(Date.UTC(2026, 9, 24), 37_000),
    ...run(Date.UTC(2026, 3, 4, 6), 20_000),
    ...run(Date.UTC(1970, 0, 1), 7.3 * 86_400_000),
  );
  for (const zone of ["UTC", "Europe/Berlin", "Australia/Sydney", "Asia/Kolkata", "America/Sao_Paulo"].map(zoneRules)) {
    for (const t of instants) {
      for (const milliseconds of [false, true]) {
        // Beyond a Date's range a zone's abbreviation cannot be looked up: both throw alike.
        assert.equal(
          outcome(() => localTime(t, zone, { milliseconds })),
          outcome(() => localByDate(t, zone, milliseconds)),
          `${zone.name} ${t}`,
        );
        assert.equal(utcTime(t, { milliseconds }), utcByDate(t, milliseconds), String(t));
        // Asked as a table asks: every width of a column first, then its times.
        assert.equal(
          outcome(() => String(localTimeWidth(t, zone, { milliseconds }))),
          outcome(() => String(localByDate(t, zone, milliseconds).length)),
          `width ${zone.name} ${t}`,
        );
        assert.equal(utcTimeWidth(t, { milliseconds }), utcByDate(t, milliseconds).length, `width ${t}`);
      }
    }
  }
});

test("rfc3339 and rfc3339Exact agree with Date's UTC fields: years 0-99, before year 0, the Date edges, fractions, NaN, and runs of minutes", () => {
  const instants = [
    0,
    -1,
    -999,
    -1000,
    -1001,
    8.64e15,
    -8.64e15,
    8.64e15 + 1,
    Number.NaN,
    Infinity,
    1.5,
    -1.5,
    Date.UTC(2026, 2, 29, 1, 0, 0, 500),
    -62198755200000,
    -62198755200001,
    Date.UTC(50, 0, 1) - 3_155_673_600_000,
  ];
  let seed = 42;
  const random = (): number => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  for (let i = 0; i < 20_000; i++) instants.push(Math.round((random() - 0.5) * 2 * 8.64e15), Math.round((random() - 0.3) * 4e12), 1.7e12 + i * 60_000);
  for (const t of instants) {
    assert.equal(rfc3339(t), byDate(t), String(t));
    assert.equal(rfc3339Exact(t), byDateExact(t), String(t));
  }
});
