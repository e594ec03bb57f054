// Go-style durations ("90m", "1h30m", "81h", "1.5h"): parsing to milliseconds and formatting back.

import { ScheduleError } from "./errors.ts";

/** Nanoseconds per unit, as Go counts them. */
const UNIT_NS: Readonly<Record<string, bigint>> = {
  ns: 1n,
  us: 1_000n,
  µs: 1_000n,
  μs: 1_000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};
const NS_PER_MS = 1_000_000n;

const TERM = /(?:(\d+)(?:\.(\d*))?|\.(\d+))(ns|us|µs|μs|ms|s|m|h)/y;

/**
 * Parses a Go duration (the syntax of Go's `time.ParseDuration`) into milliseconds.
 * Durations here are lengths of windows, so they must be positive and whole milliseconds.
 * The arithmetic is exact (integer nanoseconds, as in Go): "1.1h" is 66 minutes, not a float near it.
 *
 * @example parseDuration("1h30m") // 5_400_000
 */
export function parseDuration(text: string): number {
  const input = text.trim();
  if (input === "") throw new ScheduleError(`duration is empty: write it like "2h", "90m" or "1h30m"`);
  const notGo = (): ScheduleError =>
    new ScheduleError(`duration "${text}" is not a Go duration: use numbers with units h, m, s, ms (e.g. "2h", "90m", "1h30m")`);
  let rest = input;
  let negative = false;
  if (rest[0] === "+" || rest[0] === "-") {
    negative = rest[0] === "-";
    rest = rest.slice(1);
  }
  if (rest === "") throw notGo();
  if (rest === "0") throw new ScheduleError(`duration "${text}" is zero: a window must last a positive time`);
  let ns = 0n;
  let pos = 0;
  while (pos < rest.length) {
    TERM.lastIndex = pos;
    const m = TERM.exec(rest);
    if (!m) throw notGo();
    const unit = UNIT_NS[m[4] ?? ""] as bigint;
    const fraction = m[2] ?? m[3] ?? "";
    ns += BigInt(m[1] ?? "0") * unit;
    // Go truncates what is finer than a nanosecond.
    if (fraction !== "") ns += (BigInt(fraction) * unit) / 10n ** BigInt(fraction.length);
    pos = TERM.lastIndex;
  }
  if (ns === 0n) throw new ScheduleError(`duration "${text}" is zero: a window must last a positive time`);
  if (negative) throw new ScheduleError(`duration "${text}" is negative: a window must last a positive time`);
  if (ns > BigInt(MAX_DURATION_MS) * NS_PER_MS) throw new ScheduleError(`duration "${text}" is longer than 366 days`);
  if (ns % NS_PER_MS !== 0n) throw new ScheduleError(`duration "${text}" is finer than a millisecond`);
  return Number(ns / NS_PER_MS);
}

/** The longest interval the engine accepts: a window or freeze lasting more than a year is a mistake. */
export const MAX_DURATION_MS = 366 * 86_400_000;

/**
 * Formats milliseconds for a person, largest units first: `3d 9h`, `2h`, `45m`, `30s`; under a
 * minute, exactly: `1s 500ms`.
 */
export function formatLength(ms: number): string {
  if (ms === lastLength) return lastLengthText;
  const text = lengthText(ms);
  lastLength = ms;
  lastLengthText = text;
  return text;
}

/** The units of formatLength, largest first, in seconds. */
const UNITS: ReadonlyArray<readonly [string, number]> = [
  ["d", 86_400],
  ["h", 3_600],
  ["m", 60],
  ["s", 1],
];
/** The last length formatted, and its text: a table of a schedule's intervals says the same length row after row. */
let lastLength = NaN;
let lastLengthText = "";

function lengthText(ms: number): string {
  if (ms <= 0) return "0s";
  // Under a minute, a length that is not whole seconds is said exactly: rounded, 500ms would read as 1s and 200ms as nothing.
  if (ms < 60_000 && ms % 1000 !== 0) {
    const seconds = Math.floor(ms / 1000);
    return `${seconds > 0 ? `${seconds}s ` : ""}${Math.round(ms % 1000)}ms`;
  }
  const parts: string[] = [];
  let rest = Math.round(ms / 1000);
  for (const [name, size] of UNITS) {
    const n = Math.floor(rest / size);
    if (n > 0) parts.push(`${n}${name}`);
    rest -= n * size;
  }
  return parts.slice(0, 2).join(" ");
}
