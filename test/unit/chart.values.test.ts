// The Helm chart's metadata and values: its appVersion is the package's version, and every value is in docs/install.md's values table.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { parse } from "yaml";

const ROOT = new URL("../../", import.meta.url);
const read = (path: string): string => readFileSync(new URL(path, ROOT), "utf8");

/** Values documented as one map (the container's `resources`), not key by key. */
const WHOLE = new Set(["resources"]);

/** Dotted paths of the values a user sets: the leaves, where an empty map or list is a leaf. */
function leaves(value: unknown, prefix = ""): string[] {
  if (value === null || typeof value !== "object" || Array.isArray(value) || Object.keys(value).length === 0 || WHOLE.has(prefix)) return [prefix];
  return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) => leaves(v, prefix === "" ? k : `${prefix}.${k}`));
}

test("the chart's appVersion and version are the package's version, and its image the one config/manager runs", () => {
  const chart = parse(read("charts/fluxgate/Chart.yaml")) as { version: string; appVersion: string };
  const { version } = JSON.parse(read("package.json")) as { version: string };
  assert.equal(chart.appVersion, version);
  assert.equal(chart.version, version);
  const values = parse(read("charts/fluxgate/values.yaml")) as { image: { repository: string; tag: string } };
  const image = values.image.tag === "" ? `${values.image.repository}:${chart.appVersion}` : `${values.image.repository}:${values.image.tag}`;
  assert.match(read("config/manager/deployment.yaml"), new RegExp(`image: ${image.replace(/[.]/g, "\\.")}\\n`));
});

test("every value of charts/fluxgate/values.yaml is a row of docs/install.md's values table, and every row a value", () => {
  const values = leaves(parse(read("charts/fluxgate/values.yaml")));
  const doc = read("docs/install.md");
  const table = doc.slice(doc.indexOf("### Values"));
  const rows = [...table.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1] as string);
  assert.ok(values.length > 10, `values.yaml parsed: ${values.join(", ")}`);
  assert.deepEqual([...rows].sort(), [...values].sort());
});
