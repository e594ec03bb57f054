// When fluxgate cannot act, it says so, on the real kube-apiserver: Ready is what the targets do as observed, under RBAC narrowed from config/rbac, with a
// target that does not exist, and after a failed reconcile.

import assert from "node:assert/strict";
import { test } from "node:test";
import { stripVTControlCharacters } from "node:util";
import { explain } from "../../../src/cli/explain.ts";
import { openOrFreeze } from "../../../src/cli/open.ts";
import { status } from "../../../src/cli/status.ts";
import { startTestController } from "../../support/controller.ts";
import { narrowedControllerAccess } from "../../support/rbac.ts";
import { sharedControlPlane, waitFor } from "../../harness/index.ts";
import {
  createKustomization,
  createOverride,
  createWindow,
  eventsOf,
  getWindow,
  KUSTOMIZATIONS,
  OVERRIDES,
  setup,
  startController,
  waitForSuspend,
  YEARLY,
  type Setup,
  type WindowObject,
} from "./helpers.ts";

const plane = sharedControlPlane();

/** What kustomize-controller reports after an apply. */
async function setApplied(s: Setup, name: string, revision: string): Promise<void> {
  await s.custom.patchNamespacedCustomObjectStatus({
    ...KUSTOMIZATIONS,
    namespace: s.namespace,
    name,
    body: [{ op: "add", path: "/status", value: { lastAppliedRevision: revision } }],
  });
}

/** The GitRepository `gitops`, with the artifact source-controller would report: `revision`, arrived at `at`. */
async function gitRepositoryWithArtifact(s: Setup, revision: string, at: string): Promise<void> {
  const sources = { group: "source.toolkit.fluxcd.io", version: "v1", plural: "gitrepositories" };
  await s.custom.createNamespacedCustomObject({
    ...sources,
    namespace: s.namespace,
    body: {
      apiVersion: "source.toolkit.fluxcd.io/v1",
      kind: "GitRepository",
      metadata: { name: "gitops" },
      spec: { interval: "1m", url: "https://git.example/fleet.git", ref: { branch: "main" } },
    },
  });
  const artifact = { revision, lastUpdateTime: at, path: "x", url: "http://x", digest: `sha256:${"0".repeat(64)}` };
  await s.custom.patchNamespacedCustomObjectStatus({
    ...sources,
    namespace: s.namespace,
    name: "gitops",
    body: [{ op: "add", path: "/status", value: { artifact } }],
  });
}

const readyOf = (w: WindowObject): { status: string; reason: string; message: string } | undefined => w.status?.conditions?.find((c) => c.type === "Ready");

async function waitForReady(s: Setup, window: string, reason: string, timeoutMs = 20_000): Promise<WindowObject> {
  return await waitFor(
    `window ${window} Ready reason ${reason}`,
    async () => {
      const w = await getWindow(s, window);
      return readyOf(w)?.reason === reason ? w : undefined;
    },
    { timeoutMs },
  );
}

test("a controller that may not patch its targets says so: TargetNotFollowing with the API server's answer, an event, status and explain; a change let through names the refused write; open fails", async () => {
  const s = await setup(plane());
  const sa = await narrowedControllerAccess(s.cp, `no-patch-${s.namespace}`, { resource: "kustomizations", verb: "patch" });
  await createKustomization(s, "apps");
  await setApplied(s, "apps", "main@sha1:aaaa");
  // Suspended by a person before fluxgate came: a closed window finds it as it wants it.
  await createKustomization(s, "held", { suspend: true });
  await createWindow(s, "closed", { schedules: [YEARLY], targets: [{ kind: "Kustomization", name: "apps" }] });
  await createWindow(s, "shut", { schedules: [YEARLY], targets: [{ kind: "Kustomization", name: "held" }] });
  const c = await startTestController({ kubeConfig: sa.kubeConfig, namespaces: [s.namespace], logs: "quiet" });
  try {
    const w = await waitForReady(s, "closed", "TargetNotFollowing");
    const ready = readyOf(w);
    assert.equal(ready?.status, "False");
    assert.match(
      ready?.message ?? "",
      new RegExp(
        `^1 target\\(s\\) do not follow the window: Kustomization/${s.namespace}/apps: spec\\.suspend is false, the window wants true: fluxgate may not write it \\(403\\): .*forbidden.*cannot patch resource "kustomizations"`,
      ),
    );
    assert.deepEqual([w.status?.state, w.status?.targets?.open, w.status?.targets?.closed], ["Closed", 1, 0], "observed: the target is open");
    const warned = await waitFor("a Warning event TargetNotFollowing", async () => {
      const got = (await eventsOf(s, "TargetNotFollowing")).filter((e) => e.name === "closed");
      return got.length > 0 ? got : undefined;
    });
    assert.equal(warned[0]?.type, "Warning");
    assert.equal(readyOf(await getWindow(s, "shut"))?.reason, "Reconciled", "a target already as decided follows, write or no write");

    // Every surface reads the same condition.
    const table = await status({
      kubeconfig: s.cp.kubeconfigPath,
      namespace: s.namespace,
      allNamespaces: false,
      output: "table",
      watch: false,
      color: false,
      now: () => Date.now(),
    });
    assert.match(table, /^Needs attention:\n {2}! closed: TargetNotFollowing: 1 target\(s\) do not follow the window: .*forbidden/m);
    const explainedJson = JSON.parse(
      await explain({ kubeconfig: s.cp.kubeconfigPath, namespace: s.namespace, object: "kustomization/apps", output: "json", color: false, now: Date.now() }),
    ) as {
      observed: { problems: { name: string; reason: string }[] };
    };
    assert.deepEqual(
      explainedJson.observed.problems.map((p) => [p.name, p.reason]),
      [["closed", "TargetNotFollowing"]],
    );
    const text = stripVTControlCharacters(
      await explain({ kubeconfig: s.cp.kubeconfigPath, namespace: s.namespace, object: "kustomization/apps", output: "text", color: false, now: Date.now() }),
    );
    assert.match(text, /Suspend\s+spec\.suspend is false \(not set by anyone\) — the decision wants true: the controller reports TargetNotFollowing \(below\)/);
    assert.match(text, /Observed\s+window .*\/closed: TargetNotFollowing: .*forbidden/);
    assert.doesNotMatch(text, /has not acted yet/);

    // Flux applies a new revision while closed: the cause is what was observed, not a spec.suspend nobody set.
    await setApplied(s, "apps", "main@sha1:bbbb");
    const violated = await waitForReady(s, "closed", "AppliedWhileClosed");
    const violations = (violated.status as { violations?: { revision: string; cause: string }[] }).violations ?? [];
    assert.equal(violations[0]?.revision, "main@sha1:bbbb");
    assert.match(violations[0]?.cause ?? "", /^spec\.suspend was never set: fluxgate's write was refused: .*forbidden/);
    assert.match(readyOf(violated)?.message ?? "", /\. 1 target\(s\) do not follow the window: /, "the refused write is still said, after the violation");

    // An Open override cannot resume what fluxgate may not patch: `fluxgate open` fails and says why.
    await assert.rejects(
      openOrFreeze({
        kubeconfig: s.cp.kubeconfigPath,
        namespace: s.namespace,
        action: "Open",
        window: "shut",
        for: "1h",
        reason: "hotfix INC-7",
        name: "hotfix",
        wait: true,
        waitTimeoutMs: 8_000,
        output: "text",
        color: false,
        now: Date.now(),
      }),
      (e: Error) => {
        assert.equal(e.name, "OperationalError");
        assert.match(e.message, /^Window shut now: Overridden, 0\/1 targets open/m);
        assert.match(
          e.message,
          /^The targets do not follow the override within 8s\. The controller reports TargetNotFollowing: .*held: spec\.suspend is true, the window wants false: fluxgate may not write it \(403\)/m,
        );
        return true;
      },
    );
  } finally {
    await c.stop();
  }
});

test("a window naming a target that does not exist says which, with the closest name, and picks it up once created", async () => {
  const s = await setup(plane());
  await createKustomization(s, "apps-rw");
  await createWindow(s, "typo", {
    schedules: [YEARLY],
    targets: [
      { kind: "Kustomization", name: "apps-rww" },
      { kind: "Kustomization", name: "elsewhere", namespace: "nowhere" },
    ],
  });
  const c = await startController(s);
  try {
    const w = await waitForReady(s, "typo", "TargetNotFound");
    assert.equal(
      readyOf(w)?.message,
      `2 target(s) named by the window do not exist: Kustomization ${s.namespace}/apps-rww does not exist; did you mean apps-rw?; Kustomization nowhere/elsewhere does not exist`,
    );
    const events = await waitFor("a Warning event TargetNotFound", async () => {
      const got = await eventsOf(s, "TargetNotFound");
      return got.length > 0 ? got : undefined;
    });
    assert.deepEqual([events[0]?.type, events[0]?.name], ["Warning", "typo"]);
    await createKustomization(s, "apps-rww");
    await waitForSuspend(s, "apps-rww", true);
    const now = await waitFor("only the other name left", async () => {
      const got = await getWindow(s, "typo");
      return /^1 target\(s\)/.test(readyOf(got)?.message ?? "") ? got : undefined;
    });
    assert.equal(readyOf(now)?.message, "1 target(s) named by the window do not exist: Kustomization nowhere/elsewhere does not exist");
  } finally {
    await c.stop();
  }
});

test("a reconcile that fails ends in a status that says what failed: a Gate window that may not pin its gated source", async () => {
  const s = await setup(plane());
  const sa = await narrowedControllerAccess(s.cp, `no-pin-${s.namespace}`, { resource: "gitrepositories", verb: "patch" });
  await gitRepositoryWithArtifact(s, `main@sha1:${"a".repeat(40)}`, new Date().toISOString());
  await createKustomization(s, "apps", { source: "gitops-gated" });
  await createWindow(s, "gate", {
    schedules: [YEARLY],
    mode: "Gate",
    gate: { upstream: { kind: "GitRepository", name: "gitops" }, gatedName: "gitops-gated" },
    targets: [{ kind: "Kustomization", name: "apps" }],
  });
  const c = await startTestController({ kubeConfig: sa.kubeConfig, namespaces: [s.namespace], logs: "quiet" });
  try {
    const w = await waitForReady(s, "gate", "ReconcileFailed");
    assert.equal(readyOf(w)?.status, "False");
    assert.match(
      readyOf(w)?.message ?? "",
      /^The last reconcile failed and is retried: the API server answered 403: gitrepositories\.source\.toolkit\.fluxcd\.io "gitops-gated" is forbidden: User ".*" cannot patch resource "gitrepositories"/,
    );
    const events = await waitFor("a Warning event ReconcileFailed", async () => {
      const got = (await eventsOf(s, "ReconcileFailed")).filter((e) => e.name === "gate");
      return got.length > 0 ? got : undefined;
    });
    assert.equal(events[0]?.type, "Warning");
  } finally {
    await c.stop();
  }
});

interface OverrideObject {
  status?: { phase?: string; message?: string; startedAt?: string };
}

async function override(s: Setup, name: string, window: string, untilMs: number): Promise<void> {
  await createOverride(s, name, {
    windowRef: { name: window },
    action: "Open",
    until: new Date(untilMs).toISOString().replace(/\.\d{3}Z$/, "Z"),
    reason: "test",
  });
}

async function waitForPhase(s: Setup, name: string, phase: string): Promise<OverrideObject> {
  return await waitFor(
    `override ${name} ${phase}`,
    async () => {
      const o = (await s.custom.getNamespacedCustomObject({ ...OVERRIDES, namespace: s.namespace, name })) as OverrideObject;
      return o.status?.phase === phase ? o : undefined;
    },
    { timeoutMs: 30_000 },
  );
}

test("an override on a window that never existed ends Expired without a start; one whose window is deleted says it was deleted", async () => {
  const s = await setup(plane());
  await createKustomization(s, "apps");
  await createWindow(s, "real", { schedules: [YEARLY], targets: [{ kind: "Kustomization", name: "apps" }] });
  const c = await startController(s);
  try {
    await override(s, "typo", "reall", Math.ceil((Date.now() + 4_000) / 1000) * 1000);
    const waiting = await waitForPhase(s, "typo", "WindowNotFound");
    assert.match(waiting.status?.message ?? "", /window reall does not exist in .*: this override has no effect until it does \(is the name right\?\)$/);
    const expired = await waitForPhase(s, "typo", "Expired");
    assert.equal(expired.status?.startedAt, undefined, "never in force");
    assert.match(
      expired.status?.message ?? "",
      /^expired at .* without taking effect: window reall did not exist in .* while it lasted; kept as a record until deleted$/,
    );

    await override(s, "hotfix", "real", Date.now() + 3_600_000);
    const active = await waitForPhase(s, "hotfix", "Active");
    assert.ok(active.status?.startedAt !== undefined);
    await s.custom.deleteNamespacedCustomObject({
      group: "fluxgate.io",
      version: "v1alpha1",
      plural: "reconciliationwindows",
      namespace: s.namespace,
      name: "real",
    });
    const orphaned = await waitForPhase(s, "hotfix", "WindowNotFound");
    assert.equal(orphaned.status?.message, `window real was deleted from ${s.namespace}: this override has no effect unless it is created again`);
    assert.equal(orphaned.status?.startedAt, active.status?.startedAt);
  } finally {
    await c.stop();
  }
});

test("a Kustomization created after its source's revision arrived waits from its creation, not from the artifact's time", async () => {
  const s = await setup(plane());
  const arrived = new Date(Date.now() - 210_000).toISOString().replace(/\.\d{3}Z$/, "Z");
  await gitRepositoryWithArtifact(s, "main@sha1:bbbb", arrived);
  const before = Math.floor(Date.now() / 1000) * 1000;
  await createKustomization(s, "apps");
  await setApplied(s, "apps", "main@sha1:aaaa");
  await createWindow(s, "closed", { schedules: [YEARLY], targets: [{ kind: "Kustomization", name: "apps" }] });
  const c = await startController(s);
  try {
    const w = await waitFor("pending listed", async () => {
      const got = (await getWindow(s, "closed")) as WindowObject & { status?: { pending?: { waitingSince?: string }[] } };
      return got.status?.pending?.[0] !== undefined ? got.status.pending[0] : undefined;
    });
    const since = Date.parse(w.waitingSince ?? "");
    assert.ok(since >= before, `waiting since ${w.waitingSince ?? "?"}, the Kustomization's creation (not the artifact's ${arrived})`);
  } finally {
    await c.stop();
  }
});
