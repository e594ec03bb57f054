// In-process route tests of overrides (committed, or also created directly through a live source) and of live status.
/* eslint-disable @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return -- answers are untyped JSON, checked field by field */

import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import type { KubernetesObject } from "@kubernetes/client-node";
import { MemoryLive } from "../../support/live.ts";
import { assertUntouched, berlinSpec, fixture, git } from "../../support/server.ts";

test("POST /overrides commits a WindowOverride and lists it in kustomization.yaml", async (t) => {
  const f = await fixture();
  t.after(f.cleanup);
  const r = await f.call("POST", "/api/v1/clusters/edge-berlin/overrides", {
    body: { window: "apps-rw", action: "Freeze", duration: "4h", reason: "Incident 88: hold all changes" },
  });
  assert.equal(r.status, 201);
  assert.equal(r.body.delivery, "git");
  assert.equal(r.body.cluster, null);
  const name = "apps-rw-freeze-20261123-100000";
  assert.deepEqual(r.body.override, {
    apiVersion: "fluxgate.io/v1alpha1",
    kind: "WindowOverride",
    metadata: {
      name,
      namespace: "flux-system",
      annotations: { "fluxgate.io/requested-at": "2026-11-23T10:00:00Z", "fluxgate.io/requested-by": "eddie editor" },
    },
    spec: { windowRef: { name: "apps-rw" }, action: "Freeze", until: "2026-11-23T14:00:00Z", reason: "Incident 88: hold all changes" },
  });
  assert.equal(
    await git(f.dir, "log", "-1", "--format=%an|%s|%b"),
    `eddie editor|edge-berlin: freeze window apps-rw until 2026-11-23T14:00:00Z (override ${name}): Incident 88: hold all changes|`,
  );
  assert.match(await readFile(join(f.dir, "clusters/edge-berlin/windows/kustomization.yaml"), "utf8"), new RegExp(`- overrides/${name}.yaml\n`));
  const windows = await f.call("GET", "/api/v1/clusters/edge-berlin/windows");
  const rw = windows.body.windows.find((w: any) => w.name === "apps-rw");
  assert.equal(rw.state, "frozen");
  assert.equal(rw.overridden, true);
  assert.match(rw.reason, /^Frozen by override apps-rw-freeze-20261123-100000 \("Incident 88/);
  const list = await f.call("GET", "/api/v1/clusters/edge-berlin/overrides");
  assert.deepEqual(
    list.body.overrides.map((o: any) => [o.name, o.action, o.active, o.until]),
    [[name, "Freeze", true, "2026-11-23T14:00:00Z"]],
  );
  const timeline = await f.call("GET", "/api/v1/clusters/edge-berlin/timeline");
  assert.deepEqual(timeline.body.windows[0].overrides, [
    { start: "2026-11-23T10:00:00Z", end: "2026-11-23T14:00:00Z", name, action: "Freeze", reason: "Incident 88: hold all changes", by: "eddie editor" },
  ]);
  const head = await f.repository.head();
  const twice = await f.call("POST", "/api/v1/clusters/edge-berlin/overrides", {
    body: { window: "apps-rw", action: "Freeze", duration: "4h", reason: "again", name },
  });
  assert.equal(twice.status, 409, "a name given twice is a conflict");
  await assertUntouched(f, head);
});

test("overrides are checked: a known window, until in the future and at most 7 days ahead, one of until and duration", async (t) => {
  const f = await fixture();
  t.after(f.cleanup);
  const before = await f.repository.head();
  const cases: Array<[Record<string, unknown>, number, RegExp]> = [
    [{ window: "nope", action: "Open", duration: "1h", reason: "x" }, 404, /has no window "nope"/],
    [{ window: "apps-rw", action: "Open", until: "2026-12-24T00:00:00Z", reason: "x" }, 400, /is more than 7 days ahead: an override lasts at most 7 days/],
    [{ window: "apps-rw", action: "Open", until: "2026-11-22T00:00:00Z", reason: "x" }, 400, /must be in the future/],
    [{ window: "apps-rw", action: "Open", until: "2026-11-24T00:00:00Z", duration: "1h", reason: "x" }, 400, /exactly one of until/],
    [{ window: "apps-rw", action: "Close", duration: "1h", reason: "x" }, 400, /action/],
    [{ window: "apps-rw", action: "Open", duration: "1h" }, 400, /reason: is required/],
    [{ window: "apps-rw", action: "Open", duration: "soon", reason: "x" }, 400, /duration: /],
    [{ window: "apps-rw", action: "Open", duration: "1h", reason: "x", name: "../x" }, 400, /not a valid Kubernetes name/],
  ];
  for (const [body, status, message] of cases) {
    const r = await f.call("POST", "/api/v1/clusters/edge-berlin/overrides", { body });
    assert.equal(r.status, status, JSON.stringify(body));
    assert.match(r.body.error.message, message);
  }
  await assertUntouched(f, before);
});

test('"delivery": "direct" needs a live connection (409), then commits and creates the override in the cluster', async (t) => {
  const none = await fixture();
  t.after(none.cleanup);
  const noneHead = await none.repository.head();
  const refused = await none.call("POST", "/api/v1/clusters/edge-berlin/overrides", {
    token: none.tokens.breakglass,
    body: { window: "apps-rw", action: "Open", duration: "1h", reason: "x", delivery: "direct" },
  });
  assert.equal(refused.status, 409);
  await assertUntouched(none, noneHead);
  assert.match(refused.body.error.message, /no live connection to cluster edge-berlin: direct delivery needs .*--cluster-context edge-berlin=CONTEXT/);

  const live = new MemoryLive(new Map([["edge-berlin", "berlin-admin"]]));
  const f = await fixture({ live });
  t.after(f.cleanup);
  const r = await f.call("POST", "/api/v1/clusters/edge-berlin/overrides", {
    token: f.tokens.breakglass,
    body: { window: "nightly", action: "Open", until: "2026-11-23T12:00:00Z", reason: "Hotfix 4711", delivery: "direct" },
  });
  assert.equal(r.status, 201);
  assert.equal(r.body.delivery, "direct");
  const [stored] = (await live.read("edge-berlin")).overrides;
  assert.deepEqual(r.body.cluster, { name: "nightly-open-20261123-100000", uid: stored?.metadata?.uid });
  assert.equal(live.created.length, 1);
  assert.deepEqual(live.created[0], r.body.override);
  assert.equal(await git(f.dir, "log", "-1", "--format=%an"), "bree oncall");
});

test("GET /status says clearly when there is no live connection, and combines cluster and Git when there is", async (t) => {
  const none = await fixture();
  t.after(none.cleanup);
  const offline = await none.call("GET", "/api/v1/clusters/edge-berlin/status");
  assert.deepEqual(offline.body, {
    cluster: "edge-berlin",
    live: false,
    message: "no live connection: start the service with --cluster-context edge-berlin=CONTEXT to see the cluster's windows, targets and pending revisions",
    pushed: null,
    targets: [],
    sources: { live: null, pushed: null, newest: null },
  });

  const live = new MemoryLive(new Map([["edge-berlin", "berlin-admin"]]));
  live.windows.set("edge-berlin", [
    {
      apiVersion: "fluxgate.io/v1alpha1",
      kind: "ReconciliationWindow",
      metadata: { name: "apps-rw", namespace: "flux-system", generation: 2 },
      spec: { ...berlinSpec(), timeZone: "Europe/Berlin", mode: "Suspend", closeGracePeriod: "5m" },
      status: {
        state: "Closed",
        targets: { matched: 1, open: 0, closed: 1, pending: 1, conflicts: 0 },
        pending: [
          {
            kind: "Kustomization",
            namespace: "flux-system",
            name: "apps-rw",
            appliedRevision: "main@sha1:aaa",
            pendingRevision: "main@sha1:bbb",
            waitingSince: "2026-11-23T09:00:00Z",
          },
        ],
      },
    } as KubernetesObject,
    { apiVersion: "fluxgate.io/v1alpha1", kind: "ReconciliationWindow", metadata: { name: "legacy", namespace: "flux-system" }, spec: {} } as KubernetesObject,
  ]);
  const f = await fixture({ live });
  t.after(f.cleanup);
  const r = await f.call("GET", "/api/v1/clusters/edge-berlin/status");
  assert.equal(r.status, 200);
  assert.equal(r.body.live, true);
  assert.equal(r.body.context, "berlin-admin");
  assert.deepEqual(r.body.pending, [
    {
      window: "apps-rw",
      kind: "Kustomization",
      namespace: "flux-system",
      name: "apps-rw",
      appliedRevision: "main@sha1:aaa",
      pendingRevision: "main@sha1:bbb",
      waitingSince: "2026-11-23T09:00:00Z",
    },
  ]);
  // apps-rw matches once the CRD's defaults are filled in; nightly is not applied yet; legacy is not in Git.
  assert.deepEqual(r.body.drift, [
    { window: "legacy", kind: "not-in-git" },
    { window: "nightly", kind: "not-applied" },
  ]);
  assert.equal(r.body.windows[0].status.state, "Closed");
  // Without pushed status every target comes from live: the policy's decision from the cluster's own window, now.
  assert.deepEqual(
    r.body.targets.map((x: { name: string; source: string; state: string; pendingRevision: string }) => [x.name, x.source, x.state, x.pendingRevision]),
    [["apps-rw", "live", "open", "main@sha1:bbb"]],
  );
  assert.equal(r.body.sources.newest, "live");
});

test("an override's end is refused at the field that gave it: duration for a duration, until for an until, for a cluster and for the fleet", async (t) => {
  const f = await fixture();
  t.after(f.cleanup);
  const before = await f.repository.head();
  const cases: Array<[string, Record<string, unknown>, string, RegExp]> = [
    [
      "/api/v1/clusters/edge-berlin/overrides",
      { window: "apps-rw", action: "Open", duration: "200h", reason: "x" },
      "duration",
      /^duration: 200h is more than 7 days/,
    ],
    [
      "/api/v1/clusters/edge-berlin/overrides",
      { window: "apps-rw", action: "Open", until: "2026-12-24T00:00:00Z", reason: "x" },
      "until",
      /^until: .*more than 7 days ahead/,
    ],
    ["/api/v1/fleet/overrides", { selector: "ring=prod", duration: "200h", reason: "x" }, "duration", /^duration: 200h is more than 7 days/],
    ["/api/v1/fleet/overrides", { selector: "ring=prod", until: "2026-12-24T00:00:00Z", reason: "x" }, "until", /^until: .*more than 7 days ahead/],
    ["/api/v1/fleet/overrides", { selector: "ring=prod", until: "2026-11-22T00:00:00Z", reason: "x" }, "until", /^until: .*must be in the future/],
  ];
  for (const [path, body, field, message] of cases) {
    const r = await f.call("POST", path, { body });
    assert.equal(r.status, 400, `${path} ${JSON.stringify(body)}: ${r.text}`);
    assert.deepEqual(
      r.body.error.problems.map((p: { path: string }) => p.path),
      [field],
      `${path} ${JSON.stringify(body)}: ${r.text}`,
    );
    assert.match(r.body.error.message, message, `${path} ${JSON.stringify(body)}`);
  }
  await assertUntouched(f, before);
});
