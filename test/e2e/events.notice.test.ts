// Notice before a change, end to end: WindowOpensSoon, with the revision that will go out, reaches a Slack-like webhook and fluxgate serve's pushed status
// through the real notification-controller.

import assert from "node:assert/strict";
import { test } from "node:test";
import { pushCommit, sharedControlPlane, waitFor } from "../harness/index.ts";
import { alert, configMapFile, startEventsController, startFluxApps, startPushService, startReceiver, pushStatusTo } from "../support/flux-e2e.ts";

const plane = sharedControlPlane({ flux: true });
/** The window opens this long after the test creates it; it announces NOTICE before. */
const OPENS_IN_MS = 60_000;
const NOTICE = "30s";
const NOTICE_MS = 30_000;

/** What a Provider of type generic posts: Flux's event, its metadata without the API group. */
interface Notification {
  involvedObject: { kind?: string; namespace?: string; name?: string };
  severity: string;
  timestamp: string;
  message: string;
  reason: string;
  metadata?: Record<string, string>;
  receivedAt: number;
}

function configMap(value: string): Record<string, string> {
  return { "deploy/apps/configmap.yaml": configMapFile("apps", value) };
}

/** A local date-time in UTC with seconds, as a freeze's from/to take it. */
function local(t: number): string {
  return new Date(t).toISOString().slice(0, 19);
}

interface PushedView {
  targets: Array<{ name: string; upcoming: { transition: string; at: string; window: string | null; message: string } | null }>;
  upcoming: Array<{ window: string | null; transition: string; at: string; targets: number }>;
}

test("WindowOpensSoon goes out at its notice's moment through notification-controller, naming the revision that will go out, and lands in the pushed status", async (t) => {
  const cp = plane();
  assert.ok(cp.eventsUrl !== undefined, "the control plane runs notification-controller");
  const apps = await startFluxApps(cp, "notice", configMap("1"), { apps: "./deploy/apps" });
  const { namespace, repoUrl } = apps;

  // The Config Service receiving edge-berlin's pushed events (generic-hmac), as in a fleet.
  const { service, keys } = await startPushService(t, "notice-e2e", ["edge-berlin"]);
  await pushStatusTo(apps, "edge-berlin", keys.get("edge-berlin") ?? "", service.url);

  // The team's chat: a generic Provider and an Alert on the apps Kustomization, as for Slack or Teams.
  const receiver = await startReceiver((_req, body) => ({ ...(JSON.parse(body) as Omit<Notification, "receivedAt">), receivedAt: Date.now() }));
  t.after(receiver.close);
  await alert(apps, "chat", { type: "generic", address: receiver.url }, [{ kind: "Kustomization", name: "apps" }]);

  const controller = await startEventsController(cp, namespace);
  try {
    // Open around the clock but for a freeze that ends a minute from now (whole seconds): the window opens then, announced 30 s before.
    const opensAt = Math.ceil((Date.now() + OPENS_IN_MS) / 1000) * 1000;
    const noticeAt = opensAt - NOTICE_MS;
    const opensAtText = new Date(opensAt).toISOString().replace(".000Z", "Z");
    await apps.createWindow("changes", {
      schedules: [{ start: "0 0 * * *", duration: "24h" }],
      freezes: [{ from: local(opensAt - 3_600_000), to: local(opensAt), reason: "e2e freeze" }],
      notice: NOTICE,
      targets: [{ kind: "Kustomization", name: "apps" }],
    });
    // Frozen: apps is suspended; a commit arrives and waits.
    await waitFor("WindowClosed for apps at the chat", async () => Promise.resolve(receiver.received.find((n) => n.reason === "WindowClosed")), {
      timeoutMs: 20_000,
    });
    const second = await pushCommit(repoUrl, configMap("2"), "second");
    await waitFor(
      "the GitRepository to offer the second commit",
      async () =>
        ((await apps.status("gitrepositories", "source.toolkit.fluxcd.io", "fleet"))?.["artifact"] as { revision?: string } | undefined)?.revision ===
        `main@sha1:${second}`
          ? true
          : undefined,
      { timeoutMs: 30_000 },
    );
    assert.ok(Date.now() < noticeAt, "the second commit arrived before the notice's moment (the machine was too slow for this test's timing)");
    assert.deepEqual(
      receiver.received.filter((n) => n.reason === "WindowOpensSoon"),
      [],
      "nothing announced before the notice's moment",
    );

    const soon = await waitFor("WindowOpensSoon at the chat", async () => Promise.resolve(receiver.received.find((n) => n.reason === "WindowOpensSoon")), {
      timeoutMs: OPENS_IN_MS + 10_000,
    });
    t.diagnostic(`WindowOpensSoon received ${((soon.receivedAt - noticeAt) / 1000).toFixed(1)} s after the notice's moment`);
    assert.ok(soon.receivedAt >= noticeAt, "not before the notice's moment");
    assert.ok(soon.receivedAt < opensAt, "before the window opens");
    assert.equal(soon.severity, "info");
    assert.deepEqual(soon.involvedObject.name, "apps");
    // A time for people has its seconds only when they are not :00 (opensAt is a whole second, any one).
    const [day, time] = opensAtText.replace("Z", "").split("T") as [string, string];
    const opensText = `${day} ${time.endsWith(":00") ? time.slice(0, 5) : time} UTC`;
    assert.match(soon.message, /^Window changes opens \w{3} \d{4}-\d\d-\d\d \d\d:\d\d(:\d\d)? UTC \(in (under a minute|30s)\): /);
    assert.ok(soon.message.includes(` ${opensText} (`), `${soon.message} names ${opensText}`);
    assert.ok(soon.message.endsWith(`: ${namespace}/apps: main@sha1:${second}`), soon.message);
    assert.equal(soon.metadata?.["upcoming"], "Open");
    assert.equal(soon.metadata?.["upcomingAt"], opensAtText);
    assert.equal(soon.metadata?.["upcomingWindow"], "changes");
    assert.equal(soon.metadata?.["pendingRevision"], `main@sha1:${second}`);

    // The Config Service keeps it per target and per window until the window opens.
    const pushed = await waitFor(
      "the notice in edge-berlin's pushed status",
      async () => {
        const r = (await (await fetch(`${service.url}/api/v1/clusters/edge-berlin/status`)).json()) as { pushed: PushedView };
        return r.pushed.upcoming.length > 0 ? r.pushed : undefined;
      },
      { timeoutMs: 20_000 },
    );
    assert.deepEqual(pushed.upcoming, [{ window: "changes", transition: "Open", at: opensAtText, targets: 1 }]);
    assert.deepEqual(pushed.targets.find((x) => x.name === "apps")?.upcoming, {
      transition: "Open",
      at: opensAtText,
      window: "changes",
      message: soon.message,
    });
    const fleet = (await (await fetch(`${service.url}/api/v1/fleet/status`)).json()) as { clusters: Array<{ cluster: string; upcoming: unknown }> };
    assert.deepEqual(fleet.clusters.find((c) => c.cluster === "edge-berlin")?.upcoming, [
      { window: "changes", transition: "Open", at: opensAtText, targets: 1 },
    ]);

    // The window opens; the revision announced goes out; the notice was sent once.
    await waitFor("WindowOpened at the chat", async () => Promise.resolve(receiver.received.find((n) => n.reason === "WindowOpened")), {
      timeoutMs: NOTICE_MS + 20_000,
    });
    await waitFor("ChangesApplied of the second commit", () =>
      Promise.resolve(receiver.received.find((n) => n.reason === "ChangesApplied" && n.metadata?.["revision"] === `main@sha1:${second}`)),
    );
    assert.equal(receiver.received.filter((n) => n.reason === "WindowOpensSoon").length, 1);
    const after = (await (await fetch(`${service.url}/api/v1/clusters/edge-berlin/status`)).json()) as { pushed: PushedView };
    assert.deepEqual(after.pushed.upcoming, [], "once the window has opened, the notice is history");
  } finally {
    await controller.stop();
  }
});
