// The fleet page's groups: by a label's value in the order of cluster names (numbers as numbers), the clusters without the label last, each group's clusters
// in the list's order.

import assert from "node:assert/strict";
import { test } from "node:test";
import { groupsOf } from "../../../src/server/dashboard/client/fleet.ts";
import { parseSelector } from "../../../src/server/dashboard/client/selector.ts";
import { viewOf } from "../../../src/server/dashboard/client/view.ts";

const cluster = (name: string, labels: Record<string, string>) => ({ name, path: `clusters/${name}`, timeZone: "UTC", labels });
const grouped = (clusters: ReturnType<typeof cluster>[], group: string): string[] =>
  groupsOf(clusters, { ...viewOf("#/", Date.UTC(2026, 11, 1)), group }, parseSelector("", "selector")).map(
    (g) => `${g.label}: ${g.clusters.map((k) => k.name).join(" ")}`,
  );

test("groups by plain values come in numeric order, the clusters without the label last", () => {
  const clusters = [
    cluster("a", { ring: "ring-10" }),
    cluster("b", {}),
    cluster("c", { ring: "ring-9" }),
    cluster("d", { ring: "canary" }),
    cluster("e", { ring: "ring-10" }),
  ];
  assert.deepEqual(grouped(clusters, "ring"), ["ring=canary: d", "ring=ring-9: c", "ring=ring-10: a e", "no ring label: b"]);
});

test("values that are not plain (capitals, '_') are ordered as an English collator orders them", () => {
  const clusters = [cluster("a", { site: "b_2" }), cluster("b", { site: "B-1" }), cluster("c", { site: "a" }), cluster("d", {})];
  const collator = new Intl.Collator("en", { numeric: true });
  const expected = ["b_2", "B-1", "a"].sort((x, y) => collator.compare(x, y)).map((v) => `site=${v}`);
  assert.deepEqual(
    grouped(clusters, "site").map((g) => g.slice(0, g.indexOf(":"))),
    [...expected, "no site label"],
  );
});

test("no grouping: one unnamed group of every cluster, in the list's order", () => {
  assert.deepEqual(grouped([cluster("x", {}), cluster("a", { ring: "1" })], ""), [": x a"]);
});
