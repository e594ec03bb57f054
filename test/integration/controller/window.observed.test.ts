// Status is observation, not intent, on the real kube-apiserver: what targets applied while closed, who set spec.suspend back and how fast it is set again,
// what counts as a transition, and mode conflicts.

import { KubernetesObjectApi, PatchStrategy } from "@kubernetes/client-node";
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { test } from "node:test";
import { sharedControlPlane, waitFor } from "../../harness/index.ts";
import {
  ALWAYS,
  createKustomization,
  createOverride,
  createWindow,
  eventsOf,
  getKustomization,
  getWindow,
  KUSTOMIZATIONS,
  setup,
  startController,
  TestClock,
  waitForSuspend,
  YEARLY,
  type Setup,
} from "./helpers.ts";

const plane = sharedControlPlane();

/** What another field manager does to spec.suspend: server-side apply, forced, as kustomize-controller and kubectl do. */
async function setSuspend(s: Setup, name: string, suspend: boolean, manager: string): Promise<void> {
  const objects = s.cp.kubeConfig.makeApiClient(KubernetesObjectApi);
  await objects.patch(
    { apiVersion: "kustomize.toolkit.fluxcd.io/v1", kind: "Kustomization", metadata: { name, namespace: s.namespace }, spec: { suspend } },
    undefined,
    undefined,
    manager,
    true,
    PatchStrategy.ServerSideApply,
  );
}

/** What kustomize-controller reports after an apply. */
async function setApplied(s: Setup, name: string, revision: string): Promise<void> {
  await s.custom.patchNamespacedCustomObjectStatus({
    ...KUSTOMIZATIONS,
    namespace: s.namespace,
    name,
    body: [{ op: "add", path: "/status", value: { lastAppliedRevision: revision } }],
  });
}

async function metric(c: { metrics: { registry: { metrics: () => Promise<string> } } }, line: RegExp): Promise<number> {
  const m = line.exec(await c.metrics.registry.metrics());
  return m === null ? 0 : Number(m[1]);
}

test("a revision applied while closed is a violation: Warning event naming revision and manager, Ready=False, listed, counted; cleared when the window opens", async () => {
  const s = await setup(plane());
  await createKustomization(s, "apps-rw");
  await setApplied(s, "apps-rw", "main@sha1:aaaa");
  await createWindow(s, "closed", { schedules: [YEARLY], targets: [{ kind: "Kustomization", name: "apps-rw" }] });
  const c = await startController(s);
  try {
    await waitForSuspend(s, "apps-rw", true);
    await c.settled();
    // A person resumes it by hand, and Flux applies a new revision before fluxgate sets it back.
    await setSuspend(s, "apps-rw", false, "kubectl-patch");
    await setApplied(s, "apps-rw", "main@sha1:bbbb");
    const event = await waitFor("AppliedWhileClosed", async () => (await eventsOf(s, "AppliedWhileClosed")).find((e) => e.kind === "Kustomization"));
    assert.equal(event.type, "Warning");
    assert.match(
      event.message,
      /Applied revision main@sha1:bbbb \(was main@sha1:aaaa\) while window closed is closed: spec\.suspend was set to false by manager "kubectl-patch"/,
    );
    const w = await waitFor("Ready=False AppliedWhileClosed", async () => {
      const got = (await getWindow(s, "closed")) as Awaited<ReturnType<typeof getWindow>> & {
        status?: { violations?: { name: string; revision: string; cause: string }[] };
      };
      return got.status?.conditions?.find((x) => x.type === "Ready" && x.reason === "AppliedWhileClosed") !== undefined ? got : undefined;
    });
    assert.equal(w.status?.violations?.[0]?.revision, "main@sha1:bbbb");
    assert.equal(w.status?.conditions?.find((x) => x.type === "Ready")?.status, "False");
    assert.match(w.status?.conditions?.find((x) => x.type === "SuspendReverted")?.message ?? "", /kubectl-patch.*use `fluxgate open`/);
    assert.equal(await metric(c, /fluxgate_applied_while_closed_total\{namespace="[^"]+",name="closed"\} (\d+)/), 1);
    assert.equal((await eventsOf(s, "ChangesApplied")).length, 0, "never reported as a normal change");
    await waitForSuspend(s, "apps-rw", true);

    // The window opens: applying is what it is for; the record clears and Ready is True again.
    await createOverride(s, "open-now", {
      windowRef: { name: "closed" },
      action: "Open",
      until: new Date(Date.now() + 3_600_000).toISOString(),
      reason: "test",
    });
    await waitFor("Ready=True", async () =>
      (await getWindow(s, "closed")).status?.conditions?.find((x) => x.type === "Ready")?.status === "True" ? true : undefined,
    );
    await setApplied(s, "apps-rw", "main@sha1:cccc");
    await waitFor("ChangesApplied", async () => ((await eventsOf(s, "ChangesApplied")).some((e) => e.message.includes("main@sha1:cccc")) ? true : undefined));
  } finally {
    await c.stop();
  }
});

test("a writer that reverts every few seconds (a parent's interval) is set back at once each time, not after a growing backoff", async () => {
  const s = await setup(plane());
  await createKustomization(s, "apps-rw");
  await createWindow(s, "closed", { schedules: [YEARLY], targets: [{ kind: "Kustomization", name: "apps-rw" }], onRevert: "Reassert" });
  const c = await startController(s);
  try {
    await waitForSuspend(s, "apps-rw", true);
    const delays: number[] = [];
    for (let i = 0; i < 5; i++) {
      await sleep(6_000);
      await setSuspend(s, "apps-rw", false, "kustomize-controller");
      const at = Date.now();
      delays.push((await waitForSuspend(s, "apps-rw", true, 20_000)) - at);
    }
    assert.ok(
      delays.every((d) => d < 1_500),
      `set back after ${delays.join(", ")} ms`,
    );
    const reverted = (await eventsOf(s, "SuspendReverted")).find((e) => e.kind === "Kustomization");
    assert.match(reverted?.message ?? "", /by manager "kustomize-controller".*remove spec\.suspend from the manifest in Git/);
  } finally {
    await c.stop();
  }
});

test("Hold: a target whose parent declares spec.suspend in Git gets the parent's reconcile disabled while closed, and back when it opens", async () => {
  const s = await setup(plane());
  await createKustomization(s, "parent");
  const parentLabels = { "kustomize.toolkit.fluxcd.io/name": "parent", "kustomize.toolkit.fluxcd.io/namespace": s.namespace };
  await createKustomization(s, "apps-rw", { labels: parentLabels });
  await createKustomization(s, "apps-rt", { labels: parentLabels });
  // The parent applied both from Git; apps-rw's manifest declares suspend: false.
  await setSuspend(s, "apps-rw", false, "kustomize-controller");
  await createWindow(s, "closed", {
    schedules: [YEARLY],
    targets: [
      { kind: "Kustomization", name: "apps-rw" },
      { kind: "Kustomization", name: "apps-rt" },
    ],
  });
  const c = await startController(s);
  try {
    await waitForSuspend(s, "apps-rw", true);
    await waitForSuspend(s, "apps-rt", true);
    await c.settled();
    assert.equal((await getKustomization(s, "apps-rw")).metadata?.annotations?.["kustomize.toolkit.fluxcd.io/reconcile"], "disabled");
    assert.equal(
      (await getKustomization(s, "apps-rt")).metadata?.annotations?.["kustomize.toolkit.fluxcd.io/reconcile"],
      undefined,
      "only where Git declares spec.suspend",
    );
    const warning = await waitFor("ParentReconcileDisabled", async () => (await eventsOf(s, "ParentReconcileDisabled")).find((e) => e.name === "apps-rw"));
    assert.equal(warning.type, "Warning");
    const condition = await waitFor("the window says so", async () =>
      (await getWindow(s, "closed")).status?.conditions?.find((x) => x.type === "SuspendReverted"),
    );
    assert.match(condition.message, /parent Kustomization of Kustomization\/[^/]+\/apps-rw declares its spec\.suspend in Git/);

    await createOverride(s, "open-now", {
      windowRef: { name: "closed" },
      action: "Open",
      until: new Date(Date.now() + 3_600_000).toISOString(),
      reason: "test",
    });
    await waitForSuspend(s, "apps-rw", false);
    await waitFor("the hold lifted", async () =>
      (await getKustomization(s, "apps-rw")).metadata?.annotations?.["kustomize.toolkit.fluxcd.io/reconcile"] === undefined ? true : undefined,
    );
    const parent = await waitFor(
      "the parent asked to apply at once",
      async () => (await getKustomization(s, "parent")).metadata?.annotations?.["reconcile.fluxcd.io/requestedAt"],
    );
    assert.ok(!Number.isNaN(Date.parse(parent)));
    await c.settled();
    assert.equal(
      (await getKustomization(s, "parent")).metadata?.annotations?.["reconcile.fluxcd.io/requestedAt"],
      parent,
      "and fluxgate does not take it back",
    );
  } finally {
    await c.stop();
  }
});

test("transitions: a new window's first state is none, a scheduled change is one, and only it is timed", async () => {
  const s = await setup(plane());
  await createKustomization(s, "apps-rw");
  await createWindow(s, "weekdays", {
    timeZone: "Europe/Berlin",
    schedules: [{ start: "0 8 * * MON", end: "0 17 * * THU" }],
    targets: [{ kind: "Kustomization", name: "apps-rw" }],
  });
  const clock = new TestClock();
  clock.set(Date.parse("2026-11-23T06:59:52.000Z")); // Monday 07:59:52 CET
  const c = await startController(s, clock);
  try {
    await waitForSuspend(s, "apps-rw", true);
    await c.settled();
    await sleep(1_200); // the window's debounced status updates
    await c.settled();
    assert.equal(await metric(c, /fluxgate_window_transitions_total\{[^}]*name="weekdays"[^}]*\} (\d+)/), 0, "creating a window is not a transition");
    assert.equal(await metric(c, /fluxgate_transition_latency_seconds_count (\d+)/), 0, "a first enforcement is not timed");
    await waitForSuspend(s, "apps-rw", false, 10_000);
    await waitFor("status Open", async () => ((await getWindow(s, "weekdays")).status?.state === "Open" ? true : undefined));
    await sleep(1_200);
    await c.settled();
    assert.equal(await metric(c, /fluxgate_window_transitions_total\{[^}]*name="weekdays"[^}]*state="Open"[^}]*\} (\d+)/), 1);
    assert.equal(await metric(c, /fluxgate_transition_latency_seconds_count (\d+)/), 1);
    const sum = await metric(c, /fluxgate_transition_latency_seconds_sum ([\d.e-]+)/);
    assert.ok(sum < 5, `the opening was written ${sum} s after its instant`);
  } finally {
    await c.stop();
  }
});

test("a target selected by a Suspend and a Gate window is held closed whatever order they came in, and said so", async () => {
  for (const order of ["suspend-first", "gate-first"] as const) {
    const s = await setup(plane());
    await createKustomization(s, "apps-rw");
    const suspend = (): Promise<void> => createWindow(s, "suspend", { schedules: [ALWAYS], targets: [{ kind: "Kustomization", name: "apps-rw" }] });
    const gate = (): Promise<void> =>
      createWindow(s, "gate", {
        schedules: [ALWAYS],
        mode: "Gate",
        gate: { upstream: { kind: "GitRepository", name: "gitops" }, gatedName: "gitops-gated" },
        targets: [{ kind: "Kustomization", name: "apps-rw" }],
      });
    const c = await startController(s);
    try {
      await (order === "suspend-first" ? suspend() : gate());
      await sleep(1_000);
      await c.settled();
      await (order === "suspend-first" ? gate() : suspend());
      await waitForSuspend(s, "apps-rw", true);
      const ready = await waitFor("ModeConflict", async () =>
        (await getWindow(s, "suspend")).status?.conditions?.find((x) => x.type === "Ready" && x.reason === "ModeConflict"),
      );
      assert.match(ready.message, /held closed/, order);
      const events = await eventsOf(s, "WindowClosed");
      assert.ok(
        events.some((e) => e.name === "apps-rw" && /Held closed: selected by windows of different modes/.test(e.message)),
        `${order}: ${JSON.stringify(events)}`,
      );
      // One object, one observation: both windows count it held (it is suspended), whatever their mode.
      const counts = await waitFor("both windows count the target held", async () => {
        const [a, b] = [(await getWindow(s, "suspend")).status?.targets, (await getWindow(s, "gate")).status?.targets];
        return a?.closed === 1 && b?.closed === 1 ? [a, b] : undefined;
      });
      assert.deepEqual(
        counts.map((t) => [t.matched, t.open, t.closed, t.conflicts]),
        [
          [1, 0, 1, 1],
          [1, 0, 1, 1],
        ],
        order,
      );
    } finally {
      await c.stop();
    }
  }
});
