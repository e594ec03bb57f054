// Live status from a real kube-apiserver and pushed status from signed events, for the same cluster: each target from the newest, saying which source it came
// from.
/* eslint-disable @typescript-eslint/no-unsafe-call -- answers are untyped JSON, checked field by field */

import assert from "node:assert/strict";
import { mkdir, readdir } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { ApiException, CoreV1Api, CustomObjectsApi, PatchStrategy, setHeaderOptions } from "@kubernetes/client-node";
import { createApp } from "../../../src/server/app.ts";
import { KubeLive } from "../../../src/server/status/live.ts";
import { addClusterKey, ClusterKeys, signatureOf } from "../../../src/server/status/keys.ts";
import { SqliteStore } from "../../../src/server/status/sqlite.ts";
import { Repository } from "../../../src/server/git/repository.ts";
import { TokenStore } from "../../../src/server/http/tokens.ts";
import { installCrds, serviceAccountKubeconfig, sharedControlPlane, type ServiceAccountAccess } from "../../harness/index.ts";
import { berlinSpec, NOW, tempDir, writeFleet, writeTokens } from "../../support/server.ts";

const plane = sharedControlPlane();
const GROUP = { group: "fluxgate.io", version: "v1alpha1", namespace: "flux-system" };
const READ_RULES = [{ apiGroups: ["fluxgate.io"], resources: ["reconciliationwindows", "windowoverrides"], verbs: ["get", "list"] }];

/** The example fleet served in-process: edge-berlin live as `sa`, every cluster's events received, status in SQLite. */
async function serve(t: { after(fn: () => Promise<void>): void }, sa: ServiceAccountAccess) {
  const { dir: root, cleanup } = await tempDir("sources");
  // Registered at once, so the folder goes even when a step below fails; the store, once open, is closed before it (an
  // open database keeps its journal there).
  const opened: { store?: SqliteStore } = {};
  t.after(async () => {
    await opened.store?.close();
    await cleanup();
  });
  const repo = join(root, "fleet");
  await mkdir(repo);
  await writeFleet(repo);
  const tokens = await writeTokens(root);
  const keysFile = join(root, "cluster-keys.yaml");
  const keys = {
    "edge-berlin": await addClusterKey(keysFile, { cluster: "edge-berlin", now: NOW }),
    "edge-tokyo": await addClusterKey(keysFile, { cluster: "edge-tokyo", now: NOW }),
  };
  const store = (opened.store = SqliteStore.open(join(root, "status.db")));
  const app = createApp({
    repository: await Repository.open(repo, { now: () => NOW }),
    tokens: await TokenStore.open(tokens.file),
    anonymousRead: false,
    live: new KubeLive(new Map([["edge-berlin", sa.kubeConfig.getCurrentContext()]]), sa.kubeconfigPath),
    push: { keys: await ClusterKeys.open(keysFile), store, staleAfterMs: 15 * 60_000 },
    now: () => NOW,
    version: "test",
  });
  const get = async (path: string) => {
    const r = await app.request(path, { headers: { authorization: `Bearer ${tokens.viewer}` } });
    return { status: r.status, body: await r.json() };
  };
  /** Posts one of fluxgate's events for `name`, as notification-controller would, signed with the cluster's key. */
  const push = async (cluster: keyof typeof keys, name: string, at: string, metadata: Record<string, string>, kind = "Kustomization") => {
    const body = JSON.stringify({
      involvedObject: { kind, namespace: "flux-system", name },
      severity: "info",
      timestamp: at,
      message: "m",
      reason: "Heartbeat",
      metadata,
      reportingController: "fluxgate",
    });
    const r = await app.request(`/api/v1/clusters/${cluster}/events`, {
      method: "POST",
      body,
      headers: { "content-type": "application/json", "x-signature": signatureOf(keys[cluster], body) },
    });
    assert.equal(r.status, 202, await r.text());
  };
  return { get, push };
}

/** The shared control plane with fluxgate's CRDs and the flux-system namespace. */
async function clusterWithCrds(): Promise<CustomObjectsApi> {
  const cp = plane();
  const bases = new URL("../../../config/crd/bases/", import.meta.url).pathname;
  await installCrds(
    cp.kubeConfig,
    (await readdir(bases)).filter((f) => f.endsWith(".yaml")).map((f) => join(bases, f)),
  );
  await cp.kubeConfig
    .makeApiClient(CoreV1Api)
    .createNamespace({ body: { metadata: { name: "flux-system" } } })
    .catch((e: unknown) => {
      if (!(e instanceof ApiException && (e as ApiException<unknown>).code === 409)) throw e;
    });
  return cp.kubeConfig.makeApiClient(CustomObjectsApi);
}

test("each target comes from the newest source and says which; the fleet status says where each cluster's figures come from", async (t) => {
  const admin = await clusterWithCrds();
  const body = {
    apiVersion: "fluxgate.io/v1alpha1",
    kind: "ReconciliationWindow",
    metadata: { name: "apps-rw", namespace: "flux-system" },
    spec: berlinSpec(),
  };
  await admin.createNamespacedCustomObject({ ...GROUP, plural: "reconciliationwindows", body }).catch((e: unknown) => {
    if (!(e instanceof ApiException && (e as ApiException<unknown>).code === 409)) throw e;
  });
  // The status the controller reports: a revision waits for apps-rw.
  const status = {
    pending: [{ kind: "Kustomization", namespace: "flux-system", name: "apps-rw", pendingRevision: "main@sha1:2222222", waitingSince: "2026-11-23T09:00:00Z" }],
  };
  await admin.patchNamespacedCustomObjectStatus(
    { ...GROUP, plural: "reconciliationwindows", name: "apps-rw", body: { ...body, status }, fieldManager: "fluxgate", force: true },
    setHeaderOptions("Content-Type", PatchStrategy.ServerSideApply),
  );
  const sa = await serviceAccountKubeconfig(plane(), { namespace: "flux-system", name: "fluxgate-serve-sources", rules: READ_RULES });
  const { get, push } = await serve(t, sa);

  // edge-berlin pushed a picture of apps-rw from before the read: closed (its controller's word at 09:50), suspended.
  await push("edge-berlin", "apps-rw", "2026-11-23T09:50:00Z", {
    state: "closed",
    window: "apps-rw",
    nextChange: "",
    pendingRevision: "",
    pendingSince: "",
    since: "2026-11-20T16:00:00Z",
    suspended: "true",
    gated: "",
    violation: "",
  });
  // ... and of a HelmRelease no live window names: only the push knows it.
  await push(
    "edge-berlin",
    "podinfo",
    "2026-11-23T09:55:00Z",
    {
      state: "closed",
      window: "by-label",
      nextChange: "",
      pendingRevision: "",
      pendingSince: "",
      since: "2026-11-23T09:00:00Z",
      suspended: "false",
      gated: "",
      violation: "",
    },
    "HelmRelease",
  );

  const r = await get("/api/v1/clusters/edge-berlin/status");
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.live, true);
  assert.deepEqual(r.body.sources, {
    live: { context: sa.kubeConfig.getCurrentContext(), readAt: "2026-11-23T10:00:00.000Z", error: null },
    pushed: { lastHeard: "2026-11-23T10:00:00.000Z" },
    newest: "live",
  });
  const [helm, apps] = r.body.targets;
  // Read live at 10:00, newer than the 09:50 event: the window is open now (Mon 08:00 to Thu 17:00 Berlin), as the policy decides from the cluster's own spec.
  assert.deepEqual(apps, {
    kind: "Kustomization",
    namespace: "flux-system",
    name: "apps-rw",
    source: "live",
    asOf: "2026-11-23T10:00:00.000Z",
    other: { source: "pushed", asOf: "2026-11-23T09:50:00.000Z" },
    state: "open",
    windows: "apps-rw",
    nextChange: "2026-11-26T16:00:00Z",
    lastTransition: "2026-11-23T07:00:00Z",
    pendingRevision: "main@sha1:2222222",
    pendingSince: "2026-11-23T09:00:00Z",
    // The push at 09:50 is after the state began (07:00): what it observed still holds.
    suspended: true,
    gated: null,
    violation: null,
    holding: true,
    // Decided open, yet suspended when last seen after the opening: the view does not call it simply open.
    diverged: true,
    problem: null,
  });
  assert.deepEqual(
    [helm.kind, helm.name, helm.source, helm.other, helm.state, helm.holding, helm.diverged],
    ["HelmRelease", "podinfo", "pushed", null, "closed", false, true],
  );

  // An event stamped after the read (the cluster's clock a little ahead) is the newer information: it wins, and says the live one is older.
  await push("edge-berlin", "apps-rw", "2026-11-23T10:01:00Z", {
    state: "closed",
    window: "apps-rw",
    nextChange: "",
    pendingRevision: "",
    pendingSince: "",
    since: "2026-11-23T10:01:00Z",
    suspended: "true",
    gated: "",
    violation: "",
  });
  const newer = (await get("/api/v1/clusters/edge-berlin/status")).body.targets.find((x: { name: string }) => x.name === "apps-rw");
  assert.deepEqual(
    [newer.source, newer.asOf, newer.other, newer.state, newer.pendingRevision],
    ["pushed", "2026-11-23T10:01:00.000Z", { source: "live", asOf: "2026-11-23T10:00:00.000Z" }, "closed", null],
  );

  // A cluster without a context: pushed only. The fleet says where each cluster's figures come from.
  await push("edge-tokyo", "apps-rw", "2026-11-23T09:00:00Z", {
    state: "closed",
    window: "apps-rw",
    nextChange: "",
    pendingRevision: "main@sha1:3333333",
    pendingSince: "2026-11-23T08:00:00Z",
    since: "",
    suspended: "true",
    gated: "",
    violation: "",
  });
  const tokyo = await get("/api/v1/clusters/edge-tokyo/status");
  assert.equal(tokyo.body.live, false);
  assert.deepEqual(tokyo.body.sources, { live: null, pushed: { lastHeard: "2026-11-23T10:00:00.000Z" }, newest: "pushed" });
  assert.deepEqual(
    tokyo.body.targets.map((x: { source: string }) => x.source),
    ["pushed"],
  );
  const fleet = await get("/api/v1/fleet/status");
  assert.deepEqual(
    fleet.body.clusters.map((c: { cluster: string; source: string | null; waiting: number; oldestWaitingSince: string | null; diverged: number }) => [
      c.cluster,
      c.source,
      c.waiting,
      c.oldestWaitingSince,
      c.diverged,
    ]),
    [
      // live read now: apps-rw comes from the 10:01 push (newer), podinfo from its push (closed, not suspended).
      ["edge-berlin", "live", 0, null, 1],
      ["edge-newyork", null, 0, null, 0],
      ["edge-tokyo", "pushed", 1, "2026-11-23T08:00:00Z", 0],
    ],
  );
});

test("with pushed status, a live read the cluster refuses still answers from what the cluster pushed, saying why", async (t) => {
  await clusterWithCrds();
  const sa = await serviceAccountKubeconfig(plane(), { namespace: "flux-system", name: "no-rights-sources" });
  const { get, push } = await serve(t, sa);
  await push("edge-berlin", "apps-rw", "2026-11-23T09:50:00Z", {
    state: "closed",
    window: "apps-rw",
    nextChange: "",
    pendingRevision: "",
    pendingSince: "",
    since: "",
    suspended: "true",
    gated: "",
    violation: "",
  });
  const r = await get("/api/v1/clusters/edge-berlin/status");
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.live, false);
  assert.match(
    r.body.message,
    /^the live read failed; showing what the cluster pushed: the Kubernetes API of cluster edge-berlin \(context .*\) refused to read windows from it \(403\)/,
  );
  assert.match(r.body.sources.live.error, /refused to read windows from it \(403\)/);
  assert.equal(r.body.sources.live.readAt, null);
  assert.equal(r.body.sources.newest, "pushed");
  assert.deepEqual(
    r.body.targets.map((x: { name: string; source: string }) => [x.name, x.source]),
    [["apps-rw", "pushed"]],
  );
  // The fleet status does not wait for it either: edge-berlin's figures are what it pushed.
  const fleet = await get("/api/v1/fleet/status");
  assert.equal(fleet.body.clusters[0].source, "pushed");
});
