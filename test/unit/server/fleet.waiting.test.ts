// The fleet's waiting changes (GET /fleet/waiting): what each cluster will take at its next window, from pushed status, by revision and by the opening that
// releases it.
/* eslint-disable @typescript-eslint/no-unsafe-call -- answers are untyped JSON, checked field by field */

import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { addClusterKey, ClusterKeys, signatureOf } from "../../../src/server/status/keys.ts";
import { SqliteStore } from "../../../src/server/status/sqlite.ts";
import type { PushedEvent } from "../../../src/server/status/store.ts";
import { fleetWaiting } from "../../../src/server/status/waiting.ts";
import { fixture, NOW, tempDir, type Fixture } from "../../support/server.ts";

const A = "main@sha1:1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b";
const B = "main@sha1:0f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e";
const TONIGHT_EU = "2026-11-23T21:00:00Z";
const SUNDAY_ASIA = "2026-11-29T01:00:00Z";

function event(cluster: string, name: string, fields: Partial<PushedEvent>, at = NOW - 60_000): PushedEvent {
  return {
    cluster,
    kind: "Kustomization",
    namespace: "flux-system",
    name,
    eventAt: at,
    receivedAt: at,
    reason: "Heartbeat",
    severity: "info",
    message: "Heartbeat",
    state: "closed",
    windows: "fleet-changes",
    nextChange: null,
    pendingRevision: "",
    pendingSince: "",
    appliedRevision: null,
    since: null,
    suspended: "true",
    gated: "",
    violation: "",
    upcoming: null,
    upcomingAt: null,
    upcomingWindow: null,
    ...fields,
  };
}

const ZONES = [
  { name: "edge-berlin", timeZone: "Europe/Berlin" },
  { name: "edge-paris", timeZone: "Europe/Paris" },
  { name: "edge-newyork", timeZone: "America/New_York" },
  { name: "edge-tokyo", timeZone: "Asia/Tokyo" },
  { name: "edge-osaka", timeZone: "Asia/Tokyo" },
  { name: "edge-quiet", timeZone: "UTC" },
];

test("changes waiting in the store are grouped by revision, then by when and by what releases them; a cluster counts once, a silent one as stale", async (t) => {
  const { dir, cleanup } = await tempDir("waiting");
  t.after(cleanup);
  const store = SqliteStore.open(join(dir, "status.db"));
  t.after(() => store.close());
  const waits = (revision: string, nextChange: string, state = "closed"): Partial<PushedEvent> => ({
    state,
    nextChange,
    pendingRevision: revision,
    pendingSince: "2026-11-23T09:30:00Z",
  });
  // Europe takes A tonight; Berlin has two targets waiting on it.
  await store.record(event("edge-berlin", "apps-rw", waits(A, TONIGHT_EU)));
  await store.record(event("edge-berlin", "infra-rw", { ...waits(A, TONIGHT_EU), pendingSince: "2026-11-23T08:00:00Z" }));
  await store.record(event("edge-paris", "apps-rw", waits(A, TONIGHT_EU)));
  // New York is frozen until tomorrow; Asia takes A on Sunday, and Osaka has been silent for an hour.
  await store.record(event("edge-newyork", "apps-rw", waits(A, "2026-11-24T12:00:00Z", "frozen")));
  await store.record(event("edge-tokyo", "apps-rw", waits(A, SUNDAY_ASIA)));
  await store.record(event("edge-osaka", "apps-rw", waits(A, SUNDAY_ASIA), NOW - 3_600_000));
  // Tokyo also waits on B in another Kustomization; edge-quiet waits on nothing.
  await store.record(event("edge-tokyo", "edge-rw", waits(B, SUNDAY_ASIA)));
  await store.record(event("edge-quiet", "apps-rw", {}));
  // A cluster no longer in fluxgate.yaml is left out.
  await store.record(event("edge-gone", "apps-rw", waits(A, TONIGHT_EU)));

  const view = fleetWaiting(ZONES, await store.fleet(), NOW, 15 * 60_000);
  assert.deepEqual(view.totals, { revisions: 2, clusters: 5, targets: 7 });
  assert.deepEqual(
    view.revisions.map((r) => [r.revision, r.clusters, r.targets, r.oldestSince]),
    [
      [A, 5, 6, "2026-11-23T08:00:00Z"],
      [B, 1, 1, "2026-11-23T09:30:00Z"],
    ],
  );
  assert.deepEqual(view.revisions[0]?.releases, [
    {
      at: TONIGHT_EU,
      state: "closed",
      windows: "fleet-changes",
      clusters: 2,
      names: ["edge-berlin", "edge-paris"],
      timeZones: ["Europe/Berlin", "Europe/Paris"],
      stale: 0,
    },
    { at: "2026-11-24T12:00:00Z", state: "frozen", windows: "fleet-changes", clusters: 1, names: ["edge-newyork"], timeZones: ["America/New_York"], stale: 0 },
    { at: SUNDAY_ASIA, state: "closed", windows: "fleet-changes", clusters: 2, names: ["edge-osaka", "edge-tokyo"], timeZones: ["Asia/Tokyo"], stale: 1 },
  ]);
  assert.deepEqual(fleetWaiting(ZONES.slice(5), await store.fleet(), NOW, 15 * 60_000), { revisions: [], totals: { revisions: 0, clusters: 0, targets: 0 } });
});

test("a change with no opening due is listed last, with no time", async (t) => {
  const { dir, cleanup } = await tempDir("waiting-none");
  t.after(cleanup);
  const store = SqliteStore.open(join(dir, "status.db"));
  t.after(() => store.close());
  await store.record(event("edge-berlin", "apps-rw", { pendingRevision: A, nextChange: "" }));
  await store.record(event("edge-tokyo", "apps-rw", { pendingRevision: A, nextChange: SUNDAY_ASIA }));
  const view = fleetWaiting(ZONES, await store.fleet(), NOW, 15 * 60_000);
  assert.deepEqual(
    view.revisions[0]?.releases.map((g) => [g.at, g.names]),
    [
      [SUNDAY_ASIA, ["edge-tokyo"]],
      [null, ["edge-berlin"]],
    ],
  );
});

let f: Fixture;
let off: Fixture;
let store: SqliteStore;
let keys: Map<string, string>;
let cleanupKeys: () => Promise<void>;

before(async () => {
  const { dir, cleanup } = await tempDir("waiting-routes");
  cleanupKeys = cleanup;
  const keysFile = join(dir, "cluster-keys.yaml");
  keys = new Map();
  for (const c of ["edge-berlin", "edge-newyork", "edge-tokyo"]) keys.set(c, await addClusterKey(keysFile, { cluster: c, now: NOW }));
  store = SqliteStore.open(join(dir, "status.db"));
  f = await fixture({ push: { keys: await ClusterKeys.open(keysFile), store, staleAfterMs: 15 * 60_000 } });
  off = await fixture();
});
after(async () => {
  await f.cleanup();
  await off.cleanup();
  await store.close();
  await cleanupKeys();
});

async function push(cluster: string, metadata: Record<string, string>): Promise<void> {
  const body = JSON.stringify({
    involvedObject: { kind: "Kustomization", namespace: "flux-system", name: "apps-rw", apiVersion: "kustomize.toolkit.fluxcd.io/v1" },
    severity: "info",
    timestamp: "2026-11-23T09:59:00Z",
    message: "Heartbeat at 2026-11-23T09:59:00Z",
    reason: "Heartbeat",
    metadata: { window: "fleet-changes", state: "closed", pendingSince: "2026-11-23T09:30:00Z", ...metadata },
    reportingController: "fluxgate",
  });
  const r = await f.call("POST", `/api/v1/clusters/${cluster}/events`, {
    token: null,
    body,
    headers: { "x-signature": signatureOf(keys.get(cluster) as string, body) },
  });
  assert.equal(r.status, 202, r.text);
}

test("GET /fleet/waiting answers from what the clusters pushed, with their zones from fluxgate.yaml; ?selector= keeps the matching clusters", async () => {
  await push("edge-berlin", { pendingRevision: A, nextChange: "2026-11-23T21:00:00Z" });
  await push("edge-newyork", { pendingRevision: A, nextChange: "2026-11-24T02:00:00Z" });
  await push("edge-tokyo", { pendingRevision: "", nextChange: "2026-11-24T00:00:00Z" });
  const r = await f.call("GET", "/api/v1/fleet/waiting", { token: f.tokens.viewer });
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.body.totals, { revisions: 1, clusters: 2, targets: 2 });
  assert.equal(r.body.revisions[0].revision, A);
  assert.deepEqual(
    r.body.revisions[0].releases.map((g: { at: string; names: string[]; timeZones: string[] }) => [g.at, g.names, g.timeZones]),
    [
      ["2026-11-23T21:00:00Z", ["edge-berlin"], ["Europe/Berlin"]],
      ["2026-11-24T02:00:00Z", ["edge-newyork"], ["America/New_York"]],
    ],
  );
  const none = await f.call("GET", "/api/v1/fleet/waiting?selector=ring%3Dprod", { token: f.tokens.viewer });
  assert.equal(none.status, 200);
  assert.deepEqual(none.body, { selector: "ring=prod", revisions: [], totals: { revisions: 0, clusters: 0, targets: 0 } });
  const bad = await f.call("GET", "/api/v1/fleet/waiting?selector=ring%3D%3D%3D", { token: f.tokens.viewer });
  assert.equal(bad.status, 400);
  assert.match(bad.body.error.message, /^selector/);
  assert.equal((await f.call("GET", "/api/v1/fleet/waiting", { token: null })).status, 401, "reading it needs a token");
  const o = await off.call("GET", "/api/v1/fleet/waiting", { token: off.tokens.viewer });
  assert.equal(o.status, 404);
  assert.match(o.body.error.message, /the event receiver is off/);
});
