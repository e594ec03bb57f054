// fluxgate's events reach a Provider through the real notification-controller and an Alert on the target Kustomization.

import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { pushCommit, sharedControlPlane, waitFor } from "../harness/index.ts";
import { alert, configMapFile, startEventsController, startFluxApps, startReceiver } from "../support/flux-e2e.ts";

const plane = sharedControlPlane({ flux: true });

/** What a Provider of type generic posts: Flux's event, after notification-controller has filtered and rewritten its metadata. */
interface Notification {
  path: string;
  component: string | undefined;
  event: {
    involvedObject: { apiVersion?: string; kind?: string; namespace?: string; name?: string };
    severity: string;
    timestamp: string;
    message: string;
    reason: string;
    metadata?: Record<string, string>;
    reportingController: string;
  };
}

function files(value: string): Record<string, string> {
  return { "deploy/apps/configmap.yaml": configMapFile("apps", value), "deploy/infra/configmap.yaml": configMapFile("infra", value) };
}

/** notification-controller's JSON log lines (it runs with --log-encoding=json). */
async function notificationLog(dir: string): Promise<Record<string, unknown>[]> {
  const text = await readFile(join(dir, "logs", "notification-controller.log"), "utf8");
  return text
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

test("events on a governed Kustomization reach a generic Provider through notification-controller; an unselected Kustomization's do not", async () => {
  const cp = plane();
  assert.ok(cp.eventsUrl !== undefined, "the control plane runs notification-controller");
  const apps = await startFluxApps(cp, "e2e", files("1"), { apps: "./deploy/apps", infra: "./deploy/infra" });
  const { namespace, repoUrl, first, custom, core } = apps;

  // Two Providers on one receiver, told apart by path; two Alerts selecting the apps Kustomization,
  // by name and by label (the label needs notification-controller to look the involved object up).
  const receiver = await startReceiver((req, body): Notification => {
    const component = req.headers["gotk-component"];
    return { path: req.url ?? "", component: Array.isArray(component) ? component[0] : component, event: JSON.parse(body) as Notification["event"] };
  });
  await alert(apps, "by-name", { type: "generic", address: `${receiver.url}/by-name` }, [{ kind: "Kustomization", name: "apps" }]);
  await alert(apps, "by-label", { type: "generic", address: `${receiver.url}/by-label` }, [
    { kind: "Kustomization", name: "*", matchLabels: { team: "apps" } },
  ]);

  const controller = await startEventsController(cp, namespace);
  try {
    // A window closed all year governs both Kustomizations: fluxgate suspends them (WindowClosed).
    await apps.createWindow("changes", {
      schedules: [{ start: "0 0 1 1 *", duration: "1m" }],
      targets: [
        { kind: "Kustomization", name: "apps" },
        { kind: "Kustomization", name: "infra" },
      ],
    });
    const notified = (path: string, reason: string) => (): Promise<Notification | undefined> =>
      Promise.resolve(receiver.received.find((n) => n.path === path && n.event.reason === reason && n.event.involvedObject.name === "apps"));

    const closed = await waitFor("WindowClosed for apps at the receiver", notified("/by-name", "WindowClosed"), { timeoutMs: 30_000 });
    assert.equal(closed.component, "fluxgate", "the generic Provider names the reporting controller in gotk-component");
    assert.deepEqual(
      { ...closed.event.involvedObject, uid: undefined, resourceVersion: undefined },
      { apiVersion: "kustomize.toolkit.fluxcd.io/v1", kind: "Kustomization", namespace, name: "apps", uid: undefined, resourceVersion: undefined },
    );
    assert.equal(closed.event.severity, "info");
    assert.equal(closed.event.reportingController, "fluxgate");
    assert.match(closed.event.message, /^Suspended by window changes: Closed/);
    // Metadata arrives with the object's group prefix stripped: the target's picture, for a fleet view.
    assert.deepEqual(
      { ...closed.event.metadata, pendingRevision: undefined, pendingSince: undefined, since: undefined, gated: undefined, violation: undefined },
      {
        window: "changes",
        state: "closed",
        nextChange: `${new Date().getUTCFullYear() + 1}-01-01T00:00:00Z`,
        suspended: "true",
        pendingRevision: undefined,
        pendingSince: undefined,
        since: undefined,
        gated: undefined,
        violation: undefined,
      },
    );
    assert.match(closed.event.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    // The same event fluxgate recorded in Kubernetes.
    const recorded = (await core.listNamespacedEvent({ namespace })).items.find((e) => e.reason === "WindowClosed" && e.involvedObject.name === "apps");
    assert.equal(recorded?.message, closed.event.message);
    await waitFor("WindowClosed for apps through the label selector", notified("/by-label", "WindowClosed"));

    // A commit waits; a break-glass override opens the window: WindowOpened, then Flux applies it: ChangesApplied.
    const second = await pushCommit(repoUrl, files("2"), "second");
    await custom.createNamespacedCustomObject({
      group: "fluxgate.io",
      version: "v1alpha1",
      plural: "windowoverrides",
      namespace,
      body: {
        apiVersion: "fluxgate.io/v1alpha1",
        kind: "WindowOverride",
        metadata: { name: "hotfix" },
        spec: {
          windowRef: { name: "changes" },
          action: "Open",
          until: new Date(Date.now() + 600_000).toISOString().replace(/\.\d{3}Z$/, "Z"),
          reason: "e2e hotfix",
        },
      },
    });
    const opened = await waitFor("WindowOpened for apps at the receiver", notified("/by-name", "WindowOpened"), { timeoutMs: 30_000 });
    assert.match(opened.event.message, /^Resumed by window changes: /);
    assert.equal(opened.event.severity, "info");
    const changes = await waitFor("ChangesApplied for apps at the receiver", notified("/by-name", "ChangesApplied"), { timeoutMs: 60_000 });
    assert.equal(changes.event.message, `Applied revision main@sha1:${second} (was main@sha1:${first}) under window changes`);
    assert.equal(changes.event.metadata?.revision, `main@sha1:${second}`);
    assert.equal(changes.event.metadata?.state, "open");
    assert.equal(changes.event.metadata?.pendingRevision, "", "nothing waits once it is applied");

    // infra's events were forwarded too, and notification-controller dropped them: no Alert selects infra.
    const discardedFor = async (name: string): Promise<number> =>
      (await notificationLog(cp.dir)).filter(
        (l) =>
          l.msg === "discarding event, no alerts found for the involved object" &&
          (l.eventInvolvedObject as { name?: string; namespace?: string } | undefined)?.name === name &&
          (l.eventInvolvedObject as { namespace?: string }).namespace === namespace,
      ).length;
    await waitFor(
      "notification-controller to discard infra's WindowClosed, WindowOpened and ChangesApplied",
      async () => ((await discardedFor("infra")) >= 3 ? true : undefined),
      {
        timeoutMs: 60_000,
      },
    );
    assert.equal(await discardedFor("apps"), 0);
    for (const reason of ["WindowOpened", "ChangesApplied"]) await waitFor(`${reason} for apps through the label selector`, notified("/by-label", reason));
    await waitFor("infra to apply the second commit", async () => ((await apps.appliedRevision("infra")) === `main@sha1:${second}` ? true : undefined));
    assert.deepEqual(
      receiver.received.filter((n) => n.event.involvedObject.name !== "apps").map((n) => `${n.path} ${n.event.reason} ${n.event.involvedObject.name ?? ""}`),
      [],
      "no notification for a Kustomization no Alert selects",
    );
    assert.deepEqual(
      receiver.received.map((n) => `${n.path} ${n.event.reason}`).sort(),
      [
        "/by-label ChangesApplied",
        "/by-label WindowClosed",
        "/by-label WindowOpened",
        "/by-name ChangesApplied",
        "/by-name WindowClosed",
        "/by-name WindowOpened",
      ],
      "each of apps' events once through each Alert",
    );
  } finally {
    await controller.stop();
    receiver.close();
  }
});
