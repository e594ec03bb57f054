// `fluxgate overrides [list|cancel NAME]`: the overrides in force first, every output format, and cancelling one early.

import assert from "node:assert/strict";
import { test } from "node:test";
import { parse } from "yaml";
import { sharedControlPlane, waitFor } from "../../harness/index.ts";
import { createKustomization, createWindow, setup, startController, waitForSuspend, YEARLY } from "../controller/helpers.ts";
import { connect, whoAmI } from "../../../src/cli/kube.ts";
import { fluxgate, kubeFlags } from "./helpers.ts";

const plane = sharedControlPlane();

test("list: in force first, soonest end first, then the expired ones kept as a record; table, wide, json, yaml, -A", async () => {
  const s = await setup(plane());
  await createKustomization(s, "apps-rw");
  await createWindow(s, "weekday-changes", { timeZone: "Europe/Berlin", schedules: [YEARLY], targets: [{ kind: "Kustomization", name: "apps-rw" }] });
  const c = await startController(s);
  try {
    for (const [verb, name, length, reason] of [
      ["open", "short", "2s", "quick check"],
      ["open", "hotfix", "1h", "hotfix INC-42"],
      ["freeze", "incident", "30m", "incident INC-7"],
    ] as const) {
      const r = await fluxgate(verb, "weekday-changes", ...kubeFlags(s), "--for", length, "--reason", reason, "--name", name, "--no-wait");
      assert.equal(r.code, 0, r.stderr);
    }
    const rows = await waitFor(
      "short expired",
      async () => {
        const r = await fluxgate("overrides", ...kubeFlags(s), "-o", "json");
        const got = JSON.parse(r.stdout).overrides as Array<Record<string, unknown>>;
        return got.find((o) => o.name === "short")?.phase === "Expired" && got.every((o) => o.phase !== null) ? got : undefined;
      },
      { timeoutMs: 10_000, intervalMs: 200 },
    );
    const hotfix = rows.find((o) => o.name === "hotfix");
    assert.deepEqual(Object.keys(hotfix ?? {}), [
      "namespace",
      "name",
      "window",
      "action",
      "until",
      "reason",
      "phase",
      "active",
      "createdAt",
      "requestedBy",
      "cancelledAt",
      "cancelledBy",
    ]);
    assert.equal(hotfix?.namespace, s.namespace);
    assert.equal(hotfix?.window, "weekday-changes");
    assert.equal(hotfix?.action, "Open");
    assert.match(String(hotfix?.until), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.equal(hotfix?.reason, "hotfix INC-42");
    assert.equal(hotfix?.phase, "Active");
    assert.equal(hotfix?.active, true);
    assert.match(String(hotfix?.requestedBy), /.+/);
    assert.equal(rows.find((o) => o.name === "short")?.active, false);

    const table = await fluxgate("overrides", ...kubeFlags(s));
    assert.equal(table.code, 0, table.stderr);
    const lines = table.stdout.trimEnd().split("\n");
    assert.match(lines[0] ?? "", /^NAME\s+WINDOW\s+ACTION\s+UNTIL\s+PHASE\s+REASON$/);
    assert.match(lines[1] ?? "", /^incident\s+weekday-changes\s+Freeze\s+in (29m\d+s|30m), \w{3} \d\d:\d\d(:\d\d)? CET\s+Active\s+incident INC-7$/);
    assert.match(lines[2] ?? "", /^hotfix\s+weekday-changes\s+Open\s+in (59m\d+s|1h), \w{3} \d\d:\d\d(:\d\d)? CET\s+Active\s+hotfix INC-42$/);
    assert.match(lines[3] ?? "", /^short\s+weekday-changes\s+Open\s+(now|\d+s ago), .*\s+Expired\s+quick check$/);
    const wide = await fluxgate("overrides", ...kubeFlags(s), "-o", "wide");
    assert.match(wide.stdout.split("\n")[0] ?? "", /PHASE\s+REASON\s+CREATED\s+BY$/);
    const yaml = await fluxgate("overrides", ...kubeFlags(s), "-o", "yaml");
    const json = await fluxgate("overrides", ...kubeFlags(s), "-o", "json");
    assert.deepEqual(parse(yaml.stdout), JSON.parse(json.stdout));
    const all = await fluxgate("overrides", "list", "--kubeconfig", s.cp.kubeconfigPath, "-A");
    assert.match(all.stdout, new RegExp(`^${s.namespace}\\s+incident\\s+weekday-changes\\s+Freeze`, "m"));
    const empty = await fluxgate("overrides", "--kubeconfig", s.cp.kubeconfigPath, "-n", "default");
    assert.equal(empty.stdout, "No overrides in namespace default.\n");

    // With overrides, the window's preview from the cluster shows the override's opening.
    const preview = await fluxgate("schedule", "preview", "weekday-changes", ...kubeFlags(s), "-o", "json");
    assert.equal(preview.code, 0, preview.stderr);
    const open = JSON.parse(preview.stdout).open as Array<{ start: string; end: string }>;
    const until = (name: string): unknown => rows.find((o) => o.name === name)?.until;
    assert.deepEqual(open, [{ start: until("incident"), end: until("hotfix") }], "the freeze override beats the open one until it ends");
  } finally {
    await c.stop();
  }
});

test("cancel ends an override at once (the targets follow within a second) and keeps it as a record: who and when, an OverrideCancelled event; every view honours it", async () => {
  const s = await setup(plane());
  await createKustomization(s, "apps-rw");
  await createWindow(s, "weekday-changes", { schedules: [YEARLY], targets: [{ kind: "Kustomization", name: "apps-rw" }] });
  const c = await startController(s);
  try {
    await waitForSuspend(s, "apps-rw", true);
    const opened = await fluxgate("open", "weekday-changes", ...kubeFlags(s), "--for", "1h", "--reason", "hotfix INC-42", "--name", "hotfix");
    assert.equal(opened.code, 0, opened.stderr);
    assert.match(opened.stdout, /^Window weekday-changes now: Overridden, 1\/1 targets open/m);
    const started = Date.now();
    const suspended = waitForSuspend(s, "apps-rw", true, 5_000);
    const r = await fluxgate("overrides", "cancel", "hotfix", ...kubeFlags(s));
    assert.equal(r.code, 0, r.stderr);
    assert.ok((await suspended) - started < 1_000, `suspended ${(await suspended) - started} ms after cancel started`);
    const user = (await whoAmI(connect({ kubeconfig: s.cp.kubeconfigPath }))) ?? "";
    assert.notEqual(user, "");
    const at = /\) at (\S+Z), by /.exec(r.stdout)?.[1] ?? "";
    assert.match(
      r.stdout,
      new RegExp(
        `^Cancelled windowoverride/hotfix in ${s.namespace} \\(Open of window weekday-changes, until \\S+Z\\) at \\S+Z, by ${user}\\.\\nIts reason was: hotfix INC-42\\nIt stays as a record; kubectl delete windowoverride hotfix -n ${s.namespace} removes it\\.\\nWindow weekday-changes now: Closed`,
      ),
    );
    // Kept, with who and when; the controller says so in its status and an event.
    const kept = await waitFor("Cancelled", async () => {
      const rows = JSON.parse((await fluxgate("overrides", ...kubeFlags(s), "-o", "json")).stdout).overrides as Array<Record<string, unknown>>;
      return rows[0]?.phase === "Cancelled" ? rows : undefined;
    });
    assert.equal(kept.length, 1);
    assert.equal(kept[0]?.active, false);
    assert.equal(kept[0]?.cancelledBy, user);
    assert.equal(kept[0]?.cancelledAt, at);
    const events = await waitFor("OverrideCancelled", async () => {
      const list = await s.core.listNamespacedEvent({ namespace: s.namespace });
      const got = list.items.filter((e) => e.reason === "OverrideCancelled" && e.involvedObject.kind === "WindowOverride");
      return got.length > 0 ? got : undefined;
    });
    assert.match(events[0]?.message ?? "", new RegExp(`cancelled by ${user} at ${at}`));
    const table = await fluxgate("overrides", ...kubeFlags(s));
    assert.match(table.stdout, /^hotfix\s+weekday-changes\s+Open\s+(now|\d+s ago), .*\s+Cancelled\s+hotfix INC-42$/m);
    // explain and the preview from the cluster compute the end as the controller does.
    const explained = JSON.parse((await fluxgate("explain", "kustomization/apps-rw", ...kubeFlags(s), "-o", "json")).stdout) as {
      decision: { state: string; overridden: boolean };
    };
    assert.deepEqual([explained.decision.state, explained.decision.overridden], ["Closed", false]);
    const preview = JSON.parse((await fluxgate("schedule", "preview", "weekday-changes", ...kubeFlags(s), "-o", "json")).stdout) as { open: unknown[] };
    assert.deepEqual(preview.open, [], "no opening left from the cancelled override");
    // Again: nothing changes.
    const again = await fluxgate("overrides", "cancel", "hotfix", ...kubeFlags(s));
    assert.equal(again.code, 0, again.stderr);
    assert.match(
      again.stdout,
      new RegExp(`^windowoverride/hotfix in ${s.namespace} \\(Open of window weekday-changes\\) was already cancelled by ${user} at ${at}: nothing changed\\.`),
    );
  } finally {
    await c.stop();
  }
});

test("bad use is exit 2: an unknown override (with the names there), a missing name, an unknown subcommand, -o with cancel", async () => {
  const s = await setup(plane());
  await createWindow(s, "weekday-changes", { schedules: [YEARLY], targets: [{ kind: "Kustomization", name: "apps-rw" }] });
  await fluxgate("freeze", "weekday-changes", ...kubeFlags(s), "--for", "1h", "--reason", "incident", "--name", "incident", "--no-wait");
  const cases: Array<[string[], RegExp]> = [
    [
      ["overrides", "cancel", "hotfix", ...kubeFlags(s)],
      new RegExp(`^error: override "hotfix" not found in namespace ${s.namespace}\\nOverrides in ${s.namespace}: incident\\.\\n$`),
    ],
    [["overrides", "cancel", ...kubeFlags(s)], /^error: overrides cancel needs the NAME of the override; list them with: fluxgate overrides\n$/],
    [["overrides", "list", "incident", ...kubeFlags(s)], /^error: overrides list takes no name/],
    [["overrides", "remove", "incident", ...kubeFlags(s)], /^error: overrides remove: the subcommands are list \(the default\) and cancel NAME\n$/],
    [["overrides", "cancel", "incident", "-o", "json", ...kubeFlags(s)], /^error: -o goes with overrides list, not with cancel\n$/],
  ];
  for (const [args, message] of cases) {
    const r = await fluxgate(...args);
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
    assert.match(r.stderr, message);
  }
});
