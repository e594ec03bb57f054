// The demo's timeline: what changed between two looks at the cluster, told in the order of cause and effect.

import assert from "node:assert/strict";
import { test } from "node:test";
import { EMPTY, changes, formatEntry, shortRevision, type Snapshot } from "../../../src/demo/snapshot.ts";

const A = "main@sha1:c37d94eba6d585516b1e4a99b18cbb313b35a6ee";
const B = "main@sha1:8c524130eb0bafe705e57054544a4c5f62cd90c0";
const at = Date.parse("2026-11-22T11:17:00.300Z");

const closed: Snapshot = {
  ...EMPTY,
  at: at - 1000,
  conf: "v2",
  image: undefined,
  upstream: B,
  rtApplied: B,
  rwApplied: A,
  rwSuspended: true,
  window: {
    state: "Closed",
    reason: "Closed: no schedule is active; opens Sun 2026-11-22 11:17 UTC",
    nextOpen: "2026-11-22T11:17:00Z",
    nextClose: undefined,
    pending: [{ name: "apps-rw", pendingRevision: B, appliedRevision: A, waitingSince: "2026-11-22T11:16:02Z" }],
    pinnedRevision: undefined,
  },
  events: [{ uid: "1", kind: "Kustomization", name: "apps-rw", reason: "WindowClosed", message: "Suspended by window nginx-window: Closed" }],
};

test("revisions are shortened to the branch and seven hex digits", () => {
  assert.equal(shortRevision(A), "main@c37d94e");
  assert.equal(shortRevision(undefined), "-");
  assert.equal(shortRevision("v1.2.3"), "v1.2.3");
});

test("at the opening, fluxgate's decision comes first, then what Flux did, then what fluxgate saw of it", () => {
  const opened: Snapshot = {
    ...closed,
    at,
    image: "nginx:1.28",
    rwApplied: B,
    rwSuspended: false,
    window: { ...(closed.window as NonNullable<Snapshot["window"]>), state: "Open", reason: "Open by schedule until 11:17:30", pending: [] },
    events: [
      ...closed.events,
      { uid: "2", kind: "Kustomization", name: "apps-rw", reason: "ChangesApplied", message: `Applied revision ${B} (was ${A}) under window nginx-window` },
      { uid: "3", kind: "Kustomization", name: "apps-rw", reason: "WindowOpened", message: "Resumed by window nginx-window: Open by schedule" },
      { uid: "4", kind: "ReconciliationWindow", name: "nginx-window", reason: "WindowOpened", message: "Closed → Open: Open by schedule" },
    ],
  };
  assert.deepEqual(changes(closed, opened).map(formatEntry), [
    "11:17:00  fluxgate  window nginx-window: Open by schedule until 11:17:30",
    "11:17:00  fluxgate  WindowOpened on Kustomization apps-rw: Resumed by window nginx-window: Open by schedule",
    "11:17:00  flux      Kustomization apps-rw applied main@8c52413",
    "11:17:00  cluster   Deployment nginx created: image nginx:1.28",
    "11:17:00  fluxgate  status: nothing waits for the window any more",
    "11:17:00  fluxgate  ChangesApplied on Kustomization apps-rw: Applied revision main@8c52413 (was main@c37d94e) under window nginx-window",
  ]);
});

test("a new pending revision says since when it waits and until when", () => {
  const before: Snapshot = { ...closed, window: { ...(closed.window as NonNullable<Snapshot["window"]>), pending: [] } };
  assert.deepEqual(
    changes(before, closed).map((e) => e.text),
    ["apps-rw: main@8c52413 waits since 11:16:02 (applied: main@c37d94e), until the window opens at 11:17:00"],
  );
});

test("nothing changed, nothing told; events already told are not told again", () => {
  assert.deepEqual(changes(closed, { ...closed, at }), []);
});

test("objects appear, change and disappear", () => {
  const created = changes(EMPTY, { ...EMPTY, at, conf: "v1", image: "nginx:1.27" }).map((e) => e.text);
  assert.deepEqual(created, ["ConfigMap nginx-conf created: nginx.conf v1", "Deployment nginx created: image nginx:1.27"]);
  const changed = changes({ ...EMPTY, conf: "v1", image: "nginx:1.27" }, { ...EMPTY, at, conf: "v2" }).map((e) => e.text);
  assert.deepEqual(changed, ["ConfigMap nginx-conf changed: nginx.conf v1 → v2", "Deployment nginx is gone"]);
});

test("a pin in Gate mode names its commit short", () => {
  const pinned = changes(EMPTY, {
    ...EMPTY,
    at,
    events: [
      {
        uid: "5",
        kind: "ReconciliationWindow",
        name: "nginx-window",
        reason: "RevisionPinned",
        message:
          "Pinned GitRepository/gitops-gated to 8c524130eb0bafe705e57054544a4c5f62cd90c0 (was c37d94eba6d585516b1e4a99b18cbb313b35a6ee): the window is open",
      },
    ],
  });
  assert.deepEqual(
    pinned.map((e) => e.text),
    ["RevisionPinned on ReconciliationWindow nginx-window: Pinned GitRepository/gitops-gated to 8c52413 (was c37d94e): the window is open"],
  );
});
