// Gate mode for a HelmRelease whose chart comes from the gated source, on the real Flux controllers.

import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { test } from "node:test";
import { startTestController } from "../support/controller.ts";
import { createRepository, freshNamespace, installFluxgate, pushCommit, sharedControlPlane, waitFor } from "../harness/index.ts";
import { INTERVAL } from "./scenario.ts";
import { CoreV1Api, CustomObjectsApi } from "@kubernetes/client-node";

const plane = sharedControlPlane({ flux: true });

function chart(version: string): Record<string, string> {
  return {
    "charts/web/Chart.yaml": "apiVersion: v2\nname: web\nversion: 0.1.0\n",
    "charts/web/templates/configmap.yaml": `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web-config\ndata:\n  version: "${version}"\n`,
  };
}

test("Gate mode holds a HelmRelease's chart revision while closed and lets it through with an Open override", async () => {
  const cp = plane();
  const namespace = await freshNamespace(cp, "e2e");
  const identity = await installFluxgate(cp);
  const custom = cp.kubeConfig.makeApiClient(CustomObjectsApi);
  const core = cp.kubeConfig.makeApiClient(CoreV1Api);
  const repoUrl = await createRepository(cp, `helm-${namespace}`);
  await pushCommit(repoUrl, chart("v1"), "chart v1");
  const create = async (group: string, version: string, plural: string, body: object): Promise<void> => {
    await custom.createNamespacedCustomObject({ group, version, plural, namespace, body });
  };
  await create("source.toolkit.fluxcd.io", "v1", "gitrepositories", {
    apiVersion: "source.toolkit.fluxcd.io/v1",
    kind: "GitRepository",
    metadata: { name: "gitops" },
    spec: { url: repoUrl, interval: INTERVAL, ref: { branch: "main" } },
  });
  await create("fluxgate.io", "v1alpha1", "reconciliationwindows", {
    apiVersion: "fluxgate.io/v1alpha1",
    kind: "ReconciliationWindow",
    metadata: { name: "web" },
    spec: {
      schedules: [{ start: "0 0 1 1 *", duration: "1m" }],
      mode: "Gate",
      gate: { upstream: { kind: "GitRepository", name: "gitops" }, gatedName: "gitops-gated" },
      targets: [{ kind: "HelmRelease", name: "web" }],
    },
  });
  const controller = await startTestController({ kubeConfig: identity.kubeConfig, namespaces: [namespace] });
  try {
    await create("helm.toolkit.fluxcd.io", "v2", "helmreleases", {
      apiVersion: "helm.toolkit.fluxcd.io/v2",
      kind: "HelmRelease",
      metadata: { name: "web" },
      spec: {
        interval: INTERVAL,
        chart: {
          spec: { chart: "./charts/web", reconcileStrategy: "Revision", sourceRef: { kind: "GitRepository", name: "gitops-gated" }, interval: INTERVAL },
        },
        install: { disableWait: true },
        upgrade: { disableWait: true },
      },
    });
    const version = async (): Promise<string | undefined> => {
      try {
        return (await core.readNamespacedConfigMap({ namespace, name: "web-config" })).data?.["version"];
      } catch {
        return undefined;
      }
    };
    await waitFor("the chart's first release", async () => ((await version()) === "v1" ? true : undefined), { timeoutMs: 120_000 });

    // Upstream moves; the gated chart source does not, and the release stays at v1.
    const second = await pushCommit(repoUrl, chart("v2"), "chart v2");
    await waitFor(
      "the window to report the chart revision waiting",
      async () => {
        const w = (await custom.getNamespacedCustomObject({
          group: "fluxgate.io",
          version: "v1alpha1",
          plural: "reconciliationwindows",
          namespace,
          name: "web",
        })) as {
          status?: { pending?: { name: string; pendingRevision: string }[] };
        };
        return w.status?.pending?.find((p) => p.name === "web" && p.pendingRevision === `main@sha1:${second}`);
      },
      { timeoutMs: 60_000 },
    );
    await sleep(6_000);
    assert.equal(await version(), "v1", "the release holds the pinned chart revision");

    // Break glass: the pin follows upstream and helm-controller upgrades the release.
    await create("fluxgate.io", "v1alpha1", "windowoverrides", {
      apiVersion: "fluxgate.io/v1alpha1",
      kind: "WindowOverride",
      metadata: { name: "ship-v2" },
      spec: { windowRef: { name: "web" }, action: "Open", until: new Date(Date.now() + 3_600_000).toISOString().replace(/\.\d+Z$/, "Z"), reason: "release v2" },
    });
    await waitFor("the release to be upgraded to v2", async () => ((await version()) === "v2" ? true : undefined), { timeoutMs: 90_000 });
  } finally {
    await controller.stop();
  }
});
