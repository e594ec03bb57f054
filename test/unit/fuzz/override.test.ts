// Fuzzing override validation (src/api/override.ts): any value is a valid WindowOverride whose until is a real instant, or a ValidationError whose every
// problem names a field.

import assert from "node:assert/strict";
import fc from "fast-check";
import { parseWith, ValidationError, WindowOverrideSchema } from "../../../src/api/index.ts";
import { fuzz } from "./harness.ts";
import { junk, OBJECT_WORDS } from "./inputs.ts";

/** RFC 3339 date-times: valid, at the edges of each part, with odd offsets and fractions. */
const until = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .tuple(
        fc.integer({ min: 0, max: 9999 }),
        fc.integer({ min: 0, max: 13 }),
        fc.integer({ min: 0, max: 32 }),
        fc.integer({ min: 0, max: 25 }),
        fc.integer({ min: 0, max: 61 }),
        fc.integer({ min: 0, max: 61 }),
        fc.constantFrom("", ".5", ".123456789", "."),
        fc.constantFrom("Z", "+01:00", "-05:30", "+24:00", "+00:60", "z", "", "+0100"),
      )
      .map(([y, mo, d, h, mi, s, frac, zone]) => {
        const p = (n: number, w = 2): string => String(n).padStart(w, "0");
        return `${p(y, 4)}-${p(mo)}-${p(d)}T${p(h)}:${p(mi)}:${p(s)}${frac}${zone}`;
      }),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      "2026-02-29T00:00:00Z",
      "2028-02-29T00:00:00Z",
      "2100-02-29T00:00:00Z",
      "2000-02-29T00:00:00Z",
      "2026-11-27T18:00:00Z",
      "tomorrow",
      "2026-11-27",
      "",
    ),
  },
  { weight: 1, arbitrary: junk },
);

const override = fc.record(
  {
    apiVersion: fc.oneof({ weight: 6, arbitrary: fc.constant("fluxgate.io/v1alpha1") }, { weight: 1, arbitrary: fc.string() }),
    kind: fc.oneof({ weight: 6, arbitrary: fc.constant("WindowOverride") }, { weight: 1, arbitrary: fc.constant("ReconciliationWindow") }),
    metadata: fc.record({ name: fc.oneof(fc.stringMatching(/^[a-z0-9-]{1,20}$/), junk) }),
    spec: fc.record(
      {
        windowRef: fc.oneof(
          fc.record({ name: fc.oneof(fc.stringMatching(/^[a-z0-9]([-a-z0-9.]{0,20}[a-z0-9])?$/), fc.constantFrom("", "../etc", "A", ...OBJECT_WORDS), junk) }),
          fc.anything({ maxDepth: 1 }),
        ),
        action: fc.oneof(fc.constantFrom("Open", "Freeze"), fc.constantFrom("open", "Close", ""), fc.anything({ maxDepth: 0 })),
        until: fc.oneof({ weight: 8, arbitrary: until }, { weight: 1, arbitrary: fc.anything({ maxDepth: 0 }) }),
        reason: fc.oneof(fc.string({ minLength: 1 }), fc.constantFrom("", "r".repeat(1025)), fc.anything({ maxDepth: 0 })),
        extra: fc.string(),
      },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: ["spec"] },
);

/** Days in a month of the proleptic Gregorian calendar, computed apart from the code under test. */
function daysIn(year: number, month: number): number {
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;
}

fuzz(import.meta.url, {
  "any value or near-valid override: a WindowOverride with a real until, or a ValidationError naming fields": {
    arbitrary: fc.oneof({ weight: 6, arbitrary: override }, { weight: 1, arbitrary: fc.anything({ maxDepth: 3 }) }),
    numRuns: 3000,
    check: (input: unknown) => {
      let parsed;
      try {
        parsed = parseWith(WindowOverrideSchema, input);
      } catch (e) {
        assert.ok(e instanceof ValidationError, `not a ValidationError: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
        assert.ok(e.problems.length > 0);
        const isObject = typeof input === "object" && input !== null && !Array.isArray(input);
        for (const p of e.problems) {
          assert.ok(p.message.trim() !== "", `a problem without a message at ${p.path}`);
          if (isObject) assert.ok(p.path !== "", `a problem that names no field: ${p.message}`);
        }
        return;
      }
      const text = parsed.spec.until;
      const [year, month, day] = text.slice(0, 10).split("-").map(Number) as [number, number, number];
      assert.ok(month >= 1 && month <= 12 && day >= 1 && day <= daysIn(year, month), `until ${text} is not a real date`);
      assert.ok(Number.isFinite(Date.parse(text)), `until ${text} is not an instant`);
      assert.equal(new Date(Date.parse(text)).getUTCDate() !== day && /Z$/.test(text), false, `until ${text} reads as another day`);
    },
  },
});
