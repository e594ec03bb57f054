// Fuzzing the duration parser: any text is a positive whole number of milliseconds or a ScheduleError naming the duration; Go durations are read exactly.

import assert from "node:assert/strict";
import fc from "fast-check";
import { MAX_DURATION_MS, parseDuration, ScheduleError } from "../../../src/schedule/index.ts";
import { fuzz } from "./harness.ts";
import { durationText, junk } from "./inputs.ts";

const UNIT_NS: Record<string, bigint> = {
  ns: 1n,
  us: 1000n,
  µs: 1000n,
  μs: 1000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

/** Parses `text`; a rejection must be a ScheduleError quoting it, with a reason. */
function parsed(text: string): number | ScheduleError {
  try {
    const ms = parseDuration(text);
    assert.ok(Number.isSafeInteger(ms) && ms > 0 && ms <= MAX_DURATION_MS, `${JSON.stringify(text)} gave ${ms}`);
    return ms;
  } catch (e) {
    assert.ok(e instanceof ScheduleError, `not a ScheduleError: ${String(e)}`);
    assert.match(e.message, /^duration (is empty|".*" (is|is not) .+)/s);
    return e;
  }
}

/** A Go duration built from its parts, so the test knows its exact length without parsing it. */
const goDuration = fc
  .tuple(
    fc.constantFrom("", "", "", "+", "-"),
    fc.array(
      fc
        .tuple(
          fc.oneof(fc.nat({ max: 100_000 }).map(String), fc.constantFrom("0", "00", "1", "9999999", "99999999999999999999"), fc.constant("")),
          fc.option(fc.oneof(fc.nat({ max: 999 }).map(String), fc.stringMatching(/^\d{1,12}$/), fc.constant(""))),
          fc.constantFrom(...Object.keys(UNIT_NS)),
        )
        .filter(([whole, fraction]) => whole !== "" || (fraction !== null && fraction !== "")),
      { minLength: 1, maxLength: 4 },
    ),
  )
  .map(([sign, terms]) => {
    let ns = 0n;
    for (const [whole, fraction, unit] of terms) {
      const u = UNIT_NS[unit] as bigint;
      ns += BigInt(whole === "" ? "0" : whole) * u;
      if (fraction !== null && fraction !== "") ns += (BigInt(fraction) * u) / 10n ** BigInt(fraction.length);
    }
    const text = sign + terms.map(([whole, fraction, unit]) => `${whole}${fraction === null ? "" : `.${fraction}`}${unit}`).join("");
    return { text, ns: sign === "-" ? -ns : ns };
  });

fuzz(import.meta.url, {
  "any text: a length or a ScheduleError naming the duration": {
    arbitrary: junk,
    numRuns: 1500,
    check: (text: string) => void parsed(text),
  },

  "near-valid durations (signs, fractions, units, huge numbers): the same": {
    arbitrary: durationText,
    numRuns: 3000,
    check: (text: string) => void parsed(text),
  },

  "Go durations are read exactly: accepted iff a positive whole number of milliseconds up to 366 days": {
    arbitrary: goDuration,
    numRuns: 3000,
    check: ({ text, ns }: { text: string; ns: bigint }) => {
      const result = parsed(text);
      const ok = ns > 0n && ns % 1_000_000n === 0n && ns <= BigInt(MAX_DURATION_MS) * 1_000_000n;
      if (ok) assert.equal(result, Number(ns / 1_000_000n), `${text} is ${ns}ns`);
      else assert.ok(result instanceof ScheduleError, `${text} (${ns}ns) was accepted as ${String(result)}`);
    },
  },
});
