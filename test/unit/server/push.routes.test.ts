// In-process route tests of the event receiver (signed pushes from clusters) and the pushed status it serves.
/* eslint-disable @typescript-eslint/no-unsafe-call -- answers are untyped JSON, checked field by field */

import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { addClusterKey, ClusterKeys, signatureOf } from "../../../src/server/status/keys.ts";
import { SqliteStore } from "../../../src/server/status/sqlite.ts";
import type { StatusStore } from "../../../src/server/status/store.ts";
import { fleetPushStatus } from "../../../src/server/status/view.ts";
import { fixture, NOW, tempDir, type Fixture } from "../../support/server.ts";

let f: Fixture;
let off: Fixture;
let store: StatusStore;
let key: string;
let cleanupKeys: () => Promise<void>;

before(async () => {
  const { dir, cleanup } = await tempDir("push");
  cleanupKeys = cleanup;
  const keysFile = join(dir, "cluster-keys.yaml");
  key = await addClusterKey(keysFile, { cluster: "edge-berlin", now: NOW });
  store = SqliteStore.open(join(dir, "status.db"));
  f = await fixture({ push: { keys: await ClusterKeys.open(keysFile), store, staleAfterMs: 15 * 60_000, rate: { burst: 40, perSecond: 1 } } });
  off = await fixture();
});
after(async () => {
  await f.cleanup();
  await off.cleanup();
  await store.close();
  await cleanupKeys();
});

/** Flux's event JSON as notification-controller forwards one of fluxgate's (metadata without the API group). */
function fluxEvent(fields: { at?: string; reason?: string; name?: string; metadata?: Record<string, string>; reportingController?: string } = {}): string {
  return JSON.stringify({
    involvedObject: { kind: "Kustomization", namespace: "flux-system", name: fields.name ?? "apps", uid: "6f0c", apiVersion: "kustomize.toolkit.fluxcd.io/v1" },
    severity: "info",
    timestamp: fields.at ?? "2026-11-23T09:59:00Z",
    message: 'Suspended by window nightly: Frozen by freeze "0 22 * * *"',
    reason: fields.reason ?? "WindowClosed",
    metadata: fields.metadata ?? {
      window: "nightly",
      state: "closed",
      nextChange: "2026-11-23T22:00:00Z",
      pendingRevision: "main@sha1:4b825dc",
      pendingSince: "2026-11-23T09:30:00Z",
    },
    reportingController: fields.reportingController ?? "fluxgate",
    reportingInstance: "fluxgate-7d9c",
  });
}

/** Posts `body` to the receiver, signed with `signWith` (the cluster's key by default; null: unsigned). */
function push(fx: Fixture, cluster: string, body: string, signWith: string | null = key): ReturnType<Fixture["call"]> {
  return fx.call("POST", `/api/v1/clusters/${cluster}/events`, {
    token: null,
    body,
    headers: signWith === null ? {} : { "x-signature": signatureOf(signWith, body) },
  });
}

test("an event signed with the cluster's key is stored (202) without a bearer token, and the cluster's status shows it", async () => {
  const r = await push(f, "edge-berlin", fluxEvent());
  assert.equal(r.status, 202, r.text);
  assert.deepEqual(r.body, { cluster: "edge-berlin", outcome: "stored" });
  const s = await f.call("GET", "/api/v1/clusters/edge-berlin/status", { token: f.tokens.viewer });
  assert.equal(s.status, 200);
  assert.equal(s.body.live, false);
  assert.equal(s.body.pushed.reporting, "reporting");
  assert.equal(s.body.pushed.lastHeard, new Date(NOW).toISOString());
  assert.deepEqual(s.body.pushed.targets, [
    {
      kind: "Kustomization",
      namespace: "flux-system",
      name: "apps",
      state: "closed",
      windows: "nightly",
      nextChange: "2026-11-23T22:00:00Z",
      pendingRevision: "main@sha1:4b825dc",
      pendingSince: "2026-11-23T09:30:00Z",
      appliedRevision: null,
      lastTransition: null,
      suspended: null,
      gated: null,
      violation: null,
      upcoming: null,
      lastReason: "WindowClosed",
      lastSeverity: "info",
      lastMessage: 'Suspended by window nightly: Frozen by freeze "0 22 * * *"',
      lastEventAt: "2026-11-23T09:59:00.000Z",
      holding: null,
      diverged: false,
      problem: null,
      stale: false,
    },
  ]);
});

test("a wrong, missing or other cluster's signature is 401 and stores nothing", async () => {
  const body = fluxEvent({ name: "never-stored" });
  const wrong = await push(f, "edge-berlin", body, "fgk_not-the-key");
  assert.equal(wrong.status, 401);
  assert.match(wrong.body.error.message, /X-Signature header is missing or is not the HMAC-SHA256 of the body/);
  assert.equal((await push(f, "edge-berlin", body, null)).status, 401);
  const tampered = await f.call("POST", "/api/v1/clusters/edge-berlin/events", {
    token: null,
    body: body.replace("never-stored", "tampered"),
    headers: { "x-signature": signatureOf(key, body) },
  });
  assert.equal(tampered.status, 401, "a signature of another body");
  const noKey = await push(f, "edge-tokyo", body);
  assert.equal(noKey.status, 401, "edge-tokyo has no key; edge-berlin's does not sign for it");
  assert.match(noKey.body.error.message, /cluster edge-tokyo has no key: add one with "fluxgate serve cluster-key add --cluster edge-tokyo"/);
  const names = ((await store.cluster("edge-berlin"))?.targets ?? []).map((t) => t.name);
  assert.ok(!names.includes("never-stored") && !names.includes("tampered"), names.join(", "));
  assert.equal(await store.cluster("edge-tokyo"), null);
});

test("a cluster not in fluxgate.yaml is 404; with the receiver off the route is 404 saying how to turn it on", async () => {
  const r = await push(f, "edge-paris", fluxEvent());
  assert.equal(r.status, 404);
  assert.match(r.body.error.message, /cluster "edge-paris" is not in fluxgate\.yaml/);
  const o = await push(off, "edge-berlin", fluxEvent());
  assert.equal(o.status, 404);
  assert.match(o.body.error.message, /the event receiver is off: start "fluxgate serve" with --cluster-keys FILE/);
  assert.equal((await off.call("GET", "/api/v1/fleet/status", { token: off.tokens.viewer })).status, 404);
  const s = await off.call("GET", "/api/v1/clusters/edge-berlin/status", { token: off.tokens.viewer });
  assert.equal(s.body.pushed, null);
});

test("a body that is not Flux's event, or an event from the future, is 400 naming the problem, and nothing is stored", async () => {
  const before = JSON.stringify(await store.fleet());
  const notJson = await push(f, "edge-berlin", "{not json");
  assert.equal(notJson.status, 400);
  assert.match(notJson.body.error.message, /the body is not JSON/);
  const noReason = await push(f, "edge-berlin", JSON.stringify({ ...JSON.parse(fluxEvent()), reason: undefined }));
  assert.equal(noReason.status, 400);
  assert.match(noReason.body.error.message, /the body is not a Flux event: reason: /);
  const future = await push(f, "edge-berlin", fluxEvent({ at: "2026-11-23T10:30:00Z" }));
  assert.equal(future.status, 400);
  assert.match(future.body.error.message, /timestamp 2026-11-23T10:30:00Z is more than 5 minutes ahead of this service's clock/);
  const badTime = await push(f, "edge-berlin", fluxEvent({ at: "yesterday" }));
  assert.equal(badTime.status, 400);
  assert.equal(JSON.stringify(await store.fleet()), before);
});

test("events arriving out of order keep the newest; Flux's own controllers' events only say the cluster is there", async () => {
  const newer = await push(
    f,
    "edge-berlin",
    fluxEvent({ name: "infra", at: "2026-11-23T09:58:00Z", reason: "WindowOpened", metadata: { state: "open", window: "apps-rw" } }),
  );
  assert.equal(newer.body.outcome, "stored");
  const older = await push(f, "edge-berlin", fluxEvent({ name: "infra", at: "2026-11-23T09:00:00Z", reason: "WindowClosed" }));
  assert.equal(older.status, 202);
  assert.equal(older.body.outcome, "older");
  const infra = (await store.cluster("edge-berlin"))?.targets.find((t) => t.name === "infra");
  assert.equal(infra?.state, "open");
  assert.equal(infra?.lastReason, "WindowOpened");
  const flux = await push(f, "edge-berlin", fluxEvent({ name: "flux-own", reason: "ReconciliationSucceeded", reportingController: "kustomize-controller" }));
  assert.equal(flux.body.outcome, "heard");
  assert.ok(!(await store.cluster("edge-berlin"))?.targets.some((t) => t.name === "flux-own"));
});

test("GET /fleet/status lists every cluster of fluxgate.yaml with how it reports, what waits and since when", async () => {
  const r = await f.call("GET", "/api/v1/fleet/status", { token: f.tokens.viewer });
  assert.equal(r.status, 200);
  assert.equal(r.body.staleAfterSeconds, 900);
  assert.deepEqual(
    r.body.clusters.map((c: { cluster: string; reporting: string }) => [c.cluster, c.reporting]),
    [
      ["edge-berlin", "reporting"],
      ["edge-newyork", "never"],
      ["edge-tokyo", "never"],
    ],
  );
  const berlin = r.body.clusters[0];
  assert.equal(berlin.waiting, 1);
  assert.equal(berlin.oldestWaitingSince, "2026-11-23T09:30:00Z");
  assert.deepEqual(r.body.totals, {
    clusters: 3,
    reporting: 1,
    stale: 0,
    never: 2,
    targets: berlin.targets,
    waiting: 1,
    oldestWaitingSince: "2026-11-23T09:30:00Z",
    diverged: 0,
  });
  assert.deepEqual(berlin.upcoming, [], "no window announced anything");
  assert.equal((await f.call("GET", "/api/v1/fleet/status", { token: null })).status, 401, "reading it needs a token");
  // ?selector= on the clusters' fluxgate.yaml labels (the example fleet has none).
  const none = await f.call("GET", "/api/v1/fleet/status?selector=ring%3Dprod", { token: f.tokens.viewer });
  assert.equal(none.status, 200);
  assert.equal(none.body.selector, "ring=prod");
  assert.deepEqual(none.body.clusters, []);
  const unlabelled = await f.call("GET", "/api/v1/fleet/status?selector=!ring", { token: f.tokens.viewer });
  assert.equal(unlabelled.body.clusters.length, 3);
  const bad = await f.call("GET", "/api/v1/fleet/status?selector=ring%3D%3D%3D", { token: f.tokens.viewer });
  assert.equal(bad.status, 400);
  assert.match(bad.body.error.message, /^selector/);
});

test("a notice (WindowOpensSoon) is kept per target and per window, shown in the cluster's and the fleet's status until it comes", async () => {
  const { dir, cleanup } = await tempDir("push-notice");
  const keysFile = join(dir, "cluster-keys.yaml");
  const noticeKey = await addClusterKey(keysFile, { cluster: "edge-berlin", now: NOW });
  const noticeStore = SqliteStore.open(join(dir, "status.db"));
  let now = NOW;
  const fx = await fixture({ push: { keys: await ClusterKeys.open(keysFile), store: noticeStore, staleAfterMs: 15 * 60_000 }, now: () => now });
  try {
    const at = new Date(NOW + 15 * 60_000).toISOString().replace(".000Z", "Z");
    for (const name of ["apps", "infra"]) {
      const body = JSON.parse(fluxEvent({ at: new Date(NOW).toISOString().replace(".000Z", "Z"), reason: "WindowOpensSoon", name })) as Record<string, unknown>;
      body["message"] =
        `Window weekdays opens Mon 2026-11-23 11:15 UTC (in 15m): flux-system/${name}: ${name === "apps" ? "main@sha1:1a2b3c" : "nothing waits"}`;
      body["metadata"] = { window: "weekdays", state: "closed", upcoming: "Open", upcomingAt: at, upcomingWindow: "weekdays", pendingRevision: "" };
      assert.equal((await push(fx, "edge-berlin", JSON.stringify(body), noticeKey)).status, 202);
    }
    const s = await fx.call("GET", "/api/v1/clusters/edge-berlin/status", { token: fx.tokens.viewer });
    const apps = s.body.pushed.targets.find((t: { name: string }) => t.name === "apps");
    assert.deepEqual(apps.upcoming, {
      transition: "Open",
      at,
      window: "weekdays",
      message: "Window weekdays opens Mon 2026-11-23 11:15 UTC (in 15m): flux-system/apps: main@sha1:1a2b3c",
    });
    assert.deepEqual(s.body.pushed.upcoming, [{ window: "weekdays", transition: "Open", at, targets: 2 }]);
    const fleet = await fx.call("GET", "/api/v1/fleet/status", { token: fx.tokens.viewer });
    assert.deepEqual(fleet.body.clusters[0].upcoming, [{ window: "weekdays", transition: "Open", at, targets: 2 }]);
    // Once the window has opened, the notice is history: not shown.
    now = NOW + 16 * 60_000;
    const later = await fx.call("GET", "/api/v1/clusters/edge-berlin/status", { token: fx.tokens.viewer });
    assert.equal(later.body.pushed.targets.find((t: { name: string }) => t.name === "apps").upcoming, null);
    assert.deepEqual(later.body.pushed.upcoming, []);
  } finally {
    await fx.cleanup();
    await noticeStore.close();
    await cleanup();
  }
});

test("a target decided closed whose suspend was set back, or that applied a change, is diverged: the view does not call it held", async () => {
  const closed = { state: "closed", window: "nightly", since: "2026-11-23T09:00:00Z" };
  // Held as decided: suspended.
  await push(f, "edge-berlin", fluxEvent({ name: "web", at: "2026-11-23T09:10:00Z", metadata: { ...closed, suspended: "true", gated: "", violation: "" } }));
  let web = (await f.call("GET", "/api/v1/clusters/edge-berlin/status", { token: f.tokens.viewer })).body.pushed.targets.find(
    (t: { name: string }) => t.name === "web",
  );
  assert.deepEqual([web.state, web.lastTransition, web.suspended, web.holding, web.diverged], ["closed", "2026-11-23T09:00:00Z", true, true, false]);
  // A parent set spec.suspend back to false: decided closed, observed running.
  await push(
    f,
    "edge-berlin",
    fluxEvent({ name: "web", at: "2026-11-23T09:20:00Z", reason: "SuspendReverted", metadata: { ...closed, suspended: "false", gated: "", violation: "" } }),
  );
  web = (await f.call("GET", "/api/v1/clusters/edge-berlin/status", { token: f.tokens.viewer })).body.pushed.targets.find(
    (t: { name: string }) => t.name === "web",
  );
  assert.deepEqual([web.state, web.suspended, web.holding, web.diverged], ["closed", false, false, true]);
  const fleet = await f.call("GET", "/api/v1/fleet/status", { token: f.tokens.viewer });
  assert.equal(fleet.body.clusters[0].diverged, 1);
  assert.equal(fleet.body.totals.diverged, 1);
  // Suspended again, but a change went through meanwhile: still diverged, until the window opens.
  await push(
    f,
    "edge-berlin",
    fluxEvent({
      name: "web",
      at: "2026-11-23T09:30:00Z",
      reason: "AppliedWhileClosed",
      metadata: { ...closed, suspended: "true", gated: "", violation: "main@sha1:77aa" },
    }),
  );
  web = (await f.call("GET", "/api/v1/clusters/edge-berlin/status", { token: f.tokens.viewer })).body.pushed.targets.find(
    (t: { name: string }) => t.name === "web",
  );
  assert.deepEqual([web.holding, web.violation, web.diverged], [true, "main@sha1:77aa", true]);
  // Gate mode: the gated source, not spec.suspend, is what holds.
  await push(
    f,
    "edge-berlin",
    fluxEvent({ name: "web", at: "2026-11-23T09:40:00Z", metadata: { ...closed, suspended: "false", gated: "false", violation: "" } }),
  );
  web = (await f.call("GET", "/api/v1/clusters/edge-berlin/status", { token: f.tokens.viewer })).body.pushed.targets.find(
    (t: { name: string }) => t.name === "web",
  );
  assert.deepEqual([web.gated, web.holding, web.diverged], [false, false, true]);
  await push(
    f,
    "edge-berlin",
    fluxEvent({
      name: "web",
      at: "2026-11-23T09:50:00Z",
      reason: "WindowOpened",
      metadata: { state: "open", window: "nightly", since: "2026-11-23T09:50:00Z", suspended: "false", gated: "true", violation: "" },
    }),
  );
  web = (await f.call("GET", "/api/v1/clusters/edge-berlin/status", { token: f.tokens.viewer })).body.pushed.targets.find(
    (t: { name: string }) => t.name === "web",
  );
  assert.deepEqual([web.state, web.diverged], ["open", false]);
});

test("a cluster silent past the threshold is stale", () => {
  const pushed = [{ cluster: "edge-berlin", lastHeard: "2026-11-23T09:00:00.000Z", targets: [] }];
  const at = (iso: string): string[] => fleetPushStatus(["edge-berlin", "edge-tokyo"], pushed, Date.parse(iso), 15 * 60_000).clusters.map((c) => c.reporting);
  assert.deepEqual(at("2026-11-23T09:15:00Z"), ["reporting", "never"]);
  assert.deepEqual(at("2026-11-23T09:15:01Z"), ["stale", "never"]);
});

test("bodies are bounded (413) and each cluster is rate-limited (429 with Retry-After), counting only its signed posts", async () => {
  const big = fluxEvent({ metadata: { window: "x".repeat(70_000) } });
  assert.equal((await push(f, "edge-berlin", big)).status, 413);
  // Unsigned posts are refused before the cluster's rate is counted: a stranger cannot use up its budget.
  for (let i = 0; i < 60; i++) assert.equal((await push(f, "edge-berlin", fluxEvent({ name: `stranger-${i}` }), null)).status, 401);
  assert.equal((await push(f, "edge-berlin", fluxEvent({ name: "after-strangers" }))).status, 202);
  let limited: Awaited<ReturnType<Fixture["call"]>> | undefined;
  for (let i = 0; i < 60 && limited === undefined; i++) {
    const r = await push(f, "edge-berlin", fluxEvent({ name: `burst-${i}`, at: "2026-11-23T09:59:30Z" }));
    if (r.status === 429) limited = r;
    else assert.equal(r.status, 202);
  }
  assert.ok(limited !== undefined, "the 41st event within a second is refused");
  assert.match(limited.headers.get("retry-after") ?? "", /^\d+$/);
  assert.match(limited.body.error.message, /cluster edge-berlin sent too many events/);
});
