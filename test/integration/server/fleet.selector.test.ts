// Everywhere the Config Service lists a fleet's clusters, ?selector= chooses them, on a real bare remote with the real kustomize: /metrics, fleet windows,
// fleet overrides.
/* eslint-disable @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return -- answers are untyped JSON, checked field by field */

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { checkMetrics } from "../../harness/promtool.ts";
import { serveGeneratedFleet, type ServedFleet } from "../../support/fleet.ts";

let fleet: ServedFleet;
before(async () => {
  fleet = await serveGeneratedFleet("fleet-selector", 8);
});
after(async () => {
  await fleet.close();
});

const viewer = (): { token: string } => ({ token: fleet.tokens.viewer });

/** The lines of the fluxgate_serve_windows series. */
const windowLines = (text: string): string[] => text.split("\n").filter((l) => l.startsWith("fluxgate_serve_windows{"));
/** The names of the metrics a page has. */
const names = (text: string): string[] => [...text.matchAll(/^# TYPE (\S+)/gm)].map((m) => m[1] as string);

test("/metrics?selector= keeps the per-cluster series of the matching clusters and every metric of the service", async () => {
  const all = await fleet.call("GET", "/metrics", viewer());
  assert.equal(all.status, 200);
  const clustersOf = (lines: string[]): string[] => [...new Set(lines.map((l) => /cluster="([^"]+)"/.exec(l)?.[1]))].sort() as string[];
  assert.deepEqual(clustersOf(windowLines(all.text)), ["edge-0", "edge-1", "edge-2", "edge-3", "edge-4", "edge-5", "edge-6", "edge-7"]);
  const canary = await fleet.call("GET", "/metrics?selector=ring%3Dcanary", viewer());
  assert.equal(canary.status, 200, canary.text);
  assert.equal(canary.headers.get("content-type"), all.headers.get("content-type"));
  assert.deepEqual(clustersOf(windowLines(canary.text)), ["edge-0", "edge-4"]);
  assert.deepEqual(
    windowLines(canary.text),
    windowLines(all.text).filter((l) => /cluster="edge-[04]"/.test(l)),
    "the same series, only fewer",
  );
  assert.deepEqual(names(canary.text), names(all.text), "the service's own metrics stay");
  const lint = await checkMetrics(canary.text);
  assert.equal(lint.code, 0, lint.output);
  const none = await fleet.call("GET", "/metrics?selector=ring%3Dlab", viewer());
  assert.equal(none.status, 200);
  assert.deepEqual(windowLines(none.text), []);
  assert.match(none.text, /^# TYPE fluxgate_serve_windows gauge$/m);
  const bad = await fleet.call("GET", `/metrics?selector=${encodeURIComponent("ring in (prod")}`, viewer());
  assert.equal(bad.status, 400);
  assert.match(bad.body.error.message, /selector/);
  const anonymous = await fetch(`${fleet.service.url}/metrics?selector=ring%3Dcanary`);
  assert.equal(anonymous.status, 401);
});

test("GET /fleet/windows?selector= shows the matching clusters' part of each fleet window, as fluxgate fleet window list --selector does", async () => {
  const all = await fleet.call("GET", "/api/v1/fleet/windows", viewer());
  assert.equal(all.status, 200);
  assert.equal(all.body.selector, undefined);
  assert.deepEqual(
    all.body.windows.map((w: any) => w.name),
    ["canary-changes", "prod-changes"],
  );
  const ap = await fleet.call("GET", "/api/v1/fleet/windows?selector=region%3Dap", viewer());
  assert.equal(ap.status, 200, ap.text);
  assert.equal(ap.body.selector, "region=ap");
  // region ap: edge-2 and edge-5, both ring prod; edge-5 patches its fleet window.
  assert.deepEqual(ap.body.windows, [
    {
      name: "prod-changes",
      selector: "ring=prod",
      file: "fleet/windows/prod-changes/prod-changes.yaml",
      clusters: [
        { name: "edge-2", patched: false, labelsMatch: true },
        { name: "edge-5", patched: true, labelsMatch: true },
      ],
      missing: [],
    },
  ]);
  const bad = await fleet.call("GET", "/api/v1/fleet/windows?selector=region%3D%3D%3D", viewer());
  assert.equal(bad.status, 400);
  assert.match(bad.body.error.message, /selector/);
});

test("GET /fleet/overrides?selector= shows each fleet override's part on the matching clusters", async () => {
  const made = await fleet.call("POST", "/api/v1/fleet/overrides", {
    body: { selector: "region=eu", until: "2026-11-23T18:00:00Z", reason: "incident in eu", name: "eu-stop" },
  });
  assert.equal(made.status, 201, made.text);
  const all = await fleet.call("GET", "/api/v1/fleet/overrides", viewer());
  assert.deepEqual([...new Set(all.body.overrides[0].overrides.map((o: any) => o.cluster))], ["edge-0", "edge-3", "edge-6"]);
  const canary = await fleet.call("GET", "/api/v1/fleet/overrides?selector=ring%3Dcanary", viewer());
  assert.equal(canary.status, 200, canary.text);
  assert.equal(canary.body.selector, "ring=canary");
  assert.equal(canary.body.overrides.length, 1);
  assert.equal(canary.body.overrides[0].name, "eu-stop");
  assert.deepEqual(
    canary.body.overrides[0].overrides.map((o: any) => `${o.cluster}/${o.window}`),
    ["edge-0/apps-rt", "edge-0/canary-changes", "edge-0/nightly"],
  );
  const ap = await fleet.call("GET", "/api/v1/fleet/overrides?selector=region%3Dap", viewer());
  assert.deepEqual(ap.body.overrides, [], "no part of it is on those clusters");
  const bad = await fleet.call("GET", "/api/v1/fleet/overrides?selector=%21", viewer());
  assert.equal(bad.status, 400);
});
