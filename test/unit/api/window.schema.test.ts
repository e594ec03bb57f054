// The ReconciliationWindow schema: valid manifests pass; every problem is named by its field path.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { parse } from "yaml";
import { closeGracePeriodOf, modeOf, noticeOf, timeZoneOf, validateTiming, validateWindow, ValidationError } from "../../../src/api/index.ts";
import { compileWindow, ScheduleError } from "../../../src/schedule/index.ts";

const NOW = Date.parse("2026-11-22T10:00:00Z");
const sample = (): Record<string, any> =>
  parse(readFileSync(new URL("../../../config/samples/fluxgate.io_v1alpha1_reconciliationwindow.yaml", import.meta.url), "utf8")) as Record<string, any>;

const problems = (mutate: (w: Record<string, any>) => void, now = NOW): string[] => {
  const w = sample();
  mutate(w);
  try {
    validateWindow(w, now);
  } catch (e) {
    assert.ok(e instanceof ValidationError, String(e));
    return e.problems.map((p) => `${p.path}: ${p.message}`);
  }
  return [];
};

test("the shipped sample is valid, and defaults come from one accessor each", () => {
  const { window } = validateWindow(sample(), NOW);
  assert.equal(timeZoneOf(window.spec), "Europe/Berlin");
  assert.equal(modeOf(window.spec), "Suspend");
  assert.equal(closeGracePeriodOf(window.spec), 300_000);
  assert.equal(timeZoneOf({}), "UTC");
});

test("spec.notice: a lead time up to a week, none when absent", () => {
  const w = sample();
  assert.equal(noticeOf(validateWindow(w, NOW).window.spec), null);
  for (const [text, ms] of [
    ["15m", 900_000],
    ["1h30m", 5_400_000],
    ["168h", 604_800_000],
  ] as const) {
    w.spec.notice = text;
    assert.equal(noticeOf(validateWindow(w, NOW).window.spec), ms, text);
  }
});

const cases: Array<[string, (w: Record<string, any>) => void, RegExp]> = [
  ["zero duration", (w) => (w.spec.schedules[1].duration = "0s"), /^spec\.schedules\[1\]\.duration: duration "0s" is zero/],
  ["negative duration", (w) => (w.spec.schedules[1].duration = "-2h"), /^spec\.schedules\[1\]\.duration: duration "-2h" is negative/],
  ["end and duration", (w) => (w.spec.schedules[0].duration = "2h"), /^spec\.schedules\[0\]: has both end and duration/],
  ["neither end nor duration", (w) => delete w.spec.schedules[0].end, /^spec\.schedules\[0\]: needs an end \(cron\) or a duration/],
  ["unknown zone", (w) => (w.spec.timeZone = "Europe/Atlantis"), /^spec\.timeZone: time zone "Europe\/Atlantis" is unknown/],
  ["zone in the wrong case", (w) => (w.spec.timeZone = "europe/berlin"), /^spec\.timeZone: .*did you mean "Europe\/Berlin"/],
  ["offset instead of a zone", (w) => (w.spec.timeZone = "+01:00"), /^spec\.timeZone: .*is not an IANA zone name/],
  ["impossible date", (w) => (w.spec.schedules[0].start = "0 0 30 2 *"), /^spec\.schedules\[0\]\.start: cron "0 0 30 2 \*": names a date that never exists/],
  ["seconds field", (w) => (w.spec.freezes[0].start = "0 0 0 * * FRI"), /^spec\.freezes\[0\]\.start: .*seconds and years are not supported/],
  ["to before from", (w) => (w.spec.freezes[1].to = "2026-12-01T00:00"), /^spec\.freezes\[1\]\.to: "2026-12-01T00:00" is before from "2026-12-20T00:00"/],
  ["impossible local date", (w) => (w.spec.freezes[1].from = "2026-02-30T00:00"), /^spec\.freezes\[1\]\.from: "2026-02-30T00:00": 2026-02 has no day 30/],
  ["mixed freeze kinds", (w) => (w.spec.freezes[1].start = "0 0 * * *"), /^spec\.freezes\[1\]: mixes a recurring freeze/],
  ["unknown field", (w) => (w.spec.schedules[0].stop = "x"), /^spec\.schedules\[0\]: unknown field "stop"/],
  ["target without name or selector", (w) => delete w.spec.targets[0].name, /^spec\.targets\[0\]: needs a name or a labelSelector/],
  ["unknown target kind", (w) => (w.spec.targets[0].kind = "Deployment"), /^spec\.targets\[0\]\.kind: /],
  [
    "gate without mode Gate",
    (w) => (w.spec.gate = { upstream: { kind: "GitRepository", name: "gitops" }, gatedName: "g" }),
    /^spec\.gate: is only allowed when mode is Gate/,
  ],
  ["mode Gate without gate", (w) => (w.spec.mode = "Gate"), /^spec\.gate: is required when mode is Gate/],
  ["no targets", (w) => (w.spec.targets = []), /^spec\.targets: /],
  ["missing spec", (w) => delete w.spec, /^spec: is required/],
  ["a list where a zone belongs", (w) => (w.spec.timeZone = ["UTC"]), /^spec\.timeZone: must be a string, not a list$/],
  ["text where a list belongs", (w) => (w.spec.schedules = "@daily"), /^spec\.schedules: must be a list, not a string$/],
  ["null where a name belongs", (w) => (w.spec.targets[0].name = null), /^spec\.targets\[0\]\.name: must be a string, not null$/],
  ["a target name that is a path", (w) => (w.spec.targets[0].name = "../apps-rw"), /^spec\.targets\[0\]\.name: must be a Kubernetes object name/],
  ["a namespace with capitals", (w) => (w.spec.targets[0].namespace = "Flux_System"), /^spec\.targets\[0\]\.namespace: must be a namespace name/],
  [
    "a gated copy named like its upstream",
    (w) => void Object.assign(w.spec, { mode: "Gate", gate: { upstream: { kind: "GitRepository", name: "gitops" }, gatedName: "gitops" } }),
    /^spec\.gate\.gatedName: must differ from upstream\.name/,
  ],
  [
    "In without values",
    (w) => (w.spec.targets[1].labelSelector = { matchExpressions: [{ key: "tier", operator: "In" }] }),
    /^spec\.targets\[1\]\.labelSelector\.matchExpressions\[0\]\.values: In and NotIn need values/,
  ],
  [
    "a label key with spaces",
    (w) => (w.spec.targets[1].labelSelector = { matchLabels: { "fluxgate type": "window" } }),
    /^spec\.targets\[1\]\.labelSelector\.matchLabels: "fluxgate type": keys must be label keys/,
  ],
  [
    "a label value with a slash",
    (w) => (w.spec.targets[1].labelSelector = { matchLabels: { app: "a/b" } }),
    /^spec\.targets\[1\]\.labelSelector\.matchLabels\.app: must be a label value/,
  ],
  ["a zero notice", (w) => (w.spec.notice = "0s"), /^spec\.notice: duration "0s" is zero: give a positive lead time such as "15m"/],
  ["a negative notice", (w) => (w.spec.notice = "-15m"), /^spec\.notice: duration "-15m" is negative: give a positive lead time/],
  ["a notice longer than a week", (w) => (w.spec.notice = "169h"), /^spec\.notice: duration "169h" is longer than 7 days \(168h\)$/],
  ["a notice in days", (w) => (w.spec.notice = "7d"), /^spec\.notice: duration "7d" is not a Go duration/],
  ["a notice that is a number", (w) => (w.spec.notice = 15), /^spec\.notice: must be a string, not a number$/],
];

for (const [name, mutate, expected] of cases) {
  test(`rejects ${name}, naming the field`, () => {
    const found = problems(mutate);
    assert.ok(
      found.some((p) => expected.test(p)),
      `expected ${expected} in:\n${found.join("\n")}`,
    );
  });
}

test("validity never depends on the current time: Feb 29 is valid in every year, a date no year has never", () => {
  for (const now of ["2026-06-01T00:00:00Z", "2027-06-01T00:00:00Z", "2097-03-01T00:00:00Z"]) {
    assert.deepEqual(
      problems((w) => (w.spec.schedules = [{ start: "0 0 29 2 *", duration: "24h" }]), Date.parse(now)),
      [],
      now,
    );
    const found = problems((w) => (w.spec.schedules = [{ start: "0 0 30 2 *", duration: "24h" }]), Date.parse(now));
    assert.match(found.join("\n"), /^spec\.schedules\[0\]\.start: cron "0 0 30 2 \*": names a date that never exists/, now);
  }
});

test("every problem is reported at once, each with its field, in the order of the manifest: the schema's and the engine's alike", () => {
  const toBefore = '"2026-12-01T00:00" is before from "2026-12-20T00:00": a freeze must end after it starts';
  const never = 'cron "0 0 30 2 *": names a date that never exists (no chosen month has the chosen day of month), so the schedule never runs';
  // A `to` before its `from` (the engine's check) in the first freeze, a cron no date has (the schema's) in the second.
  assert.deepEqual(
    problems((w) => {
      w.spec.freezes[0] = { from: "2026-12-20T00:00", to: "2026-12-01T00:00", reason: "first" };
      w.spec.freezes[1] = { start: "0 0 30 2 *", duration: "1h", reason: "second" };
    }),
    [`spec.freezes[0].to: ${toBefore}`, `spec.freezes[1].start: ${never}`],
  );
  // Two freezes the engine alone refuses, and a bad target after them.
  assert.deepEqual(
    problems((w) => {
      w.spec.freezes[0] = { from: "2026-12-20T00:00", to: "2026-12-01T00:00" };
      w.spec.freezes[1] = { from: "2026-12-20T00:00", to: "2026-12-20T00:00" };
      w.spec.targets[0].kind = "Deployment";
    }).map((p) => p.replace(/: .*/, "")),
    ["spec.freezes[0].to", "spec.freezes[1].to", "spec.targets[0].kind"],
  );
  // A schedule the schema refuses and a freeze only the engine refuses, in the other order.
  assert.deepEqual(
    problems((w) => {
      w.spec.schedules[1].duration = "-2h";
      w.spec.freezes[1].to = "2026-12-01T00:00";
    }),
    ['spec.schedules[1].duration: duration "-2h" is negative: a window must last a positive time', `spec.freezes[1].to: ${toBefore}`],
  );
  // A freeze the schema found wrong is not looked at again by the engine.
  assert.deepEqual(
    problems((w) => (w.spec.freezes[1] = { from: "2026-12-20T00:00", to: "2026-12-01T00:00", start: "@daily" })),
    ["spec.freezes[1]: mixes a recurring freeze (start, end, duration, recurrence) with a one-off freeze (from, to): give one kind"],
  );
});

test("a timing alone (schedule preview's flags, the editor's preview) reports every problem at once too", () => {
  try {
    validateTiming(
      {
        timeZone: "Europe/Berlin",
        freezes: [
          { from: "2026-12-20T00:00", to: "2026-12-01T00:00" },
          { start: "0 0 30 2 *", duration: "1h" },
        ],
      },
      "preview",
      NOW,
    );
    assert.fail("expected a ValidationError");
  } catch (e) {
    assert.ok(e instanceof ValidationError, String(e));
    assert.deepEqual(
      e.problems.map((p) => p.path),
      ["spec.freezes[0].to", "spec.freezes[1].start"],
    );
    assert.match(e.message, /^spec\.freezes\[0\]\.to: .*\nspec\.freezes\[1\]\.start: /);
  }
  // The engine alone names every part it refuses.
  assert.throws(
    () =>
      compileWindow("w", {
        timeZone: "Europe/Berlin",
        freezes: [
          { from: "2026-12-20T00:00", to: "2026-12-01T00:00" },
          { from: "2027-12-20T00:00", to: "2027-12-01T00:00" },
        ],
      }),
    (e: unknown) => e instanceof ScheduleError && e.problems.map((p) => p.path).join(" ") === "spec.freezes[0].to spec.freezes[1].to",
  );
});
