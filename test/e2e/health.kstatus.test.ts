// Flux judges windows and overrides by their status: a Kustomization with `wait: true` on the real kustomize-controller is Ready when it applies a valid window
// and override, and Ready=False naming an override the controller found invalid; `kubectl wait --for=condition=...` reads the same conditions.

import assert from "node:assert/strict";
import { test } from "node:test";
import { KubernetesObjectApi, PatchStrategy, Watch, type KubeConfig, type KubernetesObject } from "@kubernetes/client-node";
import { createRepository, freshNamespace, installFluxgate, pushCommit, sharedControlPlane, waitFor } from "../harness/index.ts";
import { startTestController } from "../support/controller.ts";
import { kstatus, kubectlWaitMet } from "../support/kstatus.ts";

const plane = sharedControlPlane({ flux: true });
const DAY = 86_400_000;

interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
}

interface Health extends KubernetesObject {
  status?: { observedGeneration?: number; conditions?: Condition[]; phase?: string; message?: string };
}

function files(namespace: string, validUntilMs = DAY): Record<string, string> {
  const until = (ms: number): string => new Date(Date.now() + ms).toISOString().replace(/\.\d+Z$/, "Z");
  const window = `apiVersion: fluxgate.io/v1alpha1
kind: ReconciliationWindow
metadata:
  name: maintenance
  namespace: ${namespace}
spec:
  schedules:
    - start: "0 8 * * MON"
      end: "0 17 * * THU"
  targets:
    - kind: Kustomization
      labelSelector:
        matchLabels:
          fluxgate.io/type: window
`;
  const override = (name: string, ms: number): string => `apiVersion: fluxgate.io/v1alpha1
kind: WindowOverride
metadata:
  name: ${name}
  namespace: ${namespace}
spec:
  windowRef:
    name: maintenance
  action: Freeze
  until: "${until(ms)}"
  reason: change board
`;
  return {
    "valid/window.yaml": window,
    "valid/override.yaml": override("board-freeze", validUntilMs),
    // Admitted by the API server (CEL cannot see the clock); the controller finds `until` more than 7 days ahead.
    "invalid/override.yaml": override("too-long", 30 * DAY),
  };
}

function ready(obj: Health): Condition | undefined {
  return obj.status?.conditions?.find((c) => c.type === "Ready");
}

async function kustomization(objects: KubernetesObjectApi, namespace: string, name: string): Promise<Health> {
  return await objects.read<Health>({ apiVersion: "kustomize.toolkit.fluxcd.io/v1", kind: "Kustomization", metadata: { name, namespace } });
}

/**
 * `kubectl wait --for=condition=NAME[=STATUS]` against the API server, done as kubectl does it: a
 * GET, then a watch of that one object from its resourceVersion, each version judged by the same
 * rule (conditions of that type; a generation not observed keeps waiting).
 */
async function kubectlWait(kc: KubeConfig, path: string, name: string, condition: string, status: string, timeoutMs: number): Promise<Health> {
  const objects = kc.makeApiClient(KubernetesObjectApi);
  const [group, version, namespace, plural] = path.split("/") as [string, string, string, string];
  const list = await objects.list<Health>(
    `${group}/${version}`,
    plural === "windowoverrides" ? "WindowOverride" : "ReconciliationWindow",
    namespace,
    undefined,
    undefined,
    undefined,
    `metadata.name=${name}`,
  );
  const first = list.items[0];
  if (first !== undefined && kubectlWaitMet(first, condition, status)) return first;
  return await new Promise<Health>((resolve, reject) => {
    let request: AbortController | undefined;
    const timer = setTimeout(() => {
      request?.abort();
      reject(new Error(`timed out waiting for the condition ${condition}=${status} on ${plural}/${name}`));
    }, timeoutMs);
    void new Watch(kc)
      .watch(
        `/apis/${group}/${version}/namespaces/${namespace}/${plural}`,
        { fieldSelector: `metadata.name=${name}`, resourceVersion: list.metadata?.resourceVersion },
        (_type: string, obj: Health) => {
          if (!kubectlWaitMet(obj, condition, status)) return;
          clearTimeout(timer);
          request?.abort();
          resolve(obj);
        },
        (error: unknown) => {
          if (error !== null && error !== undefined && (error as { name?: string }).name !== "AbortError")
            reject(error instanceof Error ? error : new Error(JSON.stringify(error)));
        },
      )
      .then((r) => (request = r), reject);
  });
}

test("kustomize-controller's wait: Ready for a valid window and override, Ready=False at once naming an override invalid for the controller (also after an edit); kubectl wait reads the conditions", async () => {
  const cp = plane();
  const namespace = await freshNamespace(cp, "e2e");
  const repoUrl = await createRepository(cp, `health-${namespace}`);
  await pushCommit(repoUrl, files(namespace), "A window, an override, and an override too long");
  const identity = await installFluxgate(cp);
  const controller = await startTestController({ kubeConfig: identity.kubeConfig, namespaces: [namespace], targetKinds: ["Kustomization"] });
  const objects = cp.kubeConfig.makeApiClient(KubernetesObjectApi);
  const apply = async (body: KubernetesObject & { spec: Record<string, unknown> }): Promise<void> => {
    await objects.patch(body, undefined, undefined, "e2e", true, PatchStrategy.ServerSideApply);
  };
  try {
    await apply({
      apiVersion: "source.toolkit.fluxcd.io/v1",
      kind: "GitRepository",
      metadata: { name: "gitops", namespace },
      spec: { url: repoUrl, interval: "5s", ref: { branch: "main" } },
    });
    // A short interval: kstatus takes an object without any status yet for Current, so a health check that
    // runs before the controller's first status passes once; the next reconcile judges the status.
    const kustomizationSpec = (path: string): Record<string, unknown> => ({
      interval: "10s",
      retryInterval: "5s",
      timeout: "40s",
      wait: true,
      prune: true,
      path,
      sourceRef: { kind: "GitRepository", name: "gitops" },
    });
    await apply({
      apiVersion: "kustomize.toolkit.fluxcd.io/v1",
      kind: "Kustomization",
      metadata: { name: "windows", namespace },
      spec: kustomizationSpec("./valid"),
    });
    await apply({
      apiVersion: "kustomize.toolkit.fluxcd.io/v1",
      kind: "Kustomization",
      metadata: { name: "overrides", namespace },
      spec: { ...kustomizationSpec("./invalid"), dependsOn: [{ name: "windows" }] },
    });

    const good = await waitFor(
      "Kustomization windows Ready",
      async () => {
        const k = await kustomization(objects, namespace, "windows");
        return ready(k)?.status === "True" ? k : undefined;
      },
      { timeoutMs: 120_000 },
    );
    assert.match(ready(good)?.message ?? "", /^Applied revision: main@sha1:/);

    const bad = await waitFor(
      "Kustomization overrides Ready=False",
      async () => {
        const k = await kustomization(objects, namespace, "overrides");
        const c = ready(k);
        return c?.status === "False" && c.reason === "HealthCheckFailed" ? k : undefined;
      },
      { timeoutMs: 120_000 },
    );
    const message = ready(bad)?.message ?? "";
    // Failed at once (Stalled), not a timeout after 40 s: kstatus read the override's status as Failed.
    assert.match(message, new RegExp(`WindowOverride/${namespace}/too-long status: 'Failed'`), message);
    assert.doesNotMatch(message, /timeout/, message);

    // kubectl wait --for=condition=Ready on the valid objects; --for=condition=Stalled on the invalid one, whose Ready is False.
    const window = await kubectlWait(cp.kubeConfig, `fluxgate.io/v1alpha1/${namespace}/reconciliationwindows`, "maintenance", "Ready", "True", 10_000);
    const freeze = await kubectlWait(cp.kubeConfig, `fluxgate.io/v1alpha1/${namespace}/windowoverrides`, "board-freeze", "Ready", "True", 10_000);
    const tooLong = await kubectlWait(cp.kubeConfig, `fluxgate.io/v1alpha1/${namespace}/windowoverrides`, "too-long", "Stalled", "True", 10_000);
    assert.deepEqual([kstatus(window).status, kstatus(freeze).status, kstatus(tooLong).status], ["Current", "Current", "Failed"]);
    assert.equal(kubectlWaitMet(tooLong, "Ready"), false);
    assert.deepEqual(
      tooLong.status?.conditions?.map((c) => [c.type, c.status, c.reason]),
      [
        ["Ready", "False", "InvalidSpec"],
        ["Stalled", "True", "InvalidSpec"],
      ],
    );
    assert.match(tooLong.status?.conditions?.[1]?.message ?? "", /^spec\.until: is more than 7 days after the override was asked for/);
    assert.equal(tooLong.status?.observedGeneration, tooLong.metadata?.generation);
    assert.equal(freeze.status?.phase, "Active");
    await assert.rejects(
      kubectlWait(cp.kubeConfig, `fluxgate.io/v1alpha1/${namespace}/windowoverrides`, "too-long", "Ready", "True", 2_000),
      /timed out waiting for the condition Ready=True/,
    );

    // An edit in Git makes the valid override invalid (generation 2): the health check fails at once
    // as well — the Stalled status observes the new generation, so kstatus does not wait for it.
    await pushCommit(repoUrl, files(namespace, 30 * DAY), "The freeze until next month");
    const edited = await waitFor(
      "Kustomization windows Ready=False",
      async () => {
        const k = await kustomization(objects, namespace, "windows");
        const c = ready(k);
        return c?.status === "False" && c.reason === "HealthCheckFailed" ? k : undefined;
      },
      { timeoutMs: 120_000 },
    );
    const editedMessage = ready(edited)?.message ?? "";
    assert.match(editedMessage, new RegExp(`WindowOverride/${namespace}/board-freeze status: 'Failed'`), editedMessage);
    assert.doesNotMatch(editedMessage, /timeout/, editedMessage);
    const stalled = await kubectlWait(cp.kubeConfig, `fluxgate.io/v1alpha1/${namespace}/windowoverrides`, "board-freeze", "Stalled", "True", 10_000);
    assert.deepEqual([stalled.metadata?.generation, stalled.status?.observedGeneration], [2, 2]);
  } finally {
    await controller.stop();
  }
});
