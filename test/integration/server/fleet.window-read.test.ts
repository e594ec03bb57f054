// Reading one fleet window's base (what the dashboard's base editor loads and sends back with If-Match), and a cluster's overrides naming the fleet freeze they
// belong to.
/* eslint-disable @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return -- answers are untyped JSON, checked field by field */

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { patchedZone } from "../../../src/devenv/generated-fleet.ts";
import { serveGeneratedFleet, type ServedFleet } from "../../support/fleet.ts";

let fleet: ServedFleet;

before(async () => {
  fleet = await serveGeneratedFleet("fleet-window-read", 8);
});
after(() => fleet.close());

test("GET /fleet/windows/{name} gives the base's spec before any patch, its clusters and its ETag; PUT takes that ETag back", async () => {
  const r = await fleet.call("GET", "/api/v1/fleet/windows/prod-changes", { token: fleet.tokens.viewer });
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body.name, "prod-changes");
  assert.equal(r.body.selector, "ring=prod");
  assert.equal(r.body.file, "fleet/windows/prod-changes/prod-changes.yaml");
  assert.deepEqual(r.body.spec, {
    timeZone: "UTC",
    schedules: [{ start: "0 8 * * MON-THU", end: "0 17 * * MON-THU" }],
    targets: [{ kind: "Kustomization", name: "apps" }],
  });
  assert.deepEqual(
    r.body.clusters.map((k: any) => `${k.name}${k.patched ? " patched" : ""}`),
    ["edge-1 patched", "edge-2", "edge-3", "edge-5 patched", "edge-6", "edge-7"],
  );
  assert.equal(r.headers.get("etag"), `"${r.body.etag}"`);
  // edge-1 renders the window in its patched zone; the base keeps UTC.
  const rendered = await fleet.call("GET", "/api/v1/clusters/edge-1/windows/prod-changes");
  assert.equal(rendered.body.timeZone, patchedZone(1));
  assert.equal(rendered.body.etag, r.body.etag, "a cluster's fleet window carries its base's ETag");

  const before = await fleet.state();
  const spec = { ...r.body.spec, schedules: [{ start: "0 9 * * MON-THU", end: "0 16 * * MON-THU" }] };
  const stale = await fetch(`${fleet.service.url}/api/v1/fleet/windows/prod-changes`, {
    method: "PUT",
    headers: { authorization: `Bearer ${fleet.tokens.editor}`, "content-type": "application/json", "if-match": '"0000000000000000000000000000000000000000"' },
    body: JSON.stringify({ spec, reason: "later start" }),
  });
  assert.equal(stale.status, 412);
  assert.deepEqual(await fleet.state(), before, "a stale version commits nothing");
  const put = await fetch(`${fleet.service.url}/api/v1/fleet/windows/prod-changes`, {
    method: "PUT",
    headers: { authorization: `Bearer ${fleet.tokens.editor}`, "content-type": "application/json", "if-match": `"${r.body.etag as string}"` },
    body: JSON.stringify({ spec, reason: "later start" }),
  });
  assert.equal(put.status, 200, await put.text());
  const again = await fleet.call("GET", "/api/v1/fleet/windows/prod-changes");
  assert.equal(again.body.spec.schedules[0].start, "0 9 * * MON-THU");
  assert.notEqual(again.body.etag, r.body.etag);

  const missing = await fleet.call("GET", "/api/v1/fleet/windows/nothing");
  assert.equal(missing.status, 404);
  assert.match(missing.body.error.message, /fleet window "nothing" does not exist \(fleet windows: canary-changes, prod-changes\)/);
  const bad = await fleet.call("GET", "/api/v1/fleet/windows/Bad_Name");
  assert.equal(bad.status, 400);
  assert.match(bad.body.error.message, /the name must be a Kubernetes object name/);
});

test("a cluster's overrides say which fleet freeze each belongs to; its own say none", async () => {
  const freeze = await fleet.call("POST", "/api/v1/fleet/overrides", {
    body: { selector: "region=eu", until: "2026-11-23T18:00:00Z", reason: "incident in eu", name: "eu-stop" },
  });
  assert.equal(freeze.status, 201, freeze.text);
  const own = await fleet.call("POST", "/api/v1/clusters/edge-3/overrides", { body: { window: "nightly", action: "Open", duration: "1h", reason: "hotfix" } });
  assert.equal(own.status, 201, own.text);
  const list = await fleet.call("GET", "/api/v1/clusters/edge-3/overrides");
  assert.equal(list.status, 200, list.text);
  const byName = Object.fromEntries(list.body.overrides.map((o: any) => [o.name, o.fleetOverride]));
  assert.deepEqual(
    Object.entries(byName)
      .filter(([, f]) => f === "eu-stop")
      .map(([n]) => n)
      .sort(),
    ["eu-stop-apps-rt", "eu-stop-nightly", "eu-stop-prod-changes"],
  );
  assert.deepEqual(Object.entries(byName).filter(([, f]) => f === null).length, 1, "the cluster's own override belongs to no fleet freeze");
});
