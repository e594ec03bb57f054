// The per-commit caches of fleet reads: window states for /metrics counted once per commit and state change, timelines once per commit and range.

import assert from "node:assert/strict";
import { test } from "node:test";
import { Gauge, Registry } from "prom-client";
import { TimelineCache } from "../../../src/server/timeline.ts";
import { WindowStates } from "../../../src/server/window-states.ts";
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
  const small = new TimelineCache(1);
  await small.get(fleet.commit, k, NOW, NOW + 86_400_000);
  await small.get(fleet.commit, k, NOW, NOW + 86_400_000);
  assert.equal(small.hits, 0, "past its byte budget nothing is kept");
});
