// The fleet in the Config Service's API on a real bare remote with the real kustomize: fleet windows as clusters render them, their base and patches edited,
// fleet freezes, selectors and pages.
/* eslint-disable @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return -- answers are untyped JSON, checked field by field */

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { parse } from "yaml";
import { patchedZone } from "../../../src/devenv/generated-fleet.ts";
import { serveGeneratedFleet, type ServedFleet } from "../../support/fleet.ts";
import { git } from "../../support/server.ts";

const CLUSTERS = 8;
let fleet: ServedFleet;
let work: string;
let kustomize: string;

before(async () => {
  fleet = await serveGeneratedFleet("fleet-api", CLUSTERS);
  ({ work, kustomize } = fleet);
});
after(() => fleet.close());

async function call(method: string, path: string, body?: unknown, token?: string): Promise<{ status: number; body: any }> {
  const { status, body: answer } = await fleet.call(method, path, { ...(body === undefined ? {} : { body }), ...(token === undefined ? {} : { token }) });
  return { status, body: answer };
}

const state = (): ReturnType<ServedFleet["state"]> => fleet.state();

/** The files the last commit changed. */
async function lastCommitFiles(): Promise<string[]> {
  return (await git(work, "diff", "--name-only", "HEAD~1", "HEAD")).split("\n").filter((l) => l !== "");
}

/** What the real kustomize builds of a cluster's windows folder in the working copy: the zone of each window. */
async function builtZones(cluster: string): Promise<Record<string, string>> {
  const { stdout } = await promisify(execFile)(kustomize, ["build", join(work, `clusters/${cluster}/windows`)]);
  const out: Record<string, string> = {};
  for (const doc of stdout.split(/^---$/m)) {
    const name = /^ {2}name: (\S+)$/m.exec(doc)?.[1];
    const zone = /^ {2}timeZone: (\S+)$/m.exec(doc)?.[1];
    if (name !== undefined && /kind: ReconciliationWindow/.test(doc)) out[name] = zone ?? "UTC";
  }
  return out;
}

test("a cluster's windows are its effective windows: fleet windows as kustomize renders them, with their base and the cluster's patch", async () => {
  const patched = await call("GET", "/api/v1/clusters/edge-1/windows");
  assert.equal(patched.status, 200);
  assert.equal(patched.body.fleetError, null);
  assert.deepEqual(
    patched.body.windows.map((w: any) => w.name),
    ["apps-rt", "nightly", "prod-changes"],
  );
  const [rt, , fleetWindow] = patched.body.windows;
  assert.equal(rt.fleet, null, "a window of the cluster's own says so");
  assert.equal(fleetWindow.path, "fleet/windows/prod-changes/prod-changes.yaml");
  assert.equal(fleetWindow.fleet.window, "prod-changes");
  assert.equal(fleetWindow.fleet.base, "fleet/windows/prod-changes/prod-changes.yaml");
  assert.equal(fleetWindow.fleet.selector, "ring=prod");
  assert.equal(fleetWindow.fleet.patch.file, "clusters/edge-1/windows/kustomization.yaml");
  assert.match(fleetWindow.fleet.patch.patch, /\/spec\/timeZone/);
  assert.equal(fleetWindow.timeZone, patchedZone(1), "the cluster's patch applies");
  assert.deepEqual(await builtZones("edge-1"), { "apps-rt": "UTC", nightly: "UTC", "prod-changes": patchedZone(1) }, "as kustomize builds the folder");

  const plain = await call("GET", "/api/v1/clusters/edge-2/windows/prod-changes");
  assert.equal(plain.status, 200);
  assert.equal(plain.body.fleet.patch, null);
  assert.equal(plain.body.timeZone, "UTC");
  assert.equal(plain.body.manifest.metadata.labels["fluxgate.io/fleet-window"], "prod-changes");
  const canary = await call("GET", "/api/v1/clusters/edge-0/windows");
  assert.deepEqual(
    canary.body.windows.map((w: any) => w.fleet?.window ?? null),
    [null, "canary-changes", null],
  );
});

test("?selector= and ?limit=&continue= page the clusters, with their labels; bad ones get a 400", async () => {
  const first = await call("GET", "/api/v1/clusters?selector=ring%3Dcanary&limit=1");
  assert.equal(first.status, 200);
  assert.deepEqual(first.body.clusters, [{ name: "edge-0", path: "clusters/edge-0", timeZone: "UTC", labels: { ring: "canary", region: "eu" } }]);
  assert.equal(first.body.total, 2);
  assert.equal(first.body.selector, "ring=canary");
  assert.equal(typeof first.body.continue, "string");
  const second = await call("GET", `/api/v1/clusters?selector=ring%3Dcanary&limit=1&continue=${first.body.continue}`);
  assert.deepEqual(
    second.body.clusters.map((k: any) => k.name),
    ["edge-4"],
  );
  assert.equal(second.body.continue, null);
  const set = await call("GET", `/api/v1/clusters?selector=${encodeURIComponent("region in (eu,ap),ring!=canary")}`);
  assert.deepEqual(
    set.body.clusters.map((k: any) => k.name),
    ["edge-2", "edge-3", "edge-5", "edge-6"],
  );
  for (const [query, field] of [
    ["selector=ring%3D%3D%3D", "selector"],
    ["limit=0", "limit"],
    ["limit=x", "limit"],
    ["continue=bm9wZQ", "continue"],
  ] as const) {
    const r = await call("GET", `/api/v1/clusters?${query}`);
    assert.equal(r.status, 400, query);
    assert.match(r.body.error.message, new RegExp(field), query);
  }
});

test("GET /timeline gives one page of the selected clusters, fleet windows drawn as rendered", async () => {
  const r = await call("GET", "/api/v1/timeline?selector=region%3Deu&limit=2&from=2026-11-23T00:00:00Z&to=2026-11-24T00:00:00Z");
  assert.equal(r.status, 200);
  assert.deepEqual(
    r.body.clusters.map((k: any) => k.cluster),
    ["edge-0", "edge-3"],
  );
  assert.equal(r.body.total, 3);
  assert.equal(typeof r.body.continue, "string");
  const edge3 = r.body.clusters[1];
  assert.ok(
    edge3.windows.some((w: any) => w.name === "prod-changes"),
    "the fleet window has its lane",
  );
});

test("GET /fleet/clusters gives a page of clusters with each window's state now in one call", async () => {
  const r = await call("GET", "/api/v1/fleet/clusters?selector=ring%3Dprod&limit=2");
  assert.equal(r.status, 200);
  assert.equal(r.body.total, 6);
  assert.deepEqual(
    r.body.clusters.map((k: any) => k.name),
    ["edge-1", "edge-2"],
  );
  const edge2 = r.body.clusters[1];
  assert.deepEqual(edge2.labels, { ring: "prod", region: "ap" });
  // Monday 10:00 UTC: prod-changes (08:00 to 17:00 UTC, Monday to Thursday) is open.
  const window = edge2.windows.find((w: any) => w.name === "prod-changes");
  assert.equal(window.state, "open");
  assert.equal(window.fleet.window, "prod-changes");
  assert.equal(edge2.live, null);
  assert.equal(edge2.pushed, null);
});

test("a cluster's fleet window cannot be changed as its own file: 409 naming where it is changed, nothing committed", async () => {
  const before = await state();
  const spec = { schedules: [{ start: "0 1 * * *", duration: "1h" }], targets: [{ kind: "Kustomization", name: "apps" }] };
  const put = await call("PUT", "/api/v1/clusters/edge-2/windows/prod-changes", { spec, reason: "try" });
  assert.equal(put.status, 409);
  assert.match(put.body.error.message, /PUT \/api\/v1\/fleet\/windows\/prod-changes/);
  const del = await call("DELETE", "/api/v1/clusters/edge-2/windows/prod-changes?reason=try");
  assert.equal(del.status, 409);
  assert.deepEqual(await state(), before);
});

test("a per-cluster patch is one commit of that cluster's kustomization.yaml; kustomize and the API agree", async () => {
  const before = await state();
  const r = await call("PUT", "/api/v1/clusters/edge-2/windows/prod-changes/patch", { timeZone: "Asia/Tokyo", reason: "the Tokyo site works its own hours" });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.pushed, true);
  assert.equal(r.body.window.timeZone, "Asia/Tokyo");
  assert.notEqual(r.body.window.fleet.patch, null);
  const after = await state();
  assert.equal(await git(work, "rev-parse", "HEAD~1"), before.head, "one commit");
  assert.equal(after.remote, after.head, "pushed");
  assert.deepEqual(await lastCommitFiles(), ["clusters/edge-2/windows/kustomization.yaml"]);
  assert.equal((await builtZones("edge-2"))["prod-changes"], "Asia/Tokyo");
  const other = await call("GET", "/api/v1/clusters/edge-3/windows/prod-changes");
  assert.equal(other.body.timeZone, "UTC", "other clusters keep the base");
  const own = await call("PUT", "/api/v1/clusters/edge-2/windows/nightly/patch", { timeZone: "UTC", reason: "x" });
  assert.equal(own.status, 409, "a window of the cluster's own is not patched");
  const empty = await call("PUT", "/api/v1/clusters/edge-2/windows/prod-changes/patch", { reason: "x" });
  assert.equal(empty.status, 400);
  assert.deepEqual(await state(), after);
});

test("PUT /fleet/windows/{name} changes the base: one commit, every cluster that includes it follows, patches kept", async () => {
  const before = await state();
  const read = await fetch(`${fleet.service.url}/api/v1/fleet/windows`, { headers: { authorization: `Bearer ${fleet.tokens.viewer}` } });
  const listing: any = await read.json();
  assert.deepEqual(
    listing.windows.map((w: any) => w.name),
    ["canary-changes", "prod-changes"],
  );
  const spec = { timeZone: "UTC", schedules: [{ start: "0 9 * * MON-THU", end: "0 16 * * MON-THU" }], targets: [{ kind: "Kustomization", name: "apps" }] };
  const bad = await call("PUT", "/api/v1/fleet/windows/prod-changes", { spec: { ...spec, schedules: [{ start: "nope", duration: "1h" }] }, reason: "x" });
  assert.equal(bad.status, 400);
  assert.deepEqual(await state(), before);
  const r = await call("PUT", "/api/v1/fleet/windows/prod-changes", { spec, reason: "shorter days for the whole fleet" });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.clusters, 6);
  assert.equal(await git(work, "rev-parse", "HEAD~1"), before.head, "one commit");
  assert.deepEqual(await lastCommitFiles(), ["fleet/windows/prod-changes/prod-changes.yaml"]);
  const base = await git(work, "show", "HEAD:fleet/windows/prod-changes/prod-changes.yaml");
  assert.match(base, /fluxgate\.io\/fleet-window: prod-changes/, "the base keeps its label");
  for (const cluster of ["edge-3", "edge-5"]) {
    const w = await call("GET", `/api/v1/clusters/${cluster}/windows/prod-changes`);
    assert.equal(w.body.spec.schedules[0].start, "0 9 * * MON-THU", cluster);
  }
  const patched = await call("GET", "/api/v1/clusters/edge-1/windows/prod-changes");
  assert.equal(patched.body.timeZone, patchedZone(1), "the cluster's patch still applies");
  assert.equal(patched.body.spec.schedules[0].start, "0 9 * * MON-THU");
});

test("a fleet freeze is one commit on every matching cluster, listed as one and ended everywhere in one commit", async () => {
  const before = await state();
  const until = "2026-11-23T18:00:00Z";
  const refused: Array<[unknown, number]> = [
    [{ selector: "region=nowhere", until, reason: "x" }, 400],
    [{ selector: "region==", until, reason: "x" }, 400],
    [{ selector: "region=eu", until: "2026-11-22T00:00:00Z", reason: "x" }, 400],
    [{ selector: "region=eu", until: "2026-12-23T00:00:00Z", reason: "x" }, 400],
    [{ selector: "region=eu", until, reason: " " }, 400],
    [{ selector: "region=eu", until, duration: "1h", reason: "x" }, 400],
    [{ selector: "region=eu", until, reason: "x", name: "Bad_Name" }, 400],
  ];
  for (const [body, status] of refused) {
    const r = await call("POST", "/api/v1/fleet/overrides", body);
    assert.equal(r.status, status, JSON.stringify(body));
    assert.equal(typeof r.body.error.message, "string");
  }
  assert.deepEqual(await state(), before, "refused requests commit nothing");
  const viewer = await call("POST", "/api/v1/fleet/overrides", { selector: "region=eu", until, reason: "x" }, fleet.tokens.viewer);
  assert.equal(viewer.status, 403);

  const r = await call("POST", "/api/v1/fleet/overrides", { selector: "region=eu", until, reason: "incident in eu", name: "eu-stop" });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  assert.equal(r.body.name, "eu-stop");
  assert.equal(r.body.overrides.length, 9, "three windows on each of edge-0, edge-3, edge-6");
  assert.ok(r.body.overrides.every((o: any) => o.delivery === "git"));
  assert.equal(await git(work, "rev-parse", "HEAD~1"), before.head, "one commit");
  assert.equal((await state()).remote, r.body.commit);
  const files = await lastCommitFiles();
  assert.equal(files.length, 12, "nine overrides and three kustomization.yaml");
  const windows = await call("GET", "/api/v1/clusters/edge-3/windows/prod-changes");
  assert.equal(windows.body.state, "frozen");
  assert.equal(windows.body.overridden, true);

  const list = await call("GET", "/api/v1/fleet/overrides");
  assert.equal(list.body.overrides.length, 1);
  assert.equal(list.body.overrides[0].name, "eu-stop");
  assert.equal(list.body.overrides[0].stage, "active");
  assert.deepEqual([...new Set(list.body.overrides[0].overrides.map((o: any) => o.cluster))], ["edge-0", "edge-3", "edge-6"]);
  const again = await call("POST", "/api/v1/fleet/overrides", { selector: "region=eu", until, reason: "x", name: "eu-stop" });
  assert.equal(again.status, 409);

  const missing = await call("DELETE", "/api/v1/fleet/overrides/nothing?reason=x");
  assert.equal(missing.status, 404);
  const head = (await state()).head;
  const end = await call("DELETE", "/api/v1/fleet/overrides/eu-stop?reason=resolved");
  assert.equal(end.status, 200, JSON.stringify(end.body));
  assert.equal(await git(work, "rev-parse", "HEAD~1"), head, "one commit");
  assert.equal((await lastCommitFiles()).length, 12);
  assert.deepEqual((await call("GET", "/api/v1/fleet/overrides")).body.overrides, []);
  assert.equal((await call("GET", "/api/v1/clusters/edge-3/windows/prod-changes")).body.overridden, false);
  const status = await git(work, "status", "--porcelain", "--untracked-files=all");
  assert.equal(status, "");
});

/** The window `name` as the real kustomize builds a cluster's windows folder in the working copy (origin annotations aside). */
async function builtWindow(cluster: string, name: string): Promise<unknown> {
  const { stdout } = await promisify(execFile)(kustomize, ["build", join(work, `clusters/${cluster}/windows`)]);
  return stdout
    .split(/^---$/m)
    .map((doc) => parse(doc) as { kind?: string; metadata?: { name?: string } } | null)
    .find((o) => o?.kind === "ReconciliationWindow" && o.metadata?.name === name);
}

test("POST /fleet/windows adds a fleet window: one commit of its base and the selected clusters' kustomization.yaml, pushed; they render it as kustomize does", async () => {
  const spec = { timeZone: "Europe/Berlin", schedules: [{ start: "0 22 * * *", duration: "2h" }], targets: [{ kind: "Kustomization", name: "apps" }] };
  const before = await state();
  const refused: Array<[string, Record<string, unknown>, number, RegExp]> = [
    ["a selector that cannot be read", { name: "us-nightly", selector: "region in eu", spec, reason: "x" }, 400, /^selector "region in eu": /],
    [
      "a selector no cluster matches",
      { name: "us-nightly", selector: "region=nowhere", spec, reason: "x" },
      400,
      /^selector region=nowhere: no cluster of fluxgate\.yaml matches \(clusters and labels: edge-0 \{/,
    ],
    [
      "a fleet window that exists",
      { name: "prod-changes", selector: "region=us", spec, reason: "x" },
      409,
      /^fleet window prod-changes exists \(fleet\/windows\/prod-changes\/\): change its base with PUT \/api\/v1\/fleet\/windows\/prod-changes/,
    ],
    [
      "a window a selected cluster has of its own",
      { name: "nightly", selector: "region=us", spec, reason: "x" },
      400,
      /cluster edge-1 has a window of its own named nightly \(clusters\/edge-1\/windows\/nightly\.yaml\)/,
    ],
    [
      "a spec that is not a window's",
      { name: "us-nightly", selector: "region=us", spec: { ...spec, schedules: [{ start: "0 25 * * *", duration: "2h" }] }, reason: "x" },
      400,
      /^fleet window us-nightly/,
    ],
    ["a spec of the wrong type", { name: "us-nightly", selector: "region=us", spec: "nightly", reason: "x" }, 400, /^fleet window us-nightly/],
    [
      "a name that is not an object name",
      { name: "US_Nightly", selector: "region=us", spec, reason: "x" },
      400,
      /^fleet window "US_Nightly": the name must be a Kubernetes object name/,
    ],
    ["no reason", { name: "us-nightly", selector: "region=us", spec }, 400, /reason/],
  ];
  for (const [what, body, status, message] of refused) {
    const r = await call("POST", "/api/v1/fleet/windows", body);
    assert.equal(r.status, status, `${what}: ${JSON.stringify(r.body)}`);
    assert.match(r.body.error.message, message, `${what}: ${r.body.error.message}`);
  }
  const viewer = await call("POST", "/api/v1/fleet/windows", { name: "us-nightly", selector: "region=us", spec, reason: "x" }, fleet.tokens.viewer);
  assert.equal(viewer.status, 403);
  assert.deepEqual(await state(), before, "refused requests commit nothing");

  const r = await call("POST", "/api/v1/fleet/windows", { name: "us-nightly", selector: "region=us", spec, reason: "nightly changes in the us sites" });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  assert.deepEqual(r.body.clusters, ["edge-1", "edge-4", "edge-7"]);
  assert.equal(r.body.window, "us-nightly");
  assert.equal(r.body.pushed, true);
  const after = await state();
  assert.equal(r.body.commit, after.head);
  assert.equal(await git(work, "rev-parse", "HEAD~1"), before.head, "one commit");
  assert.equal(after.remote, after.head, "pushed");
  assert.equal(after.status, "");
  assert.equal(await git(work, "log", "-1", "--format=%s"), "fleet: add window us-nightly for 3 clusters (region=us): nightly changes in the us sites");
  assert.deepEqual((await lastCommitFiles()).sort(), [
    "clusters/edge-1/windows/kustomization.yaml",
    "clusters/edge-4/windows/kustomization.yaml",
    "clusters/edge-7/windows/kustomization.yaml",
    "fleet/windows/us-nightly/kustomization.yaml",
    "fleet/windows/us-nightly/us-nightly.yaml",
  ]);
  const kustomization = await git(work, "show", "HEAD:clusters/edge-1/windows/kustomization.yaml");
  assert.match(kustomization, /^ {2}- \.\.\/\.\.\/\.\.\/fleet\/windows\/us-nightly$/m, "the cluster includes the base");
  assert.match(kustomization, /^patches:/m, "its patch of prod-changes stays");
  for (const cluster of ["edge-1", "edge-4", "edge-7"]) {
    const w = await call("GET", `/api/v1/clusters/${cluster}/windows/us-nightly`);
    assert.equal(w.status, 200, `${cluster}: ${JSON.stringify(w.body)}`);
    assert.deepEqual(w.body.fleet, { window: "us-nightly", base: "fleet/windows/us-nightly/us-nightly.yaml", selector: "region=us", patch: null }, cluster);
    assert.equal(w.body.timeZone, "Europe/Berlin", cluster);
    assert.deepEqual(w.body.manifest, await builtWindow(cluster, "us-nightly"), `${cluster}: as kustomize builds the folder`);
  }
  assert.equal((await call("GET", "/api/v1/clusters/edge-2/windows/us-nightly")).status, 404, "a cluster the selector does not match does not take it");
  const listing = await call("GET", "/api/v1/fleet/windows?selector=region%3Dus");
  const added = listing.body.windows.find((w: any) => w.name === "us-nightly");
  assert.deepEqual(
    added.clusters.map((k: any) => k.name),
    ["edge-1", "edge-4", "edge-7"],
  );
  assert.deepEqual(added.missing, []);
  const again = await call("POST", "/api/v1/fleet/windows", { name: "us-nightly", selector: "region=us", spec, reason: "again" });
  assert.equal(again.status, 409);
  assert.deepEqual(await state(), after, "a second add commits nothing");
});
