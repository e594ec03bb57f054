// The local fleet: clusters sharing one etcd under their own prefixes see only their own objects, pull from one Git server, and stop leaving nothing.

import { CoreV1Api, CustomObjectsApi } from "@kubernetes/client-node";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { test } from "node:test";
import { startFleetPlane } from "../../../src/devenv/fleet-plane.ts";
import { createRepository, pushCommit } from "../../../src/devenv/git.ts";
import { waitFor } from "../../harness/index.ts";

test(
  "two clusters on one etcd keep apart; both fetch from the one Git server; stop ends every process and removes the directory",
  { timeout: 180_000 },
  async () => {
    const fleet = await startFleetPlane({ clusters: ["edge-a", "edge-b"], log: () => undefined });
    const procs = await fleet.processes();
    try {
      assert.deepEqual(procs.map((p) => p.name).sort(), [
        "edge-a/kube-apiserver",
        "edge-a/kustomize-controller",
        "edge-a/notification-controller",
        "edge-a/source-controller",
        "edge-b/kube-apiserver",
        "edge-b/kustomize-controller",
        "edge-b/notification-controller",
        "edge-b/source-controller",
        "etcd",
        "git-server",
      ]);
      assert.ok(
        procs.every((p) => p.rss > 0),
        "each process has its resident memory",
      );
      const a = fleet.clusters.get("edge-a");
      const b = fleet.clusters.get("edge-b");
      assert.ok(a !== undefined && b !== undefined);
      assert.notEqual(a.server, b.server);
      assert.equal(a.gitUrl, fleet.git.gitUrl);
      assert.equal(b.gitUrl, fleet.git.gitUrl);

      // A ConfigMap of edge-a is not in edge-b, though both keep their objects in one etcd.
      await a.kubeConfig
        .makeApiClient(CoreV1Api)
        .createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "only-in-a" }, data: { x: "1" } } });
      const inB = await b.kubeConfig
        .makeApiClient(CoreV1Api)
        .readNamespacedConfigMap({ namespace: "default", name: "only-in-a" })
        .then(
          () => true,
          () => false,
        );
      assert.equal(inB, false, "edge-b sees edge-a's ConfigMap");

      // One repository on the shared Git server: each cluster's source-controller fetches it.
      const url = await createRepository(fleet.git, "fleet");
      const sha = await pushCommit(url, { "README.md": "fleet\n" }, "first");
      for (const cp of [a, b]) {
        const custom = cp.kubeConfig.makeApiClient(CustomObjectsApi);
        await custom.createNamespacedCustomObject({
          group: "source.toolkit.fluxcd.io",
          version: "v1",
          plural: "gitrepositories",
          namespace: "flux-system",
          body: {
            apiVersion: "source.toolkit.fluxcd.io/v1",
            kind: "GitRepository",
            metadata: { name: "fleet" },
            spec: { url, interval: "2s", ref: { branch: "main" } },
          },
        });
        await waitFor(
          "the GitRepository's artifact",
          async () => {
            const o = (await custom.getNamespacedCustomObject({
              group: "source.toolkit.fluxcd.io",
              version: "v1",
              plural: "gitrepositories",
              namespace: "flux-system",
              name: "fleet",
            })) as { status?: { artifact?: { revision?: string } } };
            return o.status?.artifact?.revision === `main@sha1:${sha}` ? true : undefined;
          },
          { timeoutMs: 60_000 },
        );
      }
    } finally {
      await fleet.stop();
    }
    assert.equal(existsSync(fleet.dir), false, `${fleet.dir} was removed`);
    // Gone, or a zombie waiting to be reaped: nothing runs any more.
    const running = (pid: number): boolean => {
      try {
        return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
      } catch {
        return false;
      }
    };
    assert.deepEqual(
      procs.filter((p) => running(p.pid)).map((p) => p.name),
      [],
    );
  },
);
