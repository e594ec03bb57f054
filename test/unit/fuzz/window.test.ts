// Fuzzing window validation (src/api: the zod schemas, then the time engine): any value is a valid window or a ValidationError whose every problem names a
// field and says what is wrong.

import assert from "node:assert/strict";
import fc from "fast-check";
import { TARGET_KINDS, validateTiming, validateWindow, ValidationError } from "../../../src/api/index.ts";
import { Evaluator, type CompiledWindow } from "../../../src/schedule/index.ts";
import { fuzz } from "./harness.ts";
import { cronText, dateTimeText, durationText, instant, junk, OBJECT_WORDS, validCronText, zoneText } from "./inputs.ts";

const NOW = Date.parse("2026-11-22T10:00:00Z");

const name = fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,20}[a-z0-9])?$/);
const duration = fc.oneof(
  fc.integer({ min: 1, max: 600 }).map((n) => `${n}m`),
  fc.integer({ min: 1, max: 48 }).map((n) => `${n}h`),
  fc.constantFrom("1h30m", "1.5h", "90s", "24h"),
);
const zone = fc.constantFrom("UTC", "Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata", "Pacific/Chatham");
const localTime = fc
  .tuple(fc.integer({ min: Date.UTC(2025, 0, 1), max: Date.UTC(2028, 0, 1) }), fc.integer({ min: 1, max: 90 * 86_400_000 }), fc.boolean())
  .map(([t, length, seconds]) => [t, t + length].map((x) => new Date(x).toISOString().slice(0, seconds ? 19 : 16)) as [string, string]);

const schedule = fc.oneof(fc.record({ start: validCronText, end: validCronText }), fc.record({ start: validCronText, duration }));
const freeze = fc.oneof(
  fc.record({ start: validCronText, duration, reason: fc.string({ minLength: 1 }) }, { requiredKeys: ["start", "duration"] }),
  fc.record({ start: validCronText, end: validCronText }),
  fc.record({ span: localTime, reason: fc.string({ minLength: 1 }) }).map(({ span: [from, to], reason }) => ({ from, to, reason })),
);
const target = fc.oneof(
  fc.record({ kind: fc.constantFrom(...TARGET_KINDS), name, namespace: name }, { requiredKeys: ["kind", "name"] }),
  fc.record({
    kind: fc.constantFrom(...TARGET_KINDS),
    labelSelector: fc.record({ matchLabels: fc.dictionary(fc.constantFrom("fluxgate.io/type", "app", "tier"), name, { minKeys: 1, maxKeys: 2 }) }),
  }),
);

/** A valid window (as far as its parts go: its cron expressions may name dates that never exist). */
const validWindow = fc
  .record({
    metadata: fc.record({ name, namespace: name }, { requiredKeys: ["name"] }),
    timeZone: zone,
    schedules: fc.array(schedule, { maxLength: 3 }),
    freezes: fc.array(freeze, { maxLength: 2 }),
    targets: fc.array(target, { minLength: 1, maxLength: 3 }),
    gate: fc.boolean(),
  })
  .map(({ metadata, gate, ...spec }) => ({
    apiVersion: "fluxgate.io/v1alpha1",
    kind: "ReconciliationWindow",
    metadata,
    spec: gate ? { ...spec, mode: "Gate", gate: { upstream: { kind: "GitRepository", name: "gitops" }, gatedName: "gitops-gated" } } : spec,
  }));

/** Where a mutation strikes. */
const PATHS = [
  "metadata",
  "metadata.name",
  "spec",
  "spec.timeZone",
  "spec.schedules",
  "spec.schedules.0",
  "spec.schedules.0.start",
  "spec.schedules.0.end",
  "spec.schedules.0.duration",
  "spec.schedules.1.end",
  "spec.freezes",
  "spec.freezes.0",
  "spec.freezes.0.start",
  "spec.freezes.0.duration",
  "spec.freezes.0.from",
  "spec.freezes.0.to",
  "spec.freezes.0.reason",
  "spec.freezes.1.from",
  "spec.targets",
  "spec.targets.0",
  "spec.targets.0.kind",
  "spec.targets.0.name",
  "spec.targets.0.namespace",
  "spec.targets.0.labelSelector",
  "spec.targets.0.labelSelector.matchLabels",
  "spec.targets.0.labelSelector.matchExpressions",
  "spec.mode",
  "spec.gate",
  "spec.gate.gatedName",
  "spec.gate.upstream",
  "spec.gate.upstream.kind",
  "spec.closeGracePeriod",
  "spec.unknown",
  "spec.schedules.0.stop",
];

/** What a mutation puts there; undefined deletes. */
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.oneof(cronText, durationText, zoneText, dateTimeText) },
  { weight: 2, arbitrary: junk },
  { weight: 2, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: fc.oneof(fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.constant({}), fc.constant([])) },
  { weight: 1, arbitrary: fc.constantFrom(...OBJECT_WORDS, "Gate", "Suspend", "Kustomization", "OCIRepository") },
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: 60, max: 70 })
      .map((n) => Array.from({ length: n }, (_, i) => ({ start: "@daily", duration: "1h", kind: "Kustomization", name: `t${i}` }))),
  },
  { weight: 1, arbitrary: fc.integer({ min: 250, max: 2000 }).map((n) => "a".repeat(n)) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  {
    weight: 1,
    arbitrary: fc.record({
      matchExpressions: fc.array(
        fc.record({
          key: fc.string(),
          operator: fc.constantFrom("In", "NotIn", "Exists", "DoesNotExist", "Equals"),
          values: fc.array(fc.string(), { maxLength: 2 }),
        }),
        { maxLength: 2 },
      ),
    }),
  },
);

/** Sets (or deletes) `path` in a copy of `value`, creating objects on the way. */
function mutate(value: unknown, path: string, to: unknown): unknown {
  const copy = structuredClone(value) as Record<string, unknown>;
  const keys = path.split(".");
  let node: Record<string, unknown> = copy;
  for (const key of keys.slice(0, -1)) {
    const next = node[key];
    if (typeof next !== "object" || next === null) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  const last = keys[keys.length - 1] as string;
  if (to === undefined) delete node[last];
  else node[last] = to;
  return copy;
}

/** A valid window with up to two mutations: near-valid input. */
const manifest: fc.Arbitrary<unknown> = fc
  .tuple(validWindow, fc.array(fc.tuple(fc.constantFrom(...PATHS), hostileValue), { maxLength: 2 }))
  .map(([w, mutations]) => mutations.reduce<unknown>((acc, [path, to]) => mutate(acc, path, to), w));

function pick(o: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((k) => o[k] !== undefined).map((k) => [k, o[k]]));
}

/** A rejection is a ValidationError listing problems, each with a message, and a path unless the whole value is wrong. */
function checkRejection(e: unknown, input: unknown, prefix: string): void {
  assert.ok(e instanceof ValidationError, `not a ValidationError: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  assert.ok(e.problems.length > 0, "a ValidationError without problems");
  const isObject = typeof input === "object" && input !== null && !Array.isArray(input);
  for (const p of e.problems) {
    assert.ok(p.message.trim().length > 0, `a problem without a message at ${p.path}`);
    if (isObject) assert.ok(p.path !== "" && p.path.startsWith(prefix), `a problem that names no field: ${JSON.stringify(p)}`);
  }
  assert.ok(e.message.length > 0);
}

/** An accepted window compiles and answers at an instant. */
function checkAccepted(compiled: CompiledWindow, t: number): void {
  const d = new Evaluator([compiled]).stateAt(t);
  assert.ok(["open", "closed", "frozen"].includes(d.state));
  if (d.until !== null) assert.ok(d.until > t);
  if (d.since !== null) assert.ok(d.since <= t);
}

fuzz(import.meta.url, {
  "any JSON value or object: a window or a ValidationError naming fields": {
    arbitrary: fc.oneof(
      fc.jsonValue({ maxDepth: 4 }),
      fc.anything({ maxDepth: 3 }),
      fc.object({ maxDepth: 3, key: fc.constantFrom("apiVersion", "kind", "metadata", "spec", "name", "schedules", "targets", "start", ...OBJECT_WORDS) }),
    ),
    numRuns: 1500,
    check: (input: unknown) => {
      try {
        validateWindow(input, NOW);
      } catch (e) {
        checkRejection(e, input, "");
      }
    },
  },

  "near-valid manifests: a window that evaluates, or a ValidationError naming fields": {
    arbitrary: fc.tuple(manifest, instant),
    numRuns: 1000,
    check: ([input, t]: [unknown, number]) => {
      let compiled;
      try {
        compiled = validateWindow(input, NOW).compiled;
      } catch (e) {
        checkRejection(e, input, "");
        return;
      }
      checkAccepted(compiled, t);
    },
  },

  "near-valid timing alone (as schedule preview builds it): valid, or a ValidationError naming fields under its prefix": {
    arbitrary: manifest
      .map((m) => (m as { spec?: unknown }).spec)
      .map((s) => (typeof s === "object" && s !== null ? pick(s as Record<string, unknown>, ["timeZone", "schedules", "freezes"]) : s)),
    numRuns: 1500,
    check: (input: unknown) => {
      try {
        validateTiming(input, "preview", NOW, "spec");
      } catch (e) {
        checkRejection(e, input, "spec");
      }
    },
  },
});
