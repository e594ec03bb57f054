// --no-cross-namespace-refs: a window acts only on targets in its own namespace, and says which entries it refused.

import assert from "node:assert/strict";
import { test } from "node:test";
import type { Controller } from "../../../src/controller/controller.ts";
import { explain } from "../../../src/cli/explain.ts";
import { startTestController } from "../../support/controller.ts";
import type { FluxObject } from "../../../src/kube/flux.ts";
import { freshNamespace, sharedControlPlane, waitFor } from "../../harness/index.ts";
import { createKustomization, createWindow, eventsOf, getWindow, KUSTOMIZATIONS, setup, waitForSuspend, YEARLY, type Setup } from "./helpers.ts";

const plane = sharedControlPlane();

async function start(s: Setup, namespaces: string[], noCrossNamespaceRefs: boolean): Promise<Controller> {
  return await startTestController({ kubeConfig: s.controllerKubeConfig, namespaces, targetKinds: ["Kustomization"], noCrossNamespaceRefs });
}

async function remote(s: Setup, namespace: string, name: string): Promise<FluxObject> {
  return (await s.custom.getNamespacedCustomObject({ ...KUSTOMIZATIONS, namespace, name })) as FluxObject;
}

const fluxgateOwns = (k: FluxObject): boolean => (k.metadata?.managedFields ?? []).some((m) => m.manager === "fluxgate");

test("with --no-cross-namespace-refs a window leaves targets in other namespaces alone (released if it held them), reports them, and keeps its own", async () => {
  const s = await setup(plane());
  const teamD = s.namespace;
  const teamE = await freshNamespace(s.cp, "team-e");
  await createKustomization(s, "apps");
  await createKustomization({ ...s, namespace: teamE }, "apps");
  await createWindow(s, "closed", {
    schedules: [YEARLY],
    targets: [
      { kind: "Kustomization", name: "apps" },
      { kind: "Kustomization", name: "apps", namespace: teamE },
      { kind: "Kustomization", namespace: teamE, labelSelector: { matchLabels: { tier: "web" } } },
    ],
  });

  // The default, as Flux's: cross-namespace references are allowed, so the window in team-d suspends team-e's target.
  let c = await start(s, [teamD, teamE], false);
  try {
    await waitForSuspend(s, "apps", true);
    await waitFor("team-e's target suspended", async () => ((await remote(s, teamE, "apps")).spec?.suspend === true ? true : undefined));
  } finally {
    await c.stop();
  }

  c = await start(s, [teamD, teamE], true);
  try {
    // team-e's target is given back: fluxgate owns nothing of it any more, so it is resumed.
    const released = await waitFor("team-e's target released", async () => {
      const k = await remote(s, teamE, "apps");
      return k.spec?.suspend !== true && !fluxgateOwns(k) ? k : undefined;
    });
    assert.equal(released.spec?.suspend, undefined);
    await waitForSuspend(s, "apps", true, 1_000);
    const w = await waitFor("AccessDenied", async () => {
      const got = await getWindow(s, "closed");
      return got.status?.conditions?.find((x) => x.type === "Ready")?.reason === "AccessDenied" ? got : undefined;
    });
    const ready = w.status?.conditions?.find((x) => x.type === "Ready");
    assert.equal(ready?.status, "False");
    assert.equal(
      ready?.message,
      `cross-namespace references are disabled (--no-cross-namespace-refs): spec.targets[1] (Kustomization ${teamE}/apps), spec.targets[2] (Kustomization labelSelector in ${teamE}) are not acted on; a window governs targets in its own namespace (${teamD}) only`,
    );
    assert.deepEqual([w.status?.state, w.status?.targets?.matched, w.status?.targets?.closed], ["Closed", 1, 1], "its own target is governed as before");
    const events = await waitFor("AccessDenied event", async () => {
      const got = await eventsOf(s, "AccessDenied");
      return got.length > 0 ? got : undefined;
    });
    assert.deepEqual([events[0]?.type, events[0]?.kind, events[0]?.name], ["Warning", "ReconciliationWindow", "closed"]);
    assert.equal(events[0]?.message, ready?.message);
    await c.settled();
    assert.equal((await remote(s, teamE, "apps")).spec?.suspend, undefined, "still left alone");

    // explain reads what the controller wrote: the window in team-d does not govern team-e's target.
    const json = JSON.parse(
      await explain({ kubeconfig: s.cp.kubeconfigPath, namespace: teamE, object: "kustomization/apps", output: "json", color: false, now: Date.now() }),
    ) as {
      decision: { effect: string };
      windows: unknown[];
      observed: { refusedBy: { namespace: string; name: string; message: string }[] };
    };
    assert.equal(json.decision.effect, "release", "no window governs it");
    assert.deepEqual(json.windows, []);
    assert.deepEqual(
      json.observed.refusedBy.map((r) => [r.namespace, r.name, r.message]),
      [[teamD, "closed", ready?.message]],
    );
    const text = await explain({
      kubeconfig: s.cp.kubeconfigPath,
      namespace: teamE,
      object: "kustomization/apps",
      output: "text",
      color: false,
      now: Date.now(),
    });
    assert.match(text, /^No window selects it\.$/m);
    assert.match(
      text,
      new RegExp(`^Refused\\s+window ${teamD}/closed names it, but the controller does not act on it: cross-namespace references are disabled`, "m"),
    );
    assert.doesNotMatch(text, /Decision\s+Closed/);
  } finally {
    await c.stop();
  }
});
