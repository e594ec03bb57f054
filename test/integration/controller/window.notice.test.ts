// Notice before a change: with spec.notice the controller announces the next opening (or freeze start) at its moment, once, naming each target's revision.

import assert from "node:assert/strict";
import { test } from "node:test";
import { OVERRIDE_REQUESTED_AT, type WindowStatus } from "../../../src/api/index.ts";
import { sharedControlPlane, waitFor } from "../../harness/index.ts";
import {
  ALWAYS,
  createKustomization,
  OVERRIDES,
  createWindow,
  eventsOf,
  getWindow,
  KUSTOMIZATIONS,
  setup,
  startController,
  TestClock,
  type Setup,
} from "./helpers.ts";

const plane = sharedControlPlane();
const GITREPOSITORIES = { group: "source.toolkit.fluxcd.io", version: "v1", plural: "gitrepositories" };

/** A GitRepository offering main@sha1:bbbb; apps-rw applied aaaa (bbbb waits), infra-rw applied bbbb (nothing waits). */
async function sourceAndTargets(s: Setup): Promise<void> {
  await s.custom.createNamespacedCustomObject({
    ...GITREPOSITORIES,
    namespace: s.namespace,
    body: {
      apiVersion: "source.toolkit.fluxcd.io/v1",
      kind: "GitRepository",
      metadata: { name: "gitops" },
      spec: { url: "https://git.example/fleet.git", interval: "1m", ref: { branch: "main" } },
    },
  });
  await s.custom.patchNamespacedCustomObjectStatus({
    ...GITREPOSITORIES,
    namespace: s.namespace,
    name: "gitops",
    body: [
      {
        op: "add",
        path: "/status",
        value: {
          artifact: {
            path: "gitrepository/x.tar.gz",
            url: "http://source-controller/x.tar.gz",
            revision: "main@sha1:bbbb",
            digest: "sha256:0000000000000000000000000000000000000000000000000000000000000000",
            lastUpdateTime: new Date().toISOString().replace(/\.\d{3}Z$/, "Z"),
          },
        },
      },
    ],
  });
  for (const [name, applied] of [
    ["apps-rw", "main@sha1:aaaa"],
    ["infra-rw", "main@sha1:bbbb"],
  ] as const) {
    await createKustomization(s, name);
    await s.custom.patchNamespacedCustomObjectStatus({
      ...KUSTOMIZATIONS,
      namespace: s.namespace,
      name,
      body: [{ op: "add", path: "/status", value: { lastAppliedRevision: applied } }],
    });
  }
}

const TARGETS = [
  { kind: "Kustomization", name: "apps-rw" },
  { kind: "Kustomization", name: "infra-rw" },
];

async function upcomingOf(s: Setup, name: string): Promise<WindowStatus["upcoming"]> {
  return ((await getWindow(s, name)).status as WindowStatus | undefined)?.upcoming;
}

test("the opening is announced at its notice's moment, once, with each target's waiting revision; an override moves it", async () => {
  const s = await setup(plane());
  await sourceAndTargets(s);
  await createWindow(s, "weekdays", { schedules: [{ start: "0 8 * * MON", duration: "9h" }], notice: "15m", targets: TARGETS });
  const clock = new TestClock();
  clock.set(Date.parse("2026-11-23T07:40:00Z")); // Monday, 20 minutes before the opening
  let c = await startController(s, clock);
  try {
    const before = await waitFor("status.upcoming", () => upcomingOf(s, "weekdays"));
    assert.deepEqual(before, { transition: "Open", at: "2026-11-23T08:00:00Z", noticeAt: "2026-11-23T07:45:00Z" });
    assert.deepEqual(await eventsOf(s, "WindowOpensSoon"), [], "nothing announced before the notice's moment");

    // Two seconds before the notice's moment: the controller's own timer announces it then.
    clock.set(Date.parse("2026-11-23T07:44:58Z"));
    c.resync();
    const announcedWithin = Date.now();
    const windowEvent = await waitFor(
      "WindowOpensSoon on the window",
      async () => (await eventsOf(s, "WindowOpensSoon")).find((e) => e.kind === "ReconciliationWindow"),
      { timeoutMs: 10_000, intervalMs: 100 },
    );
    assert.ok(Date.now() - announcedWithin >= 1_000, "not before the notice's moment");
    assert.equal(windowEvent.type, "Normal");
    assert.equal(
      windowEvent.message,
      "Opens Mon 2026-11-23 08:00 UTC (in 15m): " + `${s.namespace}/apps-rw: main@sha1:bbbb; ${s.namespace}/infra-rw: nothing waits`,
    );
    const onTargets = await waitFor("WindowOpensSoon on both targets", async () => {
      const list = (await eventsOf(s, "WindowOpensSoon")).filter((e) => e.kind === "Kustomization");
      return list.length === 2 ? list.sort((a, b) => a.name.localeCompare(b.name)) : undefined;
    });
    assert.deepEqual(
      onTargets.map((e) => e.message),
      [
        `Window weekdays opens Mon 2026-11-23 08:00 UTC (in 15m): ${s.namespace}/apps-rw: main@sha1:bbbb`,
        `Window weekdays opens Mon 2026-11-23 08:00 UTC (in 15m): ${s.namespace}/infra-rw: nothing waits`,
      ],
    );
    const announced = await waitFor("status.upcoming.announcedAt", async () => {
      const u = await upcomingOf(s, "weekdays");
      return u?.announcedAt !== undefined ? u : undefined;
    });
    assert.equal(announced.message, windowEvent.message);
    assert.ok(Date.parse(announced.announcedAt ?? "") >= Date.parse("2026-11-23T07:45:00Z"));

    // Once: neither a resync nor a restart announces it again.
    c.resync();
    await c.stop();
    c = await startController(s, clock);
    await waitFor("the restarted controller to reconcile", async () => ((await getWindow(s, "weekdays")).status?.state === "Closed" ? true : undefined));
    await new Promise((r) => setTimeout(r, 1_000));
    assert.equal((await eventsOf(s, "WindowOpensSoon")).length, 3, "one event on the window, one on each target");

    // A freeze override over the opening: the window now opens when it ends, a new transition with its own notice.
    // Asked for at 07:45 on the test's clock (the annotation the Config Service writes), not at its creation in real time.
    await s.custom.createNamespacedCustomObject({
      ...OVERRIDES,
      namespace: s.namespace,
      body: {
        apiVersion: "fluxgate.io/v1alpha1",
        kind: "WindowOverride",
        metadata: { name: "incident", annotations: { [OVERRIDE_REQUESTED_AT]: "2026-11-23T07:45:00Z" } },
        spec: { windowRef: { name: "weekdays" }, action: "Freeze", until: "2026-11-23T09:00:00Z", reason: "incident" },
      },
    });
    const moved = await waitFor("status.upcoming moved to the override's end", async () => {
      const u = await upcomingOf(s, "weekdays");
      return u?.at === "2026-11-23T09:00:00Z" ? u : undefined;
    });
    assert.deepEqual(moved, { transition: "Open", at: "2026-11-23T09:00:00Z", noticeAt: "2026-11-23T08:45:00Z" });
    // A controller started inside the notice period announces at once.
    clock.set(Date.parse("2026-11-23T08:50:00Z"));
    c.resync();
    const late = await waitFor("WindowOpensSoon for 09:00", async () =>
      (await eventsOf(s, "WindowOpensSoon")).find((e) => e.kind === "ReconciliationWindow" && e.message.includes("09:00")),
    );
    assert.match(late.message, /^Opens Mon 2026-11-23 09:00 UTC \(in 10m\): /);
  } finally {
    await c.stop();
  }
});

test("a freeze starting inside the notice period of a new window is announced at once; a window without notice announces nothing", async () => {
  const s = await setup(plane());
  await sourceAndTargets(s);
  await createWindow(s, "open", {
    schedules: [ALWAYS],
    freezes: [{ from: "2026-11-27T00:00", to: "2026-11-28T00:00", reason: "Black Friday" }],
    notice: "1h",
    targets: [{ kind: "Kustomization", name: "apps-rw" }],
  });
  await createWindow(s, "quiet", {
    schedules: [ALWAYS],
    freezes: [{ from: "2026-11-27T00:00", to: "2026-11-28T00:00" }],
    targets: [{ kind: "Kustomization", name: "infra-rw" }],
  });
  const clock = new TestClock();
  clock.set(Date.parse("2026-11-26T23:30:00Z"));
  const c = await startController(s, clock);
  try {
    const frozen = await waitFor("FreezeStartsSoon on apps-rw", async () => (await eventsOf(s, "FreezeStartsSoon")).find((e) => e.name === "apps-rw"));
    assert.equal(
      frozen.message,
      `Window open: freeze starts Fri 2026-11-27 00:00 UTC (in 30m): ${s.namespace}/apps-rw: main@sha1:bbbb waits and is held from then`,
    );
    const u = await waitFor("announced in status", async () => {
      const got = await upcomingOf(s, "open");
      return got?.announcedAt !== undefined ? got : undefined;
    });
    assert.equal(u.transition, "Frozen");
    assert.equal(u.at, "2026-11-27T00:00:00Z");
    assert.equal(await upcomingOf(s, "quiet"), undefined, "no notice, no status.upcoming");
    assert.deepEqual(
      (await eventsOf(s, "FreezeStartsSoon")).filter((e) => e.name === "infra-rw" || e.name === "quiet"),
      [],
    );
  } finally {
    await c.stop();
  }
});

test("Gate mode: the notice names the upstream revision waiting at the gate", async () => {
  const s = await setup(plane());
  const A = "a".repeat(40);
  const B = "b".repeat(40);
  const artifact = (sha: string): Record<string, unknown> => ({
    path: "x",
    url: "http://x/x.tar.gz",
    revision: `main@sha1:${sha}`,
    digest: `sha256:${"0".repeat(64)}`,
    lastUpdateTime: new Date().toISOString().replace(/\.\d{3}Z$/, "Z"),
  });
  await s.custom.createNamespacedCustomObject({
    ...GITREPOSITORIES,
    namespace: s.namespace,
    body: {
      apiVersion: "source.toolkit.fluxcd.io/v1",
      kind: "GitRepository",
      metadata: { name: "gitops" },
      spec: { url: "https://git.example/fleet.git", interval: "1m", ref: { branch: "main" } },
    },
  });
  const upstreamAt = async (sha: string): Promise<void> => {
    await s.custom.patchNamespacedCustomObjectStatus({
      ...GITREPOSITORIES,
      namespace: s.namespace,
      name: "gitops",
      body: [{ op: "add", path: "/status", value: { artifact: artifact(sha) } }],
    });
  };
  await upstreamAt(A);
  await createKustomization(s, "apps-rw", { source: "gitops-gated" });
  await createWindow(s, "gate", {
    schedules: [{ start: "0 8 * * MON", duration: "9h" }],
    mode: "Gate",
    gate: { upstream: { kind: "GitRepository", name: "gitops" }, gatedName: "gitops-gated" },
    notice: "10m",
    targets: [{ kind: "Kustomization", name: "apps-rw" }],
  });
  const clock = new TestClock();
  clock.set(Date.parse("2026-11-23T06:00:00Z"));
  const c = await startController(s, clock);
  try {
    await waitFor("the gated source pinned at A", async () => {
      const w = (await getWindow(s, "gate")).status as WindowStatus | undefined;
      return w?.gate?.pinnedRevision === `main@sha1:${A}` ? true : undefined;
    });
    // Upstream moves while closed: B waits at the gate.
    await upstreamAt(B);
    await waitFor("B waiting at the gate", async () => {
      const w = (await getWindow(s, "gate")).status as WindowStatus | undefined;
      return w?.gate?.upstreamRevision === `main@sha1:${B}` ? true : undefined;
    });
    clock.set(Date.parse("2026-11-23T07:55:00Z"));
    c.resync();
    const soon = await waitFor("WindowOpensSoon on the window", async () =>
      (await eventsOf(s, "WindowOpensSoon")).find((e) => e.kind === "ReconciliationWindow"),
    );
    assert.equal(soon.message, `Opens Mon 2026-11-23 08:00 UTC (in 5m): ${s.namespace}/apps-rw: main@sha1:${B}`);
  } finally {
    await c.stop();
  }
});
