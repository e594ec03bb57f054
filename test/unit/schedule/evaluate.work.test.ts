// How much work the evaluator does: a merged run is followed only as far as a higher layer lets it last, so a preview of a window that flips every minute asks
// its rules a bounded number of questions per change (counted, not timed).

import assert from "node:assert/strict";
import { test } from "node:test";
import { compileWindow, Evaluator, type CompiledWindow } from "../../../src/schedule/index.ts";
import type { Rule } from "../../../src/schedule/window.ts";

/** The window with every rule wrapped to count the questions asked of it. */
function counted(window: CompiledWindow): { window: CompiledWindow; questions: () => number } {
  let n = 0;
  const wrap = (r: Rule): Rule => ({
    ref: r.ref,
    atOrBefore: (t) => (n++, r.atOrBefore(t)),
    after: (t) => (n++, r.after(t)),
    reach: (t) => (n++, r.reach(t)),
    reachBack: (t) => (n++, r.reachBack(t)),
  });
  return { window: { ...window, allow: window.allow.map(wrap), freeze: window.freeze.map(wrap) }, questions: () => n };
}

test("an allow run that never ends is not followed past the next freeze", () => {
  // Open all the time (each minute's interval touches the next), frozen every other minute.
  const { window, questions } = counted(
    compileWindow("w", { schedules: [{ start: "* * * * *", duration: "1m" }], freezes: [{ start: "*/2 * * * *", duration: "1m" }] }),
  );
  const from = Date.parse("2026-11-23T00:00:00Z");
  const segments = new Evaluator([window]).segments(from, from + 86_400_000);
  assert.equal(segments.length, 1440);
  assert.ok(questions() / segments.length < 20, `${questions()} questions for ${segments.length} segments`);
});

test("the state at an instant follows its run back only to where a higher layer ended", () => {
  const { window, questions } = counted(
    compileWindow("w", { schedules: [{ start: "* * * * *", duration: "1m" }], freezes: [{ start: "0 12 * * *", duration: "1m" }] }),
  );
  const d = new Evaluator([window]).stateAt(Date.parse("2026-11-23T11:30:00Z"));
  assert.equal(d.state, "open");
  assert.equal(d.until, Date.parse("2026-11-23T12:00:00Z"));
  assert.equal(d.since, Date.parse("2026-11-22T12:01:00Z"));
  assert.ok(questions() < 20, `${questions()} questions`);
});

test("a run of touching occurrences is followed a day at a time, not a minute at a time", () => {
  // 28,800 touching one-minute intervals from 1 to 20 January: one run.
  const { window, questions } = counted(compileWindow("w", { schedules: [{ start: "* * 1-20 * *", duration: "1m" }] }));
  const evaluator = new Evaluator([window]);
  const d = evaluator.stateAt(Date.parse("2026-01-10T12:00:00Z"));
  assert.equal(d.since, Date.parse("2026-01-01T00:00:00Z"));
  assert.equal(d.until, Date.parse("2026-01-21T00:00:00Z"));
  assert.ok(questions() < 200, `${questions()} questions`);
});
