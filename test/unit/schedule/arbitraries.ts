// fast-check arbitraries the engine's property tests share: cron expressions in CronJob syntax.

import fc from "fast-check";

/** One to three distinct values in [min, max], comma-separated. */
const list = (max: number, min = 0): fc.Arbitrary<string> => fc.uniqueArray(fc.integer({ min, max }), { minLength: 1, maxLength: 3 }).map((v) => v.join(","));

/** A minute or hour field: `*`, a list, a step or a range. */
const field = (max: number, min = 0): fc.Arbitrary<string> =>
  fc.oneof(
    fc.constant("*"),
    list(max, min),
    fc.integer({ min: 1, max: Math.min(12, max) }).map((s) => `*/${s}`),
    fc.tuple(fc.integer({ min, max }), fc.integer({ min, max })).map(([a, b]) => `${Math.min(a, b)}-${Math.max(a, b)}`),
  );

/**
 * Expressions in CronJob syntax; day fields avoid "*\/n" where cron dialects disagree on the OR rule. With `anyMonth`, the
 * month field is always `*` (a test over a few days from fixed dates then finds the schedule's intervals in most runs).
 */
export function cronExpression(options: { anyMonth?: boolean } = {}): fc.Arbitrary<string> {
  const month = options.anyMonth === true ? fc.constant("*") : fc.oneof(fc.constant("*"), list(12, 1));
  return fc.tuple(field(59), field(23), fc.oneof(fc.constant("*"), list(28, 1)), month, fc.oneof(fc.constant("*"), list(6))).map((f) => f.join(" "));
}
