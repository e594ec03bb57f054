// Live status and direct overrides against a real kube-apiserver with fluxgate's CRDs, through a least-privilege ServiceAccount.
/* eslint-disable @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return -- answers are untyped JSON, checked field by field */

import assert from "node:assert/strict";
import { mkdir, readdir } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { ApiException, CoreV1Api, CustomObjectsApi, PatchStrategy, setHeaderOptions } from "@kubernetes/client-node";
import { createApp } from "../../../src/server/app.ts";
import { KubeLive } from "../../../src/server/status/live.ts";
import { Repository } from "../../../src/server/git/repository.ts";
import { TokenStore } from "../../../src/server/http/tokens.ts";
import { installCrds, serviceAccountKubeconfig, sharedControlPlane, type ServiceAccountAccess } from "../../harness/index.ts";
import { berlinSpec, NOW, tempDir, writeFleet, writeTokens } from "../../support/server.ts";

const plane = sharedControlPlane();
const GROUP = { group: "fluxgate.io", version: "v1alpha1", namespace: "flux-system" };

/** What the Config Service needs in a cluster: read windows and overrides, create and cancel overrides. */
const SERVE_RULES = [
  { apiGroups: ["fluxgate.io"], resources: ["reconciliationwindows", "windowoverrides"], verbs: ["get", "list"] },
  { apiGroups: ["fluxgate.io"], resources: ["windowoverrides"], verbs: ["create", "patch"] },
];

/** The example fleet served in-process, with a live connection to edge-berlin as `sa`. */
async function serveWith(t: { after(fn: () => Promise<void>): void }, sa: ServiceAccountAccess) {
  const { dir: root, cleanup } = await tempDir("live");
  t.after(cleanup);
  const repo = join(root, "fleet");
  await mkdir(repo);
  await writeFleet(repo);
  const tokens = await writeTokens(root);
  const repository = await Repository.open(repo, { now: () => NOW });
  const app = createApp({
    repository,
    tokens: await TokenStore.open(tokens.file),
    anonymousRead: false,
    live: new KubeLive(new Map([["edge-berlin", sa.kubeConfig.getCurrentContext()]]), sa.kubeconfigPath),
    now: () => NOW,
    version: "test",
  });
  return { app, tokens, repository };
}

/** fluxgate's CRDs and the flux-system namespace in the shared control plane (either may be there from another test). */
async function prepareCluster(cp: ReturnType<typeof plane>): Promise<void> {
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
}

test("GET /status reads the windows' status the controller writes; a direct override is created in the cluster", async (t) => {
  const cp = plane();
  await prepareCluster(cp);
  const admin = cp.kubeConfig.makeApiClient(CustomObjectsApi);
  // The window as Flux applied it from Git, and the status the controller reports (written here as the controller would).
  await admin.createNamespacedCustomObject({
    ...GROUP,
    plural: "reconciliationwindows",
    body: { apiVersion: "fluxgate.io/v1alpha1", kind: "ReconciliationWindow", metadata: { name: "apps-rw", namespace: "flux-system" }, spec: berlinSpec() },
  });
  const status = {
    state: "Closed",
    reason: "Closed: no allow schedule is active.",
    targets: { matched: 1, open: 0, closed: 1, pending: 1, conflicts: 0 },
    pending: [
      {
        kind: "Kustomization",
        namespace: "flux-system",
        name: "apps-rw",
        appliedRevision: "main@sha1:1111111",
        pendingRevision: "main@sha1:2222222",
        waitingSince: "2026-11-23T09:00:00Z",
      },
    ],
  };
  await admin.patchNamespacedCustomObjectStatus(
    {
      ...GROUP,
      plural: "reconciliationwindows",
      name: "apps-rw",
      body: { apiVersion: "fluxgate.io/v1alpha1", kind: "ReconciliationWindow", metadata: { name: "apps-rw", namespace: "flux-system" }, status },
      fieldManager: "fluxgate",
      force: true,
    },
    setHeaderOptions("Content-Type", PatchStrategy.ServerSideApply),
  );

  const sa = await serviceAccountKubeconfig(cp, { namespace: "flux-system", name: "fluxgate-serve", rules: SERVE_RULES });
  const { app, tokens, repository } = await serveWith(t, sa);
  const call = async (method: string, path: string, token: string, body?: unknown) => {
    const response = await app.request(path, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: await response.json() };
  };

  const live = await call("GET", "/api/v1/clusters/edge-berlin/status", tokens.viewer);
  assert.equal(live.status, 200, JSON.stringify(live.body));
  assert.equal(live.body.live, true);
  assert.equal(live.body.windows[0].status.state, "Closed");
  assert.deepEqual(live.body.pending, [{ window: "apps-rw", ...status.pending[0] }]);
  // The API server filled in the CRD's defaults; the spec still equals Git's. nightly is not applied yet.
  assert.deepEqual(live.body.drift, [{ window: "nightly", kind: "not-applied" }]);
  const other = await call("GET", "/api/v1/clusters/edge-tokyo/status", tokens.viewer);
  assert.equal(other.body.live, false);

  const direct = await call("POST", "/api/v1/clusters/edge-berlin/overrides", tokens.breakglass, {
    window: "apps-rw",
    action: "Open",
    duration: "2h",
    reason: "Hotfix 4711",
    delivery: "direct",
  });
  assert.equal(direct.status, 201, JSON.stringify(direct.body));
  assert.match(direct.body.cluster.uid, /^[0-9a-f-]{36}$/);
  const object = await admin.getNamespacedCustomObject({ ...GROUP, plural: "windowoverrides", name: direct.body.override.metadata.name });
  assert.deepEqual(object.spec, { windowRef: { name: "apps-rw" }, action: "Open", until: "2026-11-23T12:00:00Z", reason: "Hotfix 4711" });
  const after = await call("GET", "/api/v1/clusters/edge-berlin/status", tokens.viewer);
  assert.deepEqual(
    after.body.overrides.map((o: any) => [o.name, o.action, o.window]),
    [[direct.body.override.metadata.name, "Open", "apps-rw"]],
  );

  // The same name again: the Git side refuses it before the cluster is touched, and nothing is committed.
  const head = await repository.head();
  const again = await call("POST", "/api/v1/clusters/edge-berlin/overrides", tokens.breakglass, {
    window: "apps-rw",
    action: "Open",
    duration: "2h",
    reason: "again",
    delivery: "direct",
    name: direct.body.override.metadata.name,
  });
  assert.equal(again.status, 409);
  assert.equal(await repository.head(), head, "no commit");
  assert.equal(await repository.git.text(["status", "--porcelain", "--untracked-files=all"]), "", "no changed file");
});

test("a fleet freeze delivered directly is created in the cluster the service has a context for, as committed; the other clusters get it from Git", async (t) => {
  const cp = plane();
  await prepareCluster(cp);
  const admin = cp.kubeConfig.makeApiClient(CustomObjectsApi);
  const sa = await serviceAccountKubeconfig(cp, { namespace: "flux-system", name: "fluxgate-serve-fleet", rules: SERVE_RULES });
  const { app, tokens, repository } = await serveWith(t, sa);
  // The example fleet has no labels: "!ring" selects every cluster.
  const body = { selector: "!ring", duration: "2h", reason: "incident 4711", name: "all-stop", delivery: "direct" };
  const response = await app.request("/api/v1/fleet/overrides", {
    method: "POST",
    headers: { authorization: `Bearer ${tokens.breakglass}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const answer = await response.json();
  assert.equal(response.status, 201, JSON.stringify(answer));
  assert.equal(await repository.head(), answer.commit, "one commit");
  const direct = answer.overrides.filter((o: any) => o.delivery === "direct");
  assert.deepEqual(
    direct.map((o: any) => `${o.cluster}/${o.name}`),
    ["edge-berlin/all-stop-apps-rw", "edge-berlin/all-stop-nightly"],
  );
  const others = answer.overrides.filter((o: any) => o.cluster !== "edge-berlin");
  assert.ok(others.length > 0 && others.every((o: any) => o.delivery === "git" && o.error === undefined), JSON.stringify(others));
  for (const o of direct) {
    const object = await admin.getNamespacedCustomObject({ ...GROUP, plural: "windowoverrides", name: o.name });
    const window = o.name.slice("all-stop-".length);
    assert.deepEqual(object.spec, { windowRef: { name: window }, action: "Freeze", until: "2026-11-23T12:00:00Z", reason: "incident 4711" });
    assert.equal(object.metadata.labels["fluxgate.io/fleet-override"], "all-stop");
    // What the cluster holds is what Git holds: Flux takes the object over when it applies the commit.
    const files = (await repository.git.text(["ls-tree", "-r", "--name-only", answer.commit, "clusters/edge-berlin/"]))
      .split("\n")
      .filter((f) => f.includes(o.name));
    assert.equal(files.length, 1, `one file of ${o.name} in the commit: ${files.join(", ")}`);
    const committed = await repository.git.text(["show", `${answer.commit}:${files[0]}`]);
    assert.match(committed, new RegExp(`name: ${o.name}\\b`));
    assert.match(committed, /reason: incident 4711/);
  }
  const status = await app.request("/api/v1/clusters/edge-berlin/status", { headers: { authorization: `Bearer ${tokens.viewer}` } });
  const live = await status.json();
  assert.deepEqual(
    live.overrides
      .map((o: any) => o.name)
      .filter((n: string) => n.startsWith("all-stop-"))
      .sort(),
    ["all-stop-apps-rw", "all-stop-nightly"],
  );

  // Ended everywhere, directly too: cancelled in the cluster now, not when (or if) Flux prunes what it never took over.
  const end = await app.request("/api/v1/fleet/overrides/all-stop?reason=incident%20over&delivery=direct", {
    method: "DELETE",
    headers: { authorization: `Bearer ${tokens.breakglass}` },
  });
  const ended = await end.json();
  assert.equal(end.status, 200, JSON.stringify(ended));
  assert.equal(await repository.head(), ended.commit, "one commit ends it");
  assert.deepEqual(
    ended.direct.filter((d: any) => d.cluster === "edge-berlin").map((d: any) => `${d.name}:${d.result}`),
    ["all-stop-apps-rw:cancelled", "all-stop-nightly:cancelled"],
  );
  assert.ok(ended.direct.filter((d: any) => d.cluster !== "edge-berlin").every((d: any) => d.result === "no-context"));
  for (const o of direct) {
    const object = await admin.getNamespacedCustomObject({ ...GROUP, plural: "windowoverrides", name: o.name });
    assert.equal(object.metadata.annotations["fluxgate.io/cancelled-at"], "2026-11-23T10:00:00Z");
    assert.equal(object.metadata.annotations["fluxgate.io/cancelled-by"], "bree oncall");
  }
});

test("a cluster that refuses the service's identity is a clear 502, not a crash", async (t) => {
  const cp = plane();
  const sa = await serviceAccountKubeconfig(cp, { namespace: "flux-system", name: "no-rights" });
  const { app, tokens } = await serveWith(t, sa);
  const response = await app.request("/api/v1/clusters/edge-berlin/status", { headers: { authorization: `Bearer ${tokens.viewer}` } });
  assert.equal(response.status, 502);
  assert.match((await response.json()).error.message, /the Kubernetes API of cluster edge-berlin \(context .*\) refused to read windows from it \(403\)/);
});
