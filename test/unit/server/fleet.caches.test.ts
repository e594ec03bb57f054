// The per-commit caches of fleet reads: window states for /metrics counted once per commit and state change, timelines once per commit and range.

import assert from "node:assert/strict";
import { test } from "node:test";
import { Gauge, Registry } from "prom-client";
import { TimelineCache } from "../../../src/server/views/timeline.ts";
import { windowView } from "../../../src/server/views/views.ts";
import { ClusterStates, WindowStates } from "../../../src/server/views/window-states.ts";
import { fixture, NOW } from "../../support/server.ts";

test("the windows gauge is counted again only when the commit moves or a window's state changes", async (t) => {
  const f = await fixture();
  t.after(f.cleanup);
  const fleet = await f.repository.fleet();
  const gauge = new Gauge({ name: "w", help: "w", labelNames: ["cluster", "state"] as const, registers: [new Registry()] });
  const states = new WindowStates();
  states.update(gauge, fleet, NOW);
  const first = JSON.stringify((await gauge.get()).values);
  states.update(gauge, fleet, NOW + 1000);
  assert.equal(states.counted, 1, "a scrape a second later is answered from the count");
  assert.equal(JSON.stringify((await gauge.get()).values), first);
  // edge-berlin's apps-rw closes Thursday 17:00 Berlin; the nightly windows change before that.
  states.update(gauge, fleet, NOW + 7 * 86_400_000);
  assert.equal(states.counted, 2, "a week later some window changed state: counted again");
  states.update(gauge, { ...fleet, commit: "another" }, NOW + 7 * 86_400_000);
  assert.equal(states.counted, 3, "a new commit is counted again");
});

test("a cluster's timeline is computed once per commit and range", async (t) => {
  const f = await fixture();
  t.after(f.cleanup);
  const fleet = await f.repository.fleet();
  const cache = new TimelineCache();
  const k = fleet.clusters[0];
  assert.ok(k !== undefined);
  const a = await cache.get(fleet.commit, k, NOW, NOW + 86_400_000);
  const b = await cache.get(fleet.commit, k, NOW, NOW + 86_400_000);
  assert.equal(cache.hits, 1);
  assert.equal(a, b);
  await cache.get(fleet.commit, k, NOW, NOW + 2 * 86_400_000);
  await cache.get("another", k, NOW, NOW + 86_400_000);
  assert.equal(cache.hits, 1, "another range or commit is computed");
  // A page: the clusters not kept are computed together; the one kept comes from the cache, the same bytes.
  const page = await cache.many(fleet.commit, fleet.clusters, NOW, NOW + 86_400_000);
  assert.equal(cache.hits, 2);
  assert.equal(page[0], a);
  assert.deepEqual(
    page.map((json) => (JSON.parse(new TextDecoder().decode(json)) as { cluster: string }).cluster),
    fleet.clusters.map((c) => c.entry.name),
  );
  assert.equal((await cache.many(fleet.commit, fleet.clusters, NOW, NOW + 86_400_000))[1], page[1]);
  assert.equal(cache.hits, 2 + fleet.clusters.length, "asked again, every one is kept");
  const small = new TimelineCache(1);
  await small.get(fleet.commit, k, NOW, NOW + 86_400_000);
  await small.get(fleet.commit, k, NOW, NOW + 86_400_000);
  assert.equal(small.hits, 0, "past its byte budget nothing is kept");
});

test("a cluster's window states are computed once per commit and again only when one of its windows changes state", async (t) => {
  const f = await fixture();
  t.after(f.cleanup);
  const fleet = await f.repository.fleet();
  const k = fleet.clusters[0];
  assert.ok(k !== undefined);
  const states = new ClusterStates();
  const first = states.windows(fleet.commit, k, NOW);
  assert.deepEqual(states.windows(fleet.commit, k, NOW + 1000), first, "a second later: the same states");
  assert.equal(states.computed, 1, "answered from what was kept");
  assert.deepEqual(
    first,
    k.windows.map((w) => {
      const v = windowView(w, k.overrides, NOW);
      return { name: v.name, valid: v.valid, state: v.state, overridden: v.overridden, reason: v.reason, nextTransition: v.nextTransition, fleet: v.fleet };
    }),
    "as windowView has them",
  );
  // At the next transition of any window, and after it, the states are computed again and are those of that instant.
  const next = Math.min(...first.flatMap((w) => (w.nextTransition === null ? [] : [Date.parse(w.nextTransition.at)])));
  assert.ok(Number.isFinite(next));
  const later = states.windows(fleet.commit, k, next);
  assert.equal(states.computed, 2);
  assert.deepEqual(
    later.map((w) => w.state),
    k.windows.map((w) => windowView(w, k.overrides, next).state),
  );
  assert.notDeepEqual(later, first, "a window changed state");
  states.windows(fleet.commit, k, NOW);
  assert.equal(states.computed, 3, "a clock that goes back is not answered from a later view");
  states.windows("another", k, NOW);
  assert.equal(states.computed, 4, "a new commit is computed again");
});
