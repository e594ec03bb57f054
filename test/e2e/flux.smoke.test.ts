// End-to-end smoke: real Flux controllers apply commits from the local Git server, and spec.suspend holds the next one.
import { CoreV1Api, CustomObjectsApi, KubernetesObjectApi, PatchStrategy } from "@kubernetes/client-node";
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { test } from "node:test";
import { createRepository, freshNamespace, pushCommit, sharedControlPlane, waitFor } from "../harness/index.ts";

/** Short intervals keep the test quick; Flux reacts to new source artifacts without waiting for the interval anyway. */
const interval = "2s";

const plane = sharedControlPlane({ flux: true });

function configMap(greeting: string): string {
  return ["apiVersion: v1", "kind: ConfigMap", "metadata:", "  name: greeting", "data:", `  greeting: ${greeting}`, ""].join("\n");
}

interface FluxStatus {
  status?: { artifact?: { revision?: string }; lastAppliedRevision?: string };
}

test("a GitRepository + Kustomization apply commits from the local Git server until spec.suspend holds them", async () => {
  const cp = plane();
  const namespace = await freshNamespace(cp, "e2e");
  const repoUrl = await createRepository(cp, `fleet-${namespace}`);
  const first = await pushCommit(repoUrl, { "deploy/configmap.yaml": configMap("hello-1") }, "first");

  const objects = cp.kubeConfig.makeApiClient(KubernetesObjectApi);
  const apply = (body: object, manager: string): Promise<unknown> => objects.patch(body, undefined, undefined, manager, true, PatchStrategy.ServerSideApply);
  await apply(
    {
      apiVersion: "source.toolkit.fluxcd.io/v1",
      kind: "GitRepository",
      metadata: { name: "fleet", namespace },
      spec: { url: repoUrl, interval, ref: { branch: "main" } },
    },
    "e2e",
  );
  await apply(
    {
      apiVersion: "kustomize.toolkit.fluxcd.io/v1",
      kind: "Kustomization",
      metadata: { name: "apps", namespace },
      spec: {
        interval,
        retryInterval: interval,
        path: "./deploy",
        prune: true,
        targetNamespace: namespace,
        sourceRef: { kind: "GitRepository", name: "fleet" },
      },
    },
    "e2e",
  );

  const core = cp.kubeConfig.makeApiClient(CoreV1Api);
  const greeting = async (): Promise<string | undefined> => {
    try {
      return (await core.readNamespacedConfigMap({ namespace, name: "greeting" })).data?.["greeting"];
    } catch {
      return undefined;
    }
  };
  const greetingIs = (value: string) => async (): Promise<string | undefined> => ((await greeting()) === value ? value : undefined);
  const custom = cp.kubeConfig.makeApiClient(CustomObjectsApi);
  const status = async (group: string, plural: string, name: string): Promise<FluxStatus> =>
    (await custom.getNamespacedCustomObject({ group, version: "v1", plural, namespace, name })) as FluxStatus;
  const appliedRevision = async (): Promise<string | undefined> =>
    (await status("kustomize.toolkit.fluxcd.io", "kustomizations", "apps")).status?.lastAppliedRevision;

  assert.equal(await waitFor("the first commit's ConfigMap", greetingIs("hello-1"), { timeoutMs: 90_000 }), "hello-1");
  assert.equal(await appliedRevision(), `main@sha1:${first}`);

  const second = await pushCommit(repoUrl, { "deploy/configmap.yaml": configMap("hello-2") }, "second");
  assert.equal(await waitFor("the second commit's ConfigMap", greetingIs("hello-2"), { timeoutMs: 60_000 }), "hello-2");
  await waitFor("the second revision to be recorded as applied", async () => ((await appliedRevision()) === `main@sha1:${second}` ? true : undefined));

  // Suspend the way fluxgate does: server-side apply of spec.suspend alone, under its own field manager.
  await apply(
    { apiVersion: "kustomize.toolkit.fluxcd.io/v1", kind: "Kustomization", metadata: { name: "apps", namespace }, spec: { suspend: true } },
    "fluxgate",
  );
  const third = await pushCommit(repoUrl, { "deploy/configmap.yaml": configMap("hello-3") }, "third");
  // The source still moves on: source-controller fetches the third commit...
  await waitFor("source-controller to fetch the third commit", async () =>
    (await status("source.toolkit.fluxcd.io", "gitrepositories", "fleet")).status?.artifact?.revision === `main@sha1:${third}` ? true : undefined,
  );
  // ...but the suspended Kustomization does not apply it, for several of its intervals.
  await sleep(8_000);
  assert.equal(await greeting(), "hello-2");
  assert.equal(await appliedRevision(), `main@sha1:${second}`);

  // Resuming applies the held commit, which shows the hold came from spec.suspend and not from a broken pipeline.
  await apply(
    { apiVersion: "kustomize.toolkit.fluxcd.io/v1", kind: "Kustomization", metadata: { name: "apps", namespace }, spec: { suspend: false } },
    "fluxgate",
  );
  assert.equal(await waitFor("the held commit after resuming", greetingIs("hello-3"), { timeoutMs: 60_000 }), "hello-3");
});
