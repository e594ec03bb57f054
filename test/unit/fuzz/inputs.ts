// Hostile and near-valid inputs shared by the fuzz properties: cron fields, durations, zones, date-times and junk text.

import fc from "fast-check";

/** Words that are properties of every JavaScript object: a lookup table indexed by user text must not find them. */
export const OBJECT_WORDS = ["__proto__", "constructor", "toString", "valueOf", "hasOwnProperty", "prototype", "__defineGetter__", "isPrototypeOf"];

/** Text of any kind: every code point, control characters, lone surrogates, long runs. */
export const junk: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: "binary", maxLength: 80 }),
  fc.string({ unit: "grapheme", maxLength: 40 }),
  fc.string({ maxLength: 40 }),
  fc.constantFrom("", " ", "\0", "\t\n", "\u00a0", "\u2028", "\ud800", "💥", "ǅ", "İ", "K", "١٢"),
  fc.integer({ min: 1, max: 5000 }).map((n) => "9".repeat(n)),
  fc.integer({ min: 1, max: 3000 }).map((n) => "* ".repeat(n)),
);

/** A number as cron text might hold it: at the edges, huge, with leading zeros or a sign. */
export const numberText: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: 0, max: 61 }).map(String) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      "0",
      "00",
      "007",
      "-1",
      "+1",
      "1e3",
      "0x1f",
      "1.5",
      "٣",
      "60",
      "24",
      "32",
      "13",
      "8",
      "9007199254740993",
      "99999999999999999999999",
      "4294967296",
    ),
  },
  { weight: 1, arbitrary: fc.bigInt({ min: 0n, max: 10n ** 30n }).map(String) },
);

const hostileName = fc.constantFrom("MONDAY", "JANUARY", "Mo", "L", "W", "H", "?", "#", "LW", "5L", "15W", "1#2", ...OBJECT_WORDS);

/** Something near a cron term that is probably wrong. */
const hostileTerm: fc.Arbitrary<string> = fc.oneof(
  numberText,
  hostileName,
  fc.tuple(fc.oneof(numberText, hostileName), fc.oneof(numberText, hostileName)).map(([a, b]) => `${a}-${b}`),
  fc.tuple(fc.oneof(fc.constant("*"), numberText, hostileName), numberText).map(([a, s]) => `${a}/${s}`),
  fc.constantFrom("", "-", "/", "*/", "/5", "1-", "-5", "1/2/3", "1-2-3", "*-*", "**", "*/0", "*/-1"),
);

interface FieldRange {
  min: number;
  max: number;
  names: readonly string[];
}

const RANGES: readonly FieldRange[] = [
  { min: 0, max: 59, names: [] },
  { min: 0, max: 23, names: [] },
  { min: 1, max: 31, names: [] },
  { min: 1, max: 12, names: ["JAN", "feb", "Mar", "APR", "may", "JUN", "jul", "AUG", "sep", "OCT", "nov", "DEC"] },
  { min: 0, max: 6, names: ["SUN", "mon", "Tue", "WED", "thu", "FRI", "sat"] },
];

/** A term that is valid for the field: a value, a name, a range, a step. */
function validTerm(r: FieldRange): fc.Arbitrary<string> {
  const value =
    r.names.length === 0
      ? fc.integer({ min: r.min, max: r.max }).map(String)
      : fc.oneof(fc.integer({ min: r.min, max: r.max }).map(String), fc.constantFrom(...r.names));
  const bounds = fc
    .tuple(fc.integer({ min: r.min, max: r.max }), fc.integer({ min: r.min, max: r.max }))
    .map(([a, b]) => [Math.min(a, b), Math.max(a, b)] as const);
  return fc.oneof(
    value,
    fc.constant("*"),
    bounds.map(([a, b]) => `${a}-${b}`),
    fc.tuple(fc.constantFrom("*", String(r.min)), fc.integer({ min: 1, max: r.max + 2 })).map(([a, s]) => `${a}/${s}`),
    fc.tuple(bounds, fc.integer({ min: 1, max: 9 })).map(([[a, b], s]) => `${a}-${b}/${s}`),
  );
}

/** A cron field: a list of terms valid for the field, now and then (unless `valid`) one that is not. */
function cronField(r: FieldRange, valid = false): fc.Arbitrary<string> {
  const term = valid ? validTerm(r) : fc.oneof({ weight: 12, arbitrary: validTerm(r) }, { weight: 1, arbitrary: hostileTerm });
  return fc.array(term, { minLength: 1, maxLength: valid ? 2 : 4 }).map((t) => t.join(","));
}

const fiveFields = fc.tuple(...RANGES.map((r) => cronField(r)));

/** A cron expression whose every term is in range (it may still name a date that never exists, like "0 0 31 2 *"). */
export const validCronText: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.tuple(...RANGES.map((r) => cronField(r, true))).map((f) => f.join(" ")) },
  { weight: 1, arbitrary: fc.constantFrom("@daily", "@hourly", "@weekly", "@monthly", "@yearly", "0 8 * * MON", "0 17 * * THU", "30 2 * * *") },
);

/** A near-valid cron expression: mostly five fields, sometimes more or fewer, odd spacing, macros, prefixes. */
export const cronText: fc.Arbitrary<string> = fc.oneof(
  { weight: 8, arbitrary: fiveFields.map((f) => f.join(" ")) },
  {
    weight: 1,
    arbitrary: fc.tuple(fiveFields, fc.array(cronField(RANGES[0] as FieldRange), { maxLength: 2 })).map(([f, extra]) => [...extra, ...f].join(" ")),
  },
  { weight: 1, arbitrary: fc.tuple(fiveFields, fc.constantFrom("  ", "\t", "\n", "\u00a0", "\u3000", " \r\n ")).map(([f, sep]) => f.join(sep)) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      "@daily",
      "@DAILY",
      "@hourly",
      "@weekly",
      "@monthly",
      "@yearly",
      "@annually",
      "@midnight",
      "@reboot",
      "@every 1h",
      "@every",
      "@",
      "@__proto__",
      "@constructor",
      "@toString",
      "CRON_TZ=UTC 0 8 * * *",
      "TZ=Europe/Berlin 0 8 * * *",
      "0 0 30 2 *",
      "0 0 31 4,6,9,11 *",
      "0 0 29 2 *",
      "0 0 31 2 MON",
      "0 0 * __proto__ *",
      "0 0 * * constructor",
    ),
  },
  { weight: 1, arbitrary: junk },
);

/** A duration as a person or an attacker might write it. */
export const durationText: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc
      .tuple(
        fc.constantFrom("", "", "", "+", "-"),
        fc.array(
          fc.tuple(
            fc.oneof(
              fc.nat({ max: 10_000 }).map(String),
              fc.constantFrom("0", "1.5", "0.1", "1.1", "2.3", ".5", "1.", "4.35", "0.001", "0.0000001", "999999", "99999999999999999999", "1e3"),
              fc.tuple(fc.nat(99), fc.nat(999_999)).map(([a, b]) => `${a}.${b}`),
            ),
            fc.oneof(
              { weight: 8, arbitrary: fc.constantFrom("h", "m", "s", "ms", "us", "µs", "μs", "ns") },
              { weight: 1, arbitrary: fc.constantFrom("d", "w", "H", "M", "", " h", "mS", "hh") },
            ),
          ),
          { minLength: 1, maxLength: 4 },
        ),
      )
      .map(([sign, terms]) => sign + terms.map(([n, u]) => n + u).join("")),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom("0", "+0", "-0", "00", "+", "-", "", " 2h ", "2h 30m", "Infinity", "NaN", "1h-1m", "999999h", "8784h", "8785h", "527040m"),
  },
  { weight: 1, arbitrary: junk },
);

/** Time zone names: real ones in odd corners, wrong case, offsets, invalid, hostile. */
export const zoneText: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      "UTC",
      "Etc/UTC",
      "Europe/Berlin",
      "America/New_York",
      "Australia/Lord_Howe",
      "Asia/Kolkata",
      "Pacific/Chatham",
      "Pacific/Kiritimati",
      "America/St_Johns",
      "Antarctica/Troll",
      "Africa/Casablanca",
      "Asia/Tehran",
      "America/Sao_Paulo",
      "Europe/Dublin",
      "GMT",
      "Etc/GMT+12",
      "Etc/GMT-14",
    ),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      "europe/berlin",
      "EUROPE/BERLIN",
      "+01:00",
      "-05:00",
      "UTC+1",
      "GMT-3",
      "Mars/Olympus",
      "Europe/",
      "/",
      "",
      " ",
      "Europe/Berlin ",
      "Europe/../Berlin",
      "CET",
      "EST5EDT",
      "Z",
      ...OBJECT_WORDS,
    ),
  },
  { weight: 1, arbitrary: junk },
);

/** An integer mostly within [min, max], now and then one of `wrong`. */
function mostly(min: number, max: number, wrong: number[]): fc.Arbitrary<number> {
  return fc.oneof({ weight: 12, arbitrary: fc.integer({ min, max }) }, { weight: 1, arbitrary: fc.constantFrom(...wrong) });
}

/** Local date-times as a freeze's from and to take them: valid, impossible, out of range, with odd offsets. */
export const dateTimeText: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .tuple(
        fc.oneof({ weight: 4, arbitrary: fc.integer({ min: 1970, max: 2100 }) }, { weight: 1, arbitrary: fc.integer({ min: 0, max: 9999 }) }),
        mostly(1, 12, [0, 13, 99]),
        mostly(1, 31, [0, 32, 99]),
        fc.option(fc.tuple(mostly(0, 23, [24, 25, 99]), mostly(0, 59, [60, 61, 99]), fc.option(mostly(0, 59, [60, 61, 99])))),
        fc.constantFrom("", "", "", "Z", "+01:00", "-05:30", "+14:00", "+24:00", "+00:60", "z"),
        fc.constantFrom("T", "T", " ", "t"),
      )
      .map(([y, mo, d, time, offset, sep]) => {
        const p = (n: number, w = 2): string => String(n).padStart(w, "0");
        const clock = time === null ? "" : `${sep}${p(time[0])}:${p(time[1])}${time[2] === null ? "" : `:${p(time[2])}`}`;
        return `${p(y, 4)}-${p(mo)}-${p(d)}${clock}${offset}`;
      }),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      "2026-12-20T00:00",
      "2026-02-29T00:00",
      "2028-02-29T00:00",
      "2026-03-29T02:30",
      "2026-10-25T02:30",
      "20 Dec 2026",
      "2026-12-20T00:00:00.000Z",
      "tomorrow",
      "",
    ),
  },
  { weight: 1, arbitrary: junk },
);

/** An instant anywhere a caller might pass one, including the edges of what a Date can hold. */
export const instant: fc.Arbitrary<number> = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2040, 0, 1) }) },
  { weight: 2, arbitrary: fc.integer({ min: -8.64e15, max: 8.64e15 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      0,
      -1,
      8.64e15,
      -8.64e15,
      8.64e15 - 1,
      Date.UTC(9999, 11, 31, 23, 59),
      Date.UTC(100, 0, 1) - 146_097 * 86_400_000 * 5,
      Date.UTC(1582, 9, 15),
    ),
  },
);
