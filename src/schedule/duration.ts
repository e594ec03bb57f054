// Go-style durations ("90m", "1h30m", "81h", "1.5h"): parsing to milliseconds and formatting back.

import { ScheduleError } from "./errors.ts";

const UNIT_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  "µs": 1e-3,
  "μs": 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

const TERM = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y;

/**
 * Parses a Go duration (the syntax of Go's `time.ParseDuration`) into milliseconds.
 * Durations here are lengths of windows, so they must be positive and whole milliseconds.
 *
 * @example parseDuration("1h30m") // 5_400_000
 */
export function parseDuration(text: string): number {
  const input = text.trim();
  if (input === "") throw new ScheduleError(`duration is empty: write it like "2h", "90m" or "1h30m"`);
  let rest = input;
  let sign = 1;
  if (rest[0] === "+" || rest[0] === "-") {
    sign = rest[0] === "-" ? -1 : 1;
    rest = rest.slice(1);
  }
  if (rest === "0") throw new ScheduleError(`duration "${text}" is zero: a window must last a positive time`);
  let total = 0;
  TERM.lastIndex = 0;
  let pos = 0;
  while (pos < rest.length) {
    TERM.lastIndex = pos;
    const m = TERM.exec(rest);
    if (!m) {
      throw new ScheduleError(
        `duration "${text}" is not a Go duration: use numbers with units h, m, s, ms (e.g. "2h", "90m", "1h30m")`,
      );
    }
    total += Number(m[1]) * (UNIT_MS[m[2] ?? ""] ?? Number.NaN);
    pos = TERM.lastIndex;
  }
  total *= sign;
  if (!Number.isFinite(total)) throw new ScheduleError(`duration "${text}" is too long`);
  if (total <= 0) {
    throw new ScheduleError(`duration "${text}" is ${total === 0 ? "zero" : "negative"}: a window must last a positive time`);
  }
  if (!Number.isInteger(total)) throw new ScheduleError(`duration "${text}" is finer than a millisecond`);
  if (total > MAX_DURATION_MS) throw new ScheduleError(`duration "${text}" is longer than 366 days`);
  return total;
}

/** The longest interval the engine accepts: a window or freeze lasting more than a year is a mistake. */
export const MAX_DURATION_MS = 366 * 86_400_000;

/**
 * Formats milliseconds for a person, largest units first: `3d 9h`, `2h`, `45m`, `30s`.
 */
export function formatLength(ms: number): string {
  if (ms <= 0) return "0s";
  const parts: string[] = [];
  let rest = Math.round(ms / 1000);
  const units: Array<[string, number]> = [
    ["d", 86_400],
    ["h", 3_600],
    ["m", 60],
    ["s", 1],
  ];
  for (const [name, size] of units) {
    const n = Math.floor(rest / size);
    if (n > 0) parts.push(`${n}${name}`);
    rest -= n * size;
  }
  return parts.slice(0, 2).join(" ");
}
