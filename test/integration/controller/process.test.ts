// The `fluxgate controller` process: leader election and failover, /healthz /readyz /metrics, JSON logs, events forwarded to Flux.

import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { CoordinationV1Api } from "@kubernetes/client-node";
import { sharedControlPlane, waitFor } from "../../harness/index.ts";
import { checkMetrics } from "../../harness/promtool.ts";
import { startControllerProcess, type ControllerProcess } from "../../support/controller-process.ts";
import { createKustomization, createWindow, setup, waitForSuspend, YEARLY, type Setup } from "./helpers.ts";

const plane = sharedControlPlane();

type Replica = ControllerProcess;

function startReplica(s: Setup, extra: string[] = []): Replica {
  return startControllerProcess(["--kubeconfig", s.controllerKubeconfigPath, "--namespace", s.namespace, ...extra]);
}

function logged(r: Replica, msg: string): Record<string, unknown> | undefined {
  return r.logs.find((l) => l.msg === msg);
}

test("two replicas: only the leader writes; after SIGKILL the other takes over once the lease has run out, within it and two retry periods", async () => {
  const s = await setup(plane());
  await createKustomization(s, "apps-rw");
  await createWindow(s, "closed", { schedules: [YEARLY], targets: [{ kind: "Kustomization", name: "apps-rw" }] });
  const flags = ["--leader-elect", "--leader-election-namespace", "fluxgate-system", "--leader-election-lease-duration", "6s"];
  const a = startReplica(s, flags);
  const b = startReplica(s, flags);
  try {
    await waitForSuspend(s, "apps-rw", true);
    const leader = await waitFor("a leader", () => Promise.resolve([a, b].find((r) => logged(r, "Started leading") !== undefined)));
    const follower = leader === a ? b : a;
    assert.equal(logged(follower, "Started leading"), undefined, "only one replica leads");
    const started = logged(leader, "Started controller");
    assert.ok(typeof started?.ts === "string" && started.level === "info", "logs are JSON lines with ts, level and msg");
    assert.deepEqual(
      [...a.logs, ...b.logs].filter((l) => l.msg === "(not JSON)"),
      [],
      "every log line is JSON",
    );

    const killedAt = Date.now();
    leader.child.kill("SIGKILL");
    // The leader's last renewal: a renewal still on its way when it was killed could only make it later.
    const [namespace, name] = String(logged(leader, "Started leading")?.lease).split("/") as [string, string];
    const lease = await s.cp.kubeConfig.makeApiClient(CoordinationV1Api).readNamespacedLease({ name, namespace });
    const renewedAt = new Date(lease.spec?.renewTime ?? 0).getTime();
    const took = await waitFor("the follower to lead", () => Promise.resolve(logged(follower, "Started leading")), { timeoutMs: 30_000 });
    // Timed by the follower's own log line, not by this test's polling of it.
    const ledAt = Date.parse(String(took.ts));
    process.stdout.write(`# took over ${ledAt - killedAt} ms after the kill, ${ledAt - renewedAt} ms after the last renewal (lease 6 s)\n`);
    // Not before the lease ran out: the follower counts it from when it first saw the last renewal, which is after it.
    assert.ok(ledAt - renewedAt >= 6_000, `took over ${ledAt - renewedAt} ms after the leader's last renewal (lease 6 s)`);
    // And then soon: it first sees the last renewal up to one retry period (0.8 s) after the kill, and sees the lease
    // run out at its next try, up to one more; plus its requests' time on a loaded machine.
    assert.ok(ledAt - killedAt < 6_000 + 2 * 800 + 2_000, `took over ${ledAt - killedAt} ms after the leader was killed (lease 6 s)`);
    // The new leader enforces: a new target gets suspended.
    await createKustomization(s, "apps-rw-2");
    await s.custom.patchNamespacedCustomObject({
      group: "fluxgate.io",
      version: "v1alpha1",
      plural: "reconciliationwindows",
      namespace: s.namespace,
      name: "closed",
      body: [{ op: "add", path: "/spec/targets/-", value: { kind: "Kustomization", name: "apps-rw-2" } }],
    });
    await waitForSuspend(s, "apps-rw-2", true);
  } finally {
    for (const r of [a, b]) r.child.kill("SIGKILL");
    await Promise.all([a.exited, b.exited]);
  }
});

test("probes, Prometheus metrics and events forwarded in Flux's event format", async () => {
  const s = await setup(plane());
  const received: Record<string, unknown>[] = [];
  const receiver = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8").on("data", (c: string) => (body += c));
    req.on("end", () => {
      received.push(JSON.parse(body) as Record<string, unknown>);
      res.writeHead(202).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", () => r()));
  const port = (receiver.address() as AddressInfo).port;
  await createKustomization(s, "apps-rw");
  await createWindow(s, "closed", { schedules: [YEARLY], targets: [{ kind: "Kustomization", name: "apps-rw" }] });
  const r = startReplica(s, ["--events-address", `http://127.0.0.1:${port}/`]);
  try {
    await waitForSuspend(s, "apps-rw", true);
    const started = await waitFor("Started controller", () => Promise.resolve(logged(r, "Started controller")));
    const health = `http://${String(started.healthAddr)}`;
    const metricsUrl = `http://${String(started.metricsAddr)}/metrics`;
    assert.equal((await fetch(`${health}/healthz`)).status, 200);
    await waitFor("ready", async () => ((await fetch(`${health}/readyz`)).status === 200 ? true : undefined));
    const text = await waitFor("window metrics", async () => {
      const body = await (await fetch(metricsUrl)).text();
      return body.includes(`fluxgate_window_state{namespace="${s.namespace}",name="closed",state="Closed"} 1`) ? body : undefined;
    });
    for (const name of [
      "fluxgate_window_transitions_total",
      "fluxgate_window_pending_targets",
      `fluxgate_window_targets_suspended_while_open{namespace="${s.namespace}",name="closed"} 0`,
      `fluxgate_window_suspended_while_open_since_timestamp_seconds{namespace="${s.namespace}",name="closed"} 0`,
      "fluxgate_transition_latency_seconds_bucket",
      "fluxgate_errors_total",
      "fluxgate_api_requests_total",
    ]) {
      assert.ok(text.includes(name), `metrics include ${name}`);
    }
    // Names, units and help text by Prometheus' conventions, as Prometheus' own linter sees them.
    const lint = await checkMetrics(text);
    assert.equal(lint.code, 0, `promtool check metrics:\n${lint.output}`);
    // Closing a target a new window selects is its first enforcement, not a scheduled transition: not timed.
    assert.match(text, /fluxgate_transition_latency_seconds_count 0\b/);
    const event = await waitFor("forwarded event", () => Promise.resolve(received.find((e) => e.reason === "WindowClosed")));
    assert.deepEqual(
      {
        kind: (event.involvedObject as Record<string, unknown>).kind,
        name: (event.involvedObject as Record<string, unknown>).name,
        severity: event.severity,
        reportingController: event.reportingController,
      },
      { kind: "Kustomization", name: "apps-rw", severity: "info", reportingController: "fluxgate" },
    );
    assert.match(String(event.timestamp), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    // notification-controller keeps only metadata keys prefixed with the involved object's API group;
    // the target's picture (state, windows, next change, what waits) rides along for a fleet view.
    const metadata = event.metadata as Record<string, string>;
    assert.deepEqual(
      Object.keys(metadata).sort(),
      ["gated", "nextChange", "pendingRevision", "pendingSince", "since", "state", "suspended", "violation", "window"].map(
        (k) => `kustomize.toolkit.fluxcd.io/${k}`,
      ),
    );
    assert.equal(metadata["kustomize.toolkit.fluxcd.io/window"], "closed");
    assert.equal(metadata["kustomize.toolkit.fluxcd.io/state"], "closed");
    // Beside the decision, what the target does: the event follows fluxgate's write of spec.suspend.
    assert.equal(metadata["kustomize.toolkit.fluxcd.io/suspended"], "true");
    assert.equal(metadata["kustomize.toolkit.fluxcd.io/violation"], "");
  } finally {
    r.child.kill("SIGTERM");
    await r.exited;
    receiver.close();
  }
  assert.ok(logged(r, "Stopped controller") !== undefined, "SIGTERM stops the controller cleanly");
});
