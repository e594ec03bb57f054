// The seed scenario end-to-end on the real Flux controllers, in Suspend and in Gate mode.

import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { test } from "node:test";
import { installFluxgate, sharedControlPlane, waitFor } from "../harness/index.ts";
import { applyFlux, createWindow, nextMinute, readWindow, startController, startScenario, waitForValue, type Scenario } from "./scenario.ts";

const plane = sharedControlPlane({ flux: true });
const KUSTOMIZATIONS = { group: "kustomize.toolkit.fluxcd.io", version: "v1", plural: "kustomizations" };

interface WindowObject {
  status?: {
    state?: string;
    pending?: { name: string; pendingRevision: string; appliedRevision?: string; revisions?: number; waitingSince?: string }[];
    gate?: { upstreamRevision?: string; pinnedRevision?: string; pendingRevisions?: number; pendingSince?: string };
  };
}

async function createNginxWindow(s: Scenario, cron: string, mode: "Suspend" | "Gate"): Promise<void> {
  await createWindow(s, "nginx-window", {
    schedules: [{ start: cron, duration: "20s" }],
    targets: [{ kind: "Kustomization", name: "apps-rw" }],
    mode,
    ...(mode === "Gate" ? { gate: { upstream: { kind: "GitRepository", name: "gitops" }, gatedName: "gitops-gated" } } : {}),
  });
}

async function windowStatus(s: Scenario): Promise<WindowObject> {
  return await readWindow<WindowObject>(s, "nginx-window");
}

async function suspended(s: Scenario): Promise<boolean> {
  const k = (await s.custom.getNamespacedCustomObject({ ...KUSTOMIZATIONS, namespace: s.namespace, name: "apps-rw" })) as { spec?: { suspend?: boolean } };
  return k.spec?.suspend === true;
}

/** Deletes the Deployment; resolves with its uid, so a recreated one can be told apart even if Flux is quicker than the check. */
async function deleteDeployment(s: Scenario): Promise<string> {
  const uid = (await s.apps.readNamespacedDeployment({ namespace: s.namespace, name: "nginx" })).metadata?.uid ?? "";
  await s.apps.deleteNamespacedDeployment({ namespace: s.namespace, name: "nginx" });
  return uid;
}

async function deploymentUid(s: Scenario): Promise<string | undefined> {
  try {
    return (await s.apps.readNamespacedDeployment({ namespace: s.namespace, name: "nginx" })).metadata?.uid;
  } catch {
    return undefined;
  }
}

test("Suspend mode: the window holds the Deployment, opens on time, and a deleted Deployment stays deleted while closed", async () => {
  const s = await startScenario(plane(), "gitops");
  await installFluxgate(s.cp);
  await s.push({ conf: "v1", image: "nginx:1.27" }, "first");
  await applyFlux(s);
  await waitForValue("the first Deployment", s.image, "nginx:1.27", 120_000);
  const { at, cron } = nextMinute(50_000);
  await createNginxWindow(s, cron, "Suspend");
  const c = await startController(s);
  try {
    await waitFor("apps-rw suspended", async () => ((await suspended(s)) ? true : undefined));

    // 1. One commit changes nginx.conf and the image: the ConfigMap follows, the Deployment waits.
    const second = await s.push({ conf: "v2", image: "nginx:1.28" }, "nginx.conf v2 and nginx 1.28");
    await waitForValue("the ConfigMap to change in real time", s.conf, "# v2", 30_000);
    assert.equal(await s.image(), "nginx:1.27", "the Deployment waits for the window");
    const pending = await waitFor("the pending revision in the window's status", async () =>
      (await windowStatus(s)).status?.pending?.find((p) => p.name === "apps-rw"),
    );
    assert.equal(pending.pendingRevision, `main@sha1:${second}`);
    assert.equal(pending.revisions, 1, "one commit waits");
    assert.ok(pending.waitingSince !== undefined, "and since when");
    assert.ok(Date.now() < at, "the story reached the opening in time");

    // 2. The window opens at its scheduled instant: the Deployment changes within seconds, not at the next interval.
    const changed = await waitForValue("the Deployment to change after the opening", s.image, "nginx:1.28", at - Date.now() + 30_000);
    assert.ok(changed >= at, "not before the window opened");
    assert.ok(changed - at < 8_000, `the Deployment changed ${changed - at} ms after the opening`);

    // 3. Closed again: a deleted Deployment stays deleted (a suspended Kustomization heals no drift).
    await waitFor("apps-rw suspended after the window", async () => ((await suspended(s)) ? true : undefined), { timeoutMs: 30_000 });
    await deleteDeployment(s);
    await sleep(8_000);
    assert.equal(await s.image(), undefined, "Suspend mode heals no drift while closed: the documented difference to Gate mode");

    // 4. The trap: a parent applies apps-rw with suspend: false. fluxgate detects it and names the writer.
    await s.push({ conf: "v2", image: "nginx:1.28", rwSuspendInGit: true }, "apps-rw declares suspend: false");
    const event = await waitFor(
      "a SuspendReverted event",
      async () =>
        (await s.core.listNamespacedEvent({ namespace: s.namespace })).items.find(
          (e) => e.reason === "SuspendReverted" && e.involvedObject.kind === "Kustomization",
        ),
      { timeoutMs: 60_000 },
    );
    assert.equal(event.type, "Warning");
    assert.match(event.message ?? "", /by manager "kustomize-controller"/);
  } finally {
    await c.stop();
  }
});

test("Gate mode: the pin holds the revision, opens on time, and Flux keeps healing drift at the pinned revision", async () => {
  const s = await startScenario(plane(), "gitops-gated");
  await installFluxgate(s.cp);
  const first = await s.push({ conf: "v1", image: "nginx:1.27" }, "first");
  const { at, cron } = nextMinute(75_000);
  await createNginxWindow(s, cron, "Gate");
  const c = await startController(s);
  try {
    await applyFlux(s);
    await waitForValue("the first Deployment, from the gated source", s.image, "nginx:1.27", 120_000);
    const pinned = await waitFor("the pin", async () => (await windowStatus(s)).status?.gate?.pinnedRevision);
    assert.equal(pinned, `main@sha1:${first}`);

    // 1. The ConfigMap follows the branch; the Deployment stays at the pinned revision.
    const second = await s.push({ conf: "v2", image: "nginx:1.28" }, "nginx.conf v2 and nginx 1.28");
    await waitForValue("the ConfigMap to change in real time", s.conf, "# v2", 30_000);
    assert.equal(await s.image(), "nginx:1.27");
    const pending = await waitFor("the pending revision", async () => (await windowStatus(s)).status?.pending?.find((p) => p.name === "apps-rw"));
    assert.equal(pending.pendingRevision, `main@sha1:${second}`);
    assert.equal(pending.revisions, 1, "one commit waits");
    assert.ok(pending.waitingSince !== undefined, "and since when");
    assert.equal((await windowStatus(s)).status?.gate?.pendingRevisions, 1);
    assert.equal(await suspended(s), false, "Gate mode never suspends");
    assert.ok(Date.now() < at, "the story reached the opening in time");

    // 2. The window opens: the pin follows upstream and the Deployment changes within seconds.
    const changed = await waitForValue("the Deployment to change after the opening", s.image, "nginx:1.28", at - Date.now() + 30_000);
    assert.ok(changed >= at, "not before the window opened");
    assert.ok(changed - at < 10_000, `the Deployment changed ${changed - at} ms after the opening`);

    // 3. Closed again: a new commit waits, and a deleted Deployment is recreated at the pinned revision.
    await waitFor("the window to close", async () => ((await windowStatus(s)).status?.state === "Closed" ? true : undefined), { timeoutMs: 30_000 });
    await s.push({ conf: "v3", image: "nginx:1.29", rwSuspendInGit: true }, "nginx.conf v3, nginx 1.29, and suspend: false in Git");
    await waitForValue("the ConfigMap to change in real time", s.conf, "# v3", 30_000);
    const deleted = await deleteDeployment(s);
    await waitFor(
      "Flux to recreate the Deployment",
      async () => {
        const uid = await deploymentUid(s);
        return uid !== undefined && uid !== deleted ? true : undefined;
      },
      { timeoutMs: 30_000 },
    );
    assert.equal(await s.image(), "nginx:1.28", "recreated at the pinned revision");
    // 4. suspend: false from a parent does not matter: the revision is held by the pin, not by suspend.
    await sleep(6_000);
    assert.equal(await s.image(), "nginx:1.28", "held at the pinned revision");
    assert.equal(await suspended(s), false);
  } finally {
    await c.stop();
  }
});
