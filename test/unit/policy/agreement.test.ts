// The surfaces cannot disagree: for generated windows, overrides, targets and instants, the controller's decision,
// `fluxgate explain -o json`'s, the Config Service's per-target timeline and `check`'s selection say the same thing.
//
// Each surface is reached the way it reads its input: the controller and explain from Kubernetes objects (with a
// creation time), the Config Service from YAML files in a repository (no creation time, the requested-at stamp it
// writes), check from rendered manifests. A change to any one of them that makes it decide differently fails here.

import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { stringify } from "yaml";
import { decisionResult, explained } from "../../../src/cli/explain.ts";
import { Views } from "../../../src/policy/views.ts";
import type { RenderedCluster, RenderedObject } from "../../../src/gitops/render.ts";
import { fluxObjects, governance, governors } from "../../../src/gitops/windows.ts";
import { refKey } from "../../../src/gitops/objects.ts";
import { planFor } from "../../../src/controller/target.ts";
import { decisionOfPlan, type OverrideView } from "../../../src/policy/index.ts";
import { buildFleet, parseRepositoryFile, type FileAt } from "../../../src/server/model/model.ts";
import { computeTimeline, timelineInput } from "../../../src/server/views/timeline.ts";
import type { ClusterTimeline, TargetTimeline } from "../../../src/server/views/views.ts";

/** Fixed, so a failure is the same failure on every run (and names its counterexample). */
const SEED = 20261123;
const RUNS = 120;
const NS = "flux-system";
const FROM = Date.parse("2026-11-23T00:00:00Z"); // a Monday
const DAYS = 14;
const TO = FROM + DAYS * 86_400_000;
const HOUR = 3_600_000;

// ---- the corpus -------------------------------------------------------------------------------------------

const labelKey = fc.constantFrom("fluxgate.io/type", "tier", "team");
const labelValue = fc.constantFrom("rw", "rt", "edge", "core");
const labels = fc.dictionary(labelKey, labelValue, { maxKeys: 3 });
const targetName = fc.constantFrom("apps-rw", "apps-rt", "infra", "web");

const expression = fc.oneof(
  fc.record({ key: labelKey, operator: fc.constantFrom("In", "NotIn"), values: fc.uniqueArray(labelValue, { minLength: 1, maxLength: 2 }) }),
  fc.record({ key: labelKey, operator: fc.constantFrom("Exists", "DoesNotExist") }),
);
const selector = fc.oneof(
  fc.record({ matchLabels: labels }),
  fc.record({ matchExpressions: fc.array(expression, { minLength: 1, maxLength: 2 }) }),
  fc.record({ matchLabels: labels, matchExpressions: fc.array(expression, { minLength: 1, maxLength: 2 }) }),
);
const windowTarget = fc.oneof(
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("Kustomization"), name: targetName }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("Kustomization"), labelSelector: selector }) },
  // Another namespace, or another kind: selects none of the targets below.
  { weight: 1, arbitrary: fc.record({ kind: fc.constantFrom("Kustomization", "HelmRelease"), name: targetName, namespace: fc.constantFrom(NS, "apps") }) },
);

const cron = fc.constantFrom("0 8 * * MON", "0 22 * * *", "0 0 * * FRI", "30 9 * * 1-5", "0 */6 * * *", "0 2 * * TUE,THU", "15 3 * * SUN", "0 17 * * THU");
const duration = fc.constantFrom("1h", "2h", "90m", "24h", "48h");
// RFC 5545 rules whose starts fall inside the two weeks (the last Friday, the first Sunday, every other Tuesday) or around them.
const rrule = fc.constantFrom(
  "FREQ=DAILY",
  "FREQ=WEEKLY;BYDAY=MO,WE",
  "FREQ=DAILY;BYDAY=SA,SU",
  "FREQ=MONTHLY;BYDAY=1SU",
  "FREQ=MONTHLY;BYDAY=-1FR",
  "FREQ=MONTHLY;BYDAY=2SU",
  "FREQ=WEEKLY;INTERVAL=2;BYDAY=TU",
  "FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1",
  "FREQ=MONTHLY;BYMONTHDAY=1,-1",
);
const recurrence = fc
  .record({
    recurrence: rrule,
    at: fc.constantFrom("00:00", "02:30", "08:00", "22:00"),
    length: fc.oneof(
      duration.map((d) => ({ duration: d })),
      fc.constantFrom("06:00", "17:00", "01:30").map((e) => ({ endAt: e })),
    ),
    exdate: fc.option(fc.integer({ min: 0, max: DAYS }), { nil: undefined }),
  })
  .map(({ length, exdate, ...r }) => ({
    ...r,
    ...length,
    // INTERVAL counts from a first date; a Tuesday, so its weeks are the Tuesdays from 24 November.
    ...(r.recurrence.includes("INTERVAL") ? { dtstart: "2026-11-10" } : {}),
    ...(exdate === undefined ? {} : { exdates: [new Date(FROM + exdate * 86_400_000).toISOString().slice(0, 10)] }),
  }));
const schedule = fc.oneof(fc.record({ start: cron, duration }), fc.record({ start: cron, end: cron }), recurrence);
const localDate = fc.integer({ min: -2, max: DAYS + 1 }).map((d) => new Date(FROM + d * 86_400_000).toISOString().slice(0, 10));
const freeze = fc.oneof(
  fc.record({ start: cron, duration, reason: fc.constantFrom("No deploys on Fridays", "Change board") }, { requiredKeys: ["start", "duration"] }),
  fc.tuple(recurrence, fc.constantFrom("Patch Sunday", "Change board")).map(([r, reason]) => ({ ...r, reason })),
  fc.tuple(localDate, fc.integer({ min: 1, max: 5 }), fc.constantFrom("T00:00", "T12:30")).map(([from, days, time]) => ({
    from: `${from}${time}`,
    to: `${new Date(Date.parse(`${from}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10)}${time}`,
    reason: "Holiday freeze",
  })),
);

interface WindowCase {
  name: string;
  spec: Record<string, unknown>;
}

const windowCase = (name: string): fc.Arbitrary<WindowCase> =>
  fc
    .record({
      timeZone: fc.constantFrom("UTC", "Europe/Berlin", "America/New_York", "Asia/Tokyo"),
      schedules: fc.array(schedule, { maxLength: 2 }),
      freezes: fc.array(freeze, { maxLength: 2 }),
      targets: fc.array(windowTarget, { minLength: 1, maxLength: 2 }),
      mode: fc.constantFrom("Suspend", "Suspend", "Suspend", "Gate"),
      // Now and then an invalid window: it holds what it names, on every surface.
      broken: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
    })
    .map(({ mode, broken, ...spec }) => ({
      name,
      spec: {
        ...spec,
        ...(broken ? { schedules: [{ start: "0 0 30 2 *", duration: "1h" }] } : {}),
        ...(mode === "Gate" ? { mode, gate: { upstream: { kind: "GitRepository", name: "gitops" }, gatedName: `${name}-gated` } } : {}),
      },
    }));

interface OverrideCase {
  name: string;
  window: string;
  action: "Open" | "Freeze";
  requestedAt: number;
  until: number;
  reason: string;
}

const overrideCase = (name: string, windows: readonly string[]): fc.Arbitrary<OverrideCase> =>
  fc
    .record({
      window: fc.constantFrom(...windows),
      action: fc.constantFrom<"Open" | "Freeze">("Open", "Freeze"),
      at: fc.integer({ min: -24, max: DAYS * 24 }),
      hours: fc.integer({ min: 1, max: 7 * 24 }),
      reason: fc.constantFrom("Hotfix 4711", "Incident 88"),
    })
    .map(({ at, hours, ...o }) => ({ ...o, name, requestedAt: FROM + at * HOUR, until: FROM + (at + hours) * HOUR }));

interface TargetCase {
  name: string;
  labels: Record<string, string>;
}

const corpus = fc.integer({ min: 1, max: 3 }).chain((n) => {
  const names = ["apps-rw", "nightly", "weekend"].slice(0, n);
  return fc.record({
    windows: fc.tuple(...names.map(windowCase)),
    overrides: fc.integer({ min: 0, max: 3 }).chain((k) => fc.tuple(...Array.from({ length: k }, (_, i) => overrideCase(`override-${i}`, names)))),
    targets: fc.uniqueArray(fc.record({ name: targetName, labels }), { minLength: 1, maxLength: 3, selector: (t) => t.name }),
    instants: fc.array(
      fc.integer({ min: 0, max: DAYS * 24 * 60 - 1 }).map((m) => FROM + m * 60_000),
      { minLength: 1, maxLength: 4 },
    ),
  });
});

// ---- each surface, reading the corpus as it reads its input --------------------------------------------------

function windowManifest(w: WindowCase): Record<string, unknown> {
  return { apiVersion: "fluxgate.io/v1alpha1", kind: "ReconciliationWindow", metadata: { name: w.name, namespace: NS }, spec: w.spec };
}

function targetManifest(t: TargetCase): Record<string, unknown> {
  return {
    apiVersion: "kustomize.toolkit.fluxcd.io/v1",
    kind: "Kustomization",
    metadata: { name: t.name, namespace: NS, labels: t.labels },
    spec: { interval: "10m", path: `./deploy/${t.name}`, prune: true, sourceRef: { kind: "GitRepository", name: "flux-system" } },
  };
}

const stamp = (t: number): string => new Date(t).toISOString().replace(/\.\d{3}Z$/, "Z");

/** An override as the Config Service commits it: stamped with when it was asked for. */
function overrideManifest(o: OverrideCase): Record<string, unknown> {
  return {
    apiVersion: "fluxgate.io/v1alpha1",
    kind: "WindowOverride",
    metadata: { name: o.name, namespace: NS, annotations: { "fluxgate.io/requested-at": stamp(o.requestedAt), "fluxgate.io/requested-by": "eddie" } },
    spec: { windowRef: { name: o.window }, action: o.action, until: stamp(o.until), reason: o.reason },
  };
}

/** The same objects as the API server serves them once Flux applied them: with a uid, a generation and a creation time (a minute after the commit). */
function inCluster(manifest: Record<string, unknown>, created: number): Record<string, unknown> {
  const metadata = manifest.metadata as Record<string, unknown>;
  return { ...manifest, metadata: { ...metadata, uid: `uid-${String(metadata.name)}`, generation: 1, creationTimestamp: stamp(created) } };
}

type Case = { windows: WindowCase[]; overrides: OverrideCase[]; targets: TargetCase[] };

/** The controller: its views of windows and overrides (policy/views.ts) and the plan its target reconciler acts on (planFor). */
function controllerDecision(c: Case, target: TargetCase, now: number) {
  const views = new Views();
  const windows = c.windows.map((w) => views.window(inCluster(windowManifest(w), FROM - 86_400_000), now).view);
  const overrides = c.overrides
    .map((o) => views.override(inCluster(overrideManifest(o), o.requestedAt + 60_000), now).view)
    .filter((v): v is OverrideView => v !== null);
  const plan = planFor(inCluster(targetManifest(target), FROM), windows, overrides, now);
  return { selecting: plan.action === "release" ? [] : plan.windows.map((w) => w.name), decision: decisionResult(decisionOfPlan(plan)) };
}

/** `fluxgate explain -o json`: its pure core over what it lists from the cluster. */
function explainDecision(c: Case, target: TargetCase, now: number) {
  const e = explained(
    inCluster(targetManifest(target), FROM),
    c.windows.map((w) => inCluster(windowManifest(w), FROM - 86_400_000)),
    c.overrides.map((o) => inCluster(overrideManifest(o), o.requestedAt + 60_000)),
    now,
  );
  return { selecting: e.selecting.map((w) => w.name), decision: JSON.parse(JSON.stringify(decisionResult(e.decision))) as ReturnType<typeof decisionResult> };
}

const REPOSITORY = `apiVersion: fluxgate.io/v1alpha1\nkind: Repository\ntypes: [{name: rw, window: true}]\nclusters: [{name: edge, path: clusters/edge, timeZone: Europe/Berlin}]\n`;

/** The Config Service: the repository's files at one commit, the cluster's timeline as the worker serialises it. */
function serviceTimeline(c: Case, from = FROM): ClusterTimeline {
  const file = (path: string, value: unknown): FileAt => ({ path, text: stringify(value), blob: path });
  const files = [
    ...c.windows.map((w) => file(`clusters/edge/windows/${w.name}.yaml`, windowManifest(w))),
    ...c.overrides.map((o) => file(`clusters/edge/windows/overrides/${o.name}.yaml`, overrideManifest(o))),
    ...c.targets.map((t) => file(`clusters/edge/${t.name}.yaml`, targetManifest(t))),
  ];
  const fleet = buildFleet("commit", parseRepositoryFile(REPOSITORY), files, from);
  const cluster = fleet.clusters[0];
  assert.ok(cluster !== undefined);
  return JSON.parse(new TextDecoder().decode(computeTimeline(timelineInput(cluster, from, from + (TO - FROM))))) as ClusterTimeline;
}

/** `check`: which windows govern which Flux object in the rendered cluster. */
function checkSelection(c: Case): Map<string, string[]> {
  const object = (body: Record<string, unknown>): RenderedObject => {
    const [group] = String(body.apiVersion).split("/");
    const metadata = body.metadata as { name: string; namespace: string };
    return { ref: { group: group as string, kind: String(body.kind), namespace: metadata.namespace, name: metadata.name }, body, file: null };
  };
  const cluster: RenderedCluster = {
    name: "edge",
    path: "clusters/edge",
    kustomizations: [
      {
        name: "flux-system",
        namespace: NS,
        path: "clusters/edge",
        body: null,
        file: null,
        appliedBy: null,
        objects: [...c.windows.map((w) => object(windowManifest(w))), ...c.targets.map((t) => object(targetManifest(t)))],
        error: null,
        inputs: [],
      },
    ],
  };
  const objects = fluxObjects(cluster);
  const governed = governance(objects, governors(cluster, FROM));
  const out = new Map<string, string[]>();
  for (const o of objects)
    out.set(
      o.ref.name,
      (governed.get(refKey(o.ref)) ?? []).map((g) => String((g.object.body.metadata as { name: string }).name)),
    );
  return out;
}

/** The decision of a lane at `now`, in the terms of `explain -o json`. */
function laneAt(lane: TargetTimeline | undefined, now: number) {
  if (lane === undefined) return { effect: "release", state: null, overridden: false, rule: null };
  const s = lane.segments.find((x) => Date.parse(x.start) <= now && now < Date.parse(x.end));
  assert.ok(s !== undefined, `the lane of ${lane.name} covers ${stamp(now)}`);
  return {
    effect: s.effect,
    state: s.state === null ? null : s.state === "open" ? "Open" : s.state === "frozen" ? "Frozen" : "Closed",
    overridden: s.overridden,
    rule: s.cause === null ? null : { window: s.cause.window, kind: s.cause.kind, label: s.cause.label, reason: s.cause.reason ?? null },
  };
}

// ---- the property ------------------------------------------------------------------------------------------

/** Checks one case; throws (an assertion) where two surfaces disagree. */
function agree(c: Case, instants: readonly number[], from = FROM): void {
  const timeline = serviceTimeline(c, from);
  const check = checkSelection(c);
  for (const target of c.targets) {
    const lane = timeline.targets.find((l) => l.kind === "Kustomization" && l.namespace === NS && l.name === target.name);
    const checked = check.get(target.name) ?? [];
    for (const now of instants) {
      const controller = controllerDecision(c, target, now);
      const explain = explainDecision(c, target, now);
      const where = `${target.name} at ${stamp(now)}`;
      // Selection: the controller, explain, the service's lane and check pick the same windows.
      assert.deepEqual(explain.selecting, controller.selecting, `explain selects other windows than the controller for ${where}`);
      assert.deepEqual(lane?.windows ?? [], controller.selecting, `the service's lane selects other windows than the controller for ${where}`);
      assert.deepEqual([...checked].sort(), [...controller.selecting].sort(), `check selects other windows than the controller for ${where}`);
      // The decision: explain says exactly what the controller decided, sentence included.
      assert.deepEqual(explain.decision, controller.decision, `explain decides otherwise than the controller for ${where}`);
      // The service's lane draws the same state and effect at that instant, and names the same rule as people read it:
      // its window, kind, label (`0 8 * * MON → 0 17 * * THU`) and reason, also where two touching schedules share a run.
      const rule = controller.decision.rule;
      assert.deepEqual(
        laneAt(lane, now),
        { effect: controller.decision.effect, state: controller.decision.state, overridden: controller.decision.overridden, rule },
        `the service's lane draws otherwise than the controller decides for ${where}`,
      );
    }
  }
}

test("controller, explain -o json, the Config Service's per-target timeline and check agree on every generated case, cron and recurrence", () => {
  fc.assert(
    fc.property(corpus, (c) => agree({ windows: [...c.windows], overrides: [...c.overrides], targets: c.targets }, c.instants)),
    { seed: SEED, numRuns: RUNS, endOnFailure: true },
  );
});

test("a known disagreement: nightly opens at 22:00, but apps-rw's Friday freeze wins for the Kustomization both select", () => {
  const c: Case = {
    windows: [
      {
        name: "apps-rw",
        spec: {
          timeZone: "Europe/Berlin",
          schedules: [{ start: "0 8 * * MON", end: "0 17 * * THU" }],
          freezes: [{ start: "0 0 * * FRI", duration: "24h", reason: "No deploys on Fridays" }],
          targets: [{ kind: "Kustomization", name: "apps-rw" }],
        },
      },
      {
        name: "nightly",
        spec: {
          timeZone: "Europe/Berlin",
          schedules: [{ start: "0 22 * * *", duration: "2h" }],
          targets: [{ kind: "Kustomization", labelSelector: { matchLabels: { "fluxgate.io/type": "rw" } } }],
        },
      },
    ],
    overrides: [],
    targets: [{ name: "apps-rw", labels: { "fluxgate.io/type": "rw" } }],
  };
  const friday22 = Date.parse("2026-11-27T21:00:00Z"); // Fri 22:00 CET
  agree(c, [friday22, Date.parse("2026-11-24T21:30:00Z")]);
  const lane = serviceTimeline(c).targets.find((l) => l.name === "apps-rw");
  assert.deepEqual(lane?.windows, ["apps-rw", "nightly"]);
  assert.equal(laneAt(lane, friday22).state, "Frozen", "the lane shows the freeze, not nightly's opening");
  assert.equal(
    controllerDecision(c, c.targets[0] as TargetCase, friday22).decision.message,
    'Frozen by freeze "No deploys on Fridays" (0 0 * * FRI → +24h) until Sat 2026-11-28 00:00 CET',
  );
});

test("a 2-hour override committed by the service is drawn over those 2 hours, as the controller has it", () => {
  const requestedAt = Date.parse("2026-11-25T10:00:00Z");
  const c: Case = {
    windows: [{ name: "apps-rw", spec: { schedules: [{ start: "0 8 * * MON", duration: "2h" }], targets: [{ kind: "Kustomization", name: "apps-rw" }] } }],
    overrides: [{ name: "hotfix", window: "apps-rw", action: "Open", requestedAt, until: requestedAt + 2 * HOUR, reason: "Hotfix 4711" }],
    targets: [{ name: "apps-rw", labels: {} }],
  };
  agree(c, [requestedAt - HOUR, requestedAt + HOUR, requestedAt + 3 * HOUR]);
  const band = serviceTimeline(c).windows[0]?.overrides[0];
  assert.deepEqual([band?.start, band?.end], ["2026-11-25T10:00:00Z", "2026-11-25T12:00:00Z"], "not the week before until");
});

test("two touching schedules: the lane names the schedule explain names at each instant of their merged run", () => {
  const c: Case = {
    windows: [
      {
        name: "apps-rw",
        spec: {
          schedules: [
            { start: "0 8 * * MON", duration: "2h" },
            { start: "0 10 * * MON", duration: "2h" },
          ],
          targets: [{ kind: "Kustomization", name: "apps-rw" }],
        },
      },
    ],
    overrides: [],
    targets: [{ name: "apps-rw", labels: {} }],
  };
  const nine = Date.parse("2026-11-23T09:00:00Z");
  const eleven = Date.parse("2026-11-23T11:00:00Z");
  agree(c, [nine, eleven]);
  const lane = serviceTimeline(c).targets.find((l) => l.name === "apps-rw");
  assert.deepEqual([laneAt(lane, nine).rule?.label, laneAt(lane, eleven).rule?.label], ["0 8 * * MON → +2h", "0 10 * * MON → +2h"]);
  const open = lane?.segments.filter((s) => s.state === "open").map((s) => [s.start, s.end]);
  assert.deepEqual(open?.slice(0, 2), [
    ["2026-11-23T08:00:00Z", "2026-11-23T10:00:00Z"],
    ["2026-11-23T10:00:00Z", "2026-11-23T12:00:00Z"],
  ]);
});

/** A window of one schedule or freeze for `apps-rw`, in New York. */
function newYork(entry: Record<string, unknown>, kind: "schedules" | "freezes" = "schedules"): Case {
  const always = kind === "freezes" ? { schedules: [{ start: "0 0 * * *", duration: "24h" }] } : {};
  return {
    windows: [{ name: "apps-rw", spec: { timeZone: "America/New_York", ...always, [kind]: [entry], targets: [{ kind: "Kustomization", name: "apps-rw" }] } }],
    overrides: [],
    targets: [{ name: "apps-rw", labels: {} }],
  };
}

/** The controller's state at each instant, once every surface agreed on it. */
function states(c: Case, instants: readonly string[], from: number): (string | null)[] {
  const at = instants.map((i) => Date.parse(i));
  agree(c, at, from);
  return at.map((t) => controllerDecision(c, c.targets[0] as TargetCase, t).decision.state);
}

test("in the spring-forward gap every surface reads a recurrence as RFC 5545 does (02:30 is 03:30 EDT) and a cron start as the first instant after it (03:00 EDT)", () => {
  const from = Date.parse("2026-03-07T00:00:00Z");
  // Sunday 8 March 2026: New York skips 02:00-03:00 EST (07:00Z).
  const instants = ["2026-03-08T07:10:00Z", "2026-03-08T07:40:00Z", "2026-03-08T08:10:00Z", "2026-03-08T08:40:00Z"];
  assert.deepEqual(states(newYork({ recurrence: "FREQ=DAILY", at: "02:30", duration: "1h" }), instants, from), ["Closed", "Open", "Open", "Closed"]);
  assert.deepEqual(states(newYork({ start: "30 2 * * *", duration: "1h" }), instants, from), ["Open", "Open", "Closed", "Closed"]);
  // The second Sunday of March is that day: a freeze given by the rule starts at 03:30 EDT too, and beats the all-day schedule.
  assert.deepEqual(states(newYork({ recurrence: "FREQ=MONTHLY;BYDAY=2SU", at: "02:30", endAt: "04:00", reason: "Patch Sunday" }, "freezes"), instants, from), [
    "Open",
    "Frozen",
    "Open",
    "Open",
  ]);
});

test("in the fall-back hour every surface starts a recurrence at the first of the two 01:30s, and ends its endAt on the same wall clock", () => {
  const from = Date.parse("2026-10-31T00:00:00Z");
  // Sunday 1 November 2026: 01:00-02:00 happens twice in New York (EDT 05:00Z, then EST 06:00Z).
  const instants = ["2026-11-01T05:20:00Z", "2026-11-01T05:40:00Z", "2026-11-01T06:40:00Z", "2026-11-01T07:10:00Z", "2026-11-01T08:10:00Z"];
  assert.deepEqual(states(newYork({ recurrence: "FREQ=WEEKLY;BYDAY=SU", at: "01:30", duration: "1h" }), instants, from), [
    "Closed",
    "Open",
    "Closed",
    "Closed",
    "Closed",
  ]);
  // endAt 03:00 is 08:00Z that day: an hour and a half of wall clock, two and a half hours elapsed.
  assert.deepEqual(states(newYork({ recurrence: "FREQ=WEEKLY;BYDAY=SU", at: "01:30", endAt: "03:00" }), instants, from), [
    "Closed",
    "Open",
    "Open",
    "Open",
    "Closed",
  ]);
});
