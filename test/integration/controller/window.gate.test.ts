// Gate mode on the real kube-apiserver: the gated source is created and pinned, holds while closed, and takes an approved revision.

import assert from "node:assert/strict";
import { test } from "node:test";
import { fluxgate } from "../../support/cli.ts";
import { sharedControlPlane, waitFor } from "../../harness/index.ts";
import { createKustomization, createWindow, eventsOf, getKustomization, getWindow, setup, startController, YEARLY, type Setup } from "./helpers.ts";

const plane = sharedControlPlane();
const GITREPOSITORIES = { group: "source.toolkit.fluxcd.io", version: "v1", plural: "gitrepositories" };
const A = "a".repeat(40);
const B = "b".repeat(40);
const C = "c".repeat(40);

interface Source {
  metadata?: { ownerReferences?: { kind: string; name: string }[]; labels?: Record<string, string> };
  spec?: { url?: string; interval?: string; ref?: { branch?: string; commit?: string } };
}

async function setUpstreamRevision(s: Setup, sha: string, at: string): Promise<void> {
  await s.custom.patchNamespacedCustomObjectStatus({
    ...GITREPOSITORIES,
    namespace: s.namespace,
    name: "gitops",
    body: [
      {
        op: "add",
        path: "/status",
        value: { artifact: { path: "x", url: "http://x/x.tar.gz", revision: `main@sha1:${sha}`, digest: `sha256:${"0".repeat(64)}`, lastUpdateTime: at } },
      },
    ],
  });
}

/** The upstream GitRepository `gitops`, with an artifact at `sha`. */
async function createUpstream(s: Setup, sha: string, at: string): Promise<void> {
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
  await setUpstreamRevision(s, sha, at);
}

async function gated(s: Setup): Promise<Source | undefined> {
  try {
    return (await s.custom.getNamespacedCustomObject({ ...GITREPOSITORIES, namespace: s.namespace, name: "gitops-gated" })) as Source;
  } catch {
    return undefined;
  }
}

test("a closed Gate window pins its gated source, reports what waits upstream, and takes an approved revision", async () => {
  const s = await setup(plane());
  await createUpstream(s, A, "2026-11-20T10:00:00Z");
  // Wired as a Gate target must be: its artifact comes from the gated source.
  await createKustomization(s, "apps-rw", { source: "gitops-gated" });
  await createWindow(s, "gate", {
    schedules: [YEARLY],
    mode: "Gate",
    gate: { upstream: { kind: "GitRepository", name: "gitops" }, gatedName: "gitops-gated" },
    targets: [{ kind: "Kustomization", name: "apps-rw" }],
  });
  const c = await startController(s);
  try {
    const first = await waitFor("the gated source", () => gated(s));
    assert.deepEqual(first.spec?.ref, { branch: "main", commit: A }, "first pin: the upstream revision");
    assert.equal(first.spec?.url, "https://git.example/fleet.git", "the upstream's spec is copied");
    assert.equal(first.metadata?.ownerReferences?.[0]?.kind, "ReconciliationWindow");
    // Gate mode never suspends: the target keeps reconciling (at the pinned revision).
    await c.settled();
    assert.notEqual((await getKustomization(s, "apps-rw")).spec?.suspend, true);

    // Upstream moves while closed: the pin holds and the window says what waits.
    await setUpstreamRevision(s, B, "2026-11-21T09:30:00Z");
    const w = await waitFor("pending upstream", async () => {
      const got = (await getWindow(s, "gate")) as {
        status?: {
          gate?: { upstreamRevision?: string; pinnedRevision?: string; pendingSince?: string; pendingRevisions?: number };
          targets?: { pending: number };
        };
      };
      return got.status?.gate?.upstreamRevision === `main@sha1:${B}` ? got : undefined;
    });
    assert.equal(w.status?.gate?.pinnedRevision, A);
    assert.equal(w.status?.gate?.pendingSince, "2026-11-21T09:30:00Z");
    assert.equal(w.status?.gate?.pendingRevisions, 1);
    assert.equal(w.status?.targets?.pending, 1);
    assert.equal((await gated(s))?.spec?.ref?.commit, A);
    // A second commit upstream: two revisions wait now, since the first one arrived.
    await setUpstreamRevision(s, C, "2026-11-21T10:15:00Z");
    const two = await waitFor("two revisions pending", async () => {
      const got = (await getWindow(s, "gate")) as {
        status?: {
          gate?: { upstreamRevision?: string; pendingRevisions?: number; pendingSince?: string };
          pending?: { revisions?: number; waitingSince?: string }[];
        };
      };
      return got.status?.gate?.upstreamRevision === `main@sha1:${C}` ? got : undefined;
    });
    assert.equal(two.status?.gate?.pendingRevisions, 2);
    assert.equal(two.status?.gate?.pendingSince, "2026-11-21T09:30:00Z");
    assert.equal(two.status?.pending?.[0]?.revisions, 2);
    assert.equal((await gated(s))?.spec?.ref?.commit, A);

    // Approval: bad input is refused, then one revision is promoted and recorded.
    const refused = await fluxgate(...["approve", "gate", "-n", s.namespace, "--kubeconfig", s.cp.kubeconfigPath, "--revision", `main@sha1:${B}`]);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /--reason is required/);
    const bad = await fluxgate(...["approve", "gate", "-n", s.namespace, "--kubeconfig", s.cp.kubeconfigPath, "--revision", "v1.2", "--reason", "x"]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /not a Git commit/);
    const ok = await fluxgate(
      ...["approve", "gate", "-n", s.namespace, "--kubeconfig", s.cp.kubeconfigPath, "--revision", `main@sha1:${B}`, "--reason", "hotfix INC-42"],
    );
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /^Approved main@sha1:b{40} for window .*\/gate \(by .+: hotfix INC-42\)/);
    await waitFor("the approved pin", async () => ((await gated(s))?.spec?.ref?.commit === B ? true : undefined));
    const approved = await waitFor("the approval in status", async () => {
      const got = (await getWindow(s, "gate")) as { status?: { gate?: { approved?: { revision: string; reason: string; by: string } } } };
      return got.status?.gate?.approved;
    });
    assert.equal(approved.revision, `main@sha1:${B}`);
    assert.equal(approved.reason, "hotfix INC-42");
    assert.ok(approved.by.length > 0);
    await waitFor("RevisionPinned event", async () => ((await eventsOf(s, "RevisionPinned")).some((e) => /approved by/.test(e.message)) ? true : undefined));
  } finally {
    await c.stop();
  }
});

test("deleting a Gate window unpins its gated source, keeps it while a Kustomization uses it, says so, and deletes it once none does", async () => {
  const s = await setup(plane());
  await createUpstream(s, A, "2026-11-20T10:00:00Z");
  // Wired right: apps-rw takes its artifact from the gated source.
  await s.custom.createNamespacedCustomObject({
    group: "kustomize.toolkit.fluxcd.io",
    version: "v1",
    plural: "kustomizations",
    namespace: s.namespace,
    body: {
      apiVersion: "kustomize.toolkit.fluxcd.io/v1",
      kind: "Kustomization",
      metadata: { name: "apps-rw" },
      spec: { interval: "10m", path: "./deploy", prune: true, sourceRef: { kind: "GitRepository", name: "gitops-gated" } },
    },
  });
  await createWindow(s, "gate", {
    schedules: [YEARLY],
    mode: "Gate",
    gate: { upstream: { kind: "GitRepository", name: "gitops" }, gatedName: "gitops-gated" },
    targets: [{ kind: "Kustomization", name: "apps-rw" }],
  });
  const c = await startController(s);
  try {
    await waitFor("the pin", async () => ((await gated(s))?.spec?.ref?.commit === A ? true : undefined));
    const ready = await waitFor("Ready", async () => (await getWindow(s, "gate")).status?.conditions?.find((x) => x.type === "Ready"));
    assert.equal(ready.status, "True", "wired right: nothing to report");

    await s.custom.deleteNamespacedCustomObject({
      group: "fluxgate.io",
      version: "v1alpha1",
      plural: "reconciliationwindows",
      namespace: s.namespace,
      name: "gate",
    });
    const released = await waitFor("the gated source released", async () => {
      const g = await gated(s);
      return g?.metadata?.labels?.["fluxgate.io/released-from"] === "gate" ? g : undefined;
    });
    assert.deepEqual(released.spec?.ref, { branch: "main" }, "unpinned: it follows the upstream's ref");
    assert.equal(released.metadata?.ownerReferences, undefined, "no longer owned by the window: garbage collection cannot take it from under apps-rw");
    assert.equal(released.metadata?.labels?.["fluxgate.io/window"], undefined);
    const told = await waitFor("GateReleased on the target", async () => (await eventsOf(s, "GateReleased")).find((e) => e.kind === "Kustomization"));
    assert.equal(told.type, "Warning");
    assert.match(told.message, /no longer pinned and follows GitRepository\/gitops's ref.*Point spec\.sourceRef back at GitRepository\/gitops/);
    await c.settled();
    assert.notEqual(await gated(s), undefined, "kept while apps-rw uses it");

    // The user points apps-rw back at the upstream: the gated source goes.
    await s.custom.patchNamespacedCustomObject({
      group: "kustomize.toolkit.fluxcd.io",
      version: "v1",
      plural: "kustomizations",
      namespace: s.namespace,
      name: "apps-rw",
      body: [{ op: "replace", path: "/spec/sourceRef/name", value: "gitops" }],
    });
    await waitFor("the gated source deleted", async () => ((await gated(s)) === undefined ? true : undefined));
  } finally {
    await c.stop();
  }
});
