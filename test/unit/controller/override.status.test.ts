// An override's phase, conditions and effective end: Active, Expired, Cancelled (by whom, when), WindowNotFound, Invalid.

import assert from "node:assert/strict";
import { test } from "node:test";
import { overrideStatus } from "../../../src/controller/override.ts";
import { Views } from "../../../src/policy/views.ts";

const CREATED = "2026-11-25T10:00:00Z";
const T = (s: string): number => Date.parse(s);

function override(annotations: Record<string, string> = {}, until = "2026-11-25T12:00:00Z"): object {
  return {
    apiVersion: "fluxgate.io/v1alpha1",
    kind: "WindowOverride",
    metadata: { name: "hotfix", namespace: "flux-system", uid: "u1", generation: 1, creationTimestamp: CREATED, annotations },
    spec: { windowRef: { name: "weekday-changes" }, action: "Open", until, reason: "hotfix INC-42" },
  };
}

const ready = (s: ReturnType<typeof overrideStatus>): [string, string] => {
  const c = s.conditions?.find((x) => x.type === "Ready");
  return [c?.status ?? "", c?.reason ?? ""];
};

test("Active until until, then Expired; Ready=True with the reason of each, observedGeneration set", () => {
  const entry = new Views().override(override(), T(CREATED));
  const active = overrideStatus(entry, "flux-system", true, T("2026-11-25T11:00:00Z"), 1, undefined);
  assert.equal(active.phase, "Active");
  assert.deepEqual(ready(active), ["True", "OverrideStarted"]);
  assert.equal(active.conditions?.[0]?.observedGeneration, 1);
  assert.equal(active.conditions?.find((x) => x.type === "Stalled")?.status, "False");
  const expired = overrideStatus(entry, "flux-system", true, T("2026-11-25T12:00:00Z"), 1, active);
  assert.deepEqual([expired.phase, expired.expiredAt, ...ready(expired)], ["Expired", "2026-11-25T12:00:00Z", "True", "OverrideExpired"]);
});

test("a window that does not exist: WindowNotFound, Ready=False, not stalled; once over, Expired all the same", () => {
  const entry = new Views().override(override(), T(CREATED));
  const waiting = overrideStatus(entry, "flux-system", false, T("2026-11-25T11:00:00Z"), 1, undefined);
  assert.equal(waiting.phase, "WindowNotFound");
  assert.deepEqual(ready(waiting), ["False", "WindowNotFound"]);
  assert.equal(waiting.conditions?.find((x) => x.type === "Stalled")?.status, "False");
  assert.equal(waiting.observedGeneration, undefined, "not Ready: observedGeneration does not move");
  assert.equal(overrideStatus(entry, "flux-system", false, T("2026-11-25T11:00:00Z"), 2, { ...waiting, observedGeneration: 1 }).observedGeneration, 1);
  assert.equal(overrideStatus(entry, "flux-system", false, T("2026-11-25T12:00:01Z"), 1, waiting).phase, "Expired");
});

test("an override starts when it was asked for: the earlier of its creation and the requested-at annotation", () => {
  const stamped = new Views().override(override({ "fluxgate.io/requested-at": "2026-11-25T09:30:00Z" }), T(CREATED));
  assert.equal(stamped.view?.start, T("2026-11-25T09:30:00Z"), "committed by the Config Service at 09:30, created by Flux at 10:00");
  const later = new Views().override(override({ "fluxgate.io/requested-at": "2026-11-25T10:30:00Z" }), T(CREATED));
  assert.equal(later.view?.start, T(CREATED), "a stamp after its creation cannot make it start later");
  const tooLong = new Views().override(override({ "fluxgate.io/requested-at": "2026-11-18T09:00:00Z" }), T(CREATED));
  assert.match(tooLong.error ?? "", /^spec\.until: is more than 7 days after the override was asked for \(2026-11-18T09:00:00\.000Z\)/);
  const unreadable = new Views().override(override({ "fluxgate.io/requested-at": "yesterday" }), T(CREATED));
  assert.match(unreadable.error ?? "", /metadata\.annotations\[fluxgate\.io\/requested-at\]: must be an RFC 3339 date-time/);
});

test("a cancellation ends it there, keeps who and when; one after until changes nothing; one before creation leaves nothing; an unreadable one is Invalid", () => {
  const views = new Views();
  const entry = views.override(override({ "fluxgate.io/cancelled-at": "2026-11-25T11:00:00Z", "fluxgate.io/cancelled-by": "alice" }), T(CREATED));
  assert.equal(entry.view?.end, T("2026-11-25T11:00:00Z"), "the effective end");
  const s = overrideStatus(entry, "flux-system", true, T("2026-11-25T11:00:00Z"), 1, undefined);
  assert.deepEqual(
    [s.phase, s.cancelledBy, s.cancelledAt, s.expiredAt, ...ready(s)],
    ["Cancelled", "alice", "2026-11-25T11:00:00Z", "2026-11-25T11:00:00Z", "True", "OverrideCancelled"],
  );
  assert.equal(s.message, "cancelled by alice at 2026-11-25T11:00:00Z (it was to last until 2026-11-25T12:00:00Z); kept as a record until deleted");
  assert.equal(overrideStatus(entry, "flux-system", true, T("2026-11-25T10:59:59Z"), 1, undefined).phase, "Active", "in force until the cancellation");

  const late = new Views().override(override({ "fluxgate.io/cancelled-at": "2026-11-25T13:00:00Z" }), T(CREATED));
  assert.equal(late.view?.end, T("2026-11-25T12:00:00Z"));
  assert.equal(overrideStatus(late, "flux-system", true, T("2026-11-25T12:30:00Z"), 1, undefined).phase, "Expired");

  const early = new Views().override(override({ "fluxgate.io/cancelled-at": "2026-11-25T09:00:00Z" }), T(CREATED));
  assert.equal(early.view?.end, early.view?.start, "an empty interval: never in force");

  const bad = new Views().override(override({ "fluxgate.io/cancelled-at": "now" }), T(CREATED));
  const invalid = overrideStatus(bad, "flux-system", true, T("2026-11-25T11:00:00Z"), 1, undefined);
  assert.equal(invalid.phase, "Invalid");
  assert.match(invalid.message ?? "", /^metadata\.annotations\[fluxgate\.io\/cancelled-at\]: must be an RFC 3339 date-time with a zone/);
  assert.deepEqual(ready(invalid), ["False", "InvalidSpec"]);
  assert.equal(invalid.conditions?.find((x) => x.type === "Stalled")?.status, "True");
});

test("a cancellation is seen although the generation does not move (annotations)", () => {
  const views = new Views();
  assert.equal(views.override(override(), T(CREATED)).cancelled, null);
  assert.equal(
    views.override(override({ "fluxgate.io/cancelled-at": "2026-11-25T11:00:00Z", "fluxgate.io/cancelled-by": "bob" }), T(CREATED)).cancelled?.by,
    "bob",
  );
});

test("an override whose window never existed ends Expired without a start, saying it never took effect; one whose window was deleted says so", () => {
  const entry = new Views().override(override(), T(CREATED));
  const waiting = overrideStatus(entry, "flux-system", false, T("2026-11-25T11:00:00Z"), 1, undefined);
  assert.equal(waiting.startedAt, undefined, "never in force");
  assert.match(waiting.message ?? "", /\(is the name right\?\)$/);
  const over = overrideStatus(entry, "flux-system", false, T("2026-11-25T12:00:01Z"), 1, waiting);
  assert.deepEqual([over.phase, over.startedAt], ["Expired", undefined]);
  assert.equal(
    over.message,
    "expired at 2026-11-25T12:00:00Z without taking effect: window weekday-changes did not exist in flux-system while it lasted; kept as a record until deleted",
  );

  const active = overrideStatus(entry, "flux-system", true, T("2026-11-25T11:00:00Z"), 1, undefined);
  assert.equal(active.startedAt, "2026-11-25T10:00:00Z");
  const deleted = overrideStatus(entry, "flux-system", false, T("2026-11-25T11:30:00Z"), 1, active);
  assert.deepEqual([deleted.phase, deleted.startedAt], ["WindowNotFound", "2026-11-25T10:00:00Z"]);
  assert.equal(deleted.message, "window weekday-changes was deleted from flux-system: this override has no effect unless it is created again");
  const ended = overrideStatus(entry, "flux-system", false, T("2026-11-25T12:00:01Z"), 1, deleted);
  assert.deepEqual(
    [ended.phase, ended.startedAt, ended.message],
    ["Expired", "2026-11-25T10:00:00Z", "expired at 2026-11-25T12:00:00Z; kept as a record until deleted"],
  );
});
