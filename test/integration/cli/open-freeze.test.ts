// `fluxgate open|freeze`: a WindowOverride that changes the targets within a second and ends on its own; what is refused.

import assert from "node:assert/strict";
import { test } from "node:test";
import { parse } from "yaml";
import { sharedControlPlane, waitFor } from "../../harness/index.ts";
import { ALWAYS, createKustomization, createWindow, setup, startController, waitForSuspend, YEARLY, type Setup } from "../controller/helpers.ts";
import { openOrFreeze } from "../../../src/cli/open.ts";
import type { OverrideRow } from "../../../src/cli/overrides.ts";
import { fluxgate, kubeFlags, listOverrides } from "./helpers.ts";

const plane = sharedControlPlane();

/** When the test first sees a WindowOverride in the namespace (polled every 50 ms). */
function overrideSeen(s: Setup): Promise<number> {
  return waitFor("the override", async () => ((await listOverrides(s.custom, s.namespace)).length > 0 ? Date.now() : undefined), {
    timeoutMs: 30_000,
    intervalMs: 50,
  });
}

test("open changes the targets within a second, shows in status and explain, and ends on its own", async () => {
  const s = await setup(plane());
  await createKustomization(s, "apps-rw");
  await createWindow(s, "weekday-changes", { timeZone: "Europe/Berlin", schedules: [YEARLY], targets: [{ kind: "Kustomization", name: "apps-rw" }] });
  const c = await startController(s);
  try {
    await waitForSuspend(s, "apps-rw", true);
    const started = Date.now();
    const opened = waitForSuspend(s, "apps-rw", false, 10_000);
    const created = overrideSeen(s);
    const r = await fluxgate("open", "weekday-changes", ...kubeFlags(s), "--for", "5s", "--reason", "hotfix INC-42", "--no-wait");
    const finished = Date.now();
    assert.equal(r.code, 0, r.stderr);
    // Measured from the override's creation: the CLI's own start is not the controller's reaction.
    assert.ok((await opened) - (await created) < 1_000, `the target opened ${(await opened) - (await created)} ms after the override was created`);
    const [o] = await listOverrides(s.custom, s.namespace);
    const name = o?.metadata?.name ?? "";
    assert.match(name, /^weekday-changes-open-\d{8}-\d{6}$/);
    assert.equal(o?.spec?.action, "Open");
    assert.equal(o?.spec?.reason, "hotfix INC-42");
    assert.match(o?.metadata?.annotations?.["fluxgate.io/requested-by"] ?? "", /.+/, "who asked for it is recorded");
    const until = Date.parse(o?.spec?.until ?? "");
    // Five seconds from the second the override was asked for (as its creation is recorded, to the second): exactly --for.
    const askedAt = Date.parse((o?.metadata as { creationTimestamp?: string } | undefined)?.creationTimestamp ?? "");
    assert.ok(
      until - Math.floor(started / 1000) * 1000 >= 5_000 && until - finished < 6_000,
      `until is ${until - started} ms after the start, ${until - finished} ms after the command finished`,
    );
    assert.ok(until - askedAt <= 5_000, `until is ${until - askedAt} ms after the override's creation: at most --for`);
    assert.match(
      r.stdout,
      new RegExp(
        `^Opened window weekday-changes in ${s.namespace} until \\w{3} \\d\\d:\\d\\d(:\\d\\d)? CET \\(in \\ds\\): windowoverride/${name}\\nReason: hotfix INC-42\\nIt ends on its own\\. To end it sooner: fluxgate overrides cancel ${name} -n ${s.namespace}\\n$`,
      ),
    );

    const st = await waitFor(
      "Overridden in status",
      async () => {
        const out = await fluxgate("status", ...kubeFlags(s));
        return /Overridden/.test(out.stdout) && /1\/1 open/.test(out.stdout) ? out.stdout : undefined;
      },
      { timeoutMs: 3_000, intervalMs: 100 },
    );
    assert.match(
      st,
      new RegExp(`^weekday-changes\\s+Overridden\\s+\\d+s\\s+override ends in \\ds, \\w{3} \\d\\d:\\d\\d(:\\d\\d)? CET\\s+1/1 open\\s+0\\s+${name}$`, "m"),
    );
    const ex = await fluxgate("explain", "kustomization/apps-rw", ...kubeFlags(s));
    assert.equal(ex.code, 0, ex.stderr);
    assert.match(ex.stdout, /^Decision {4}Open: takes changes until /m);
    assert.match(ex.stdout, new RegExp(`^ {12}Opened by override ${name} \\("hotfix INC-42"\\), of window weekday-changes\\.$`, "m"));
    assert.match(ex.stdout, new RegExp(`^ {2}${name}\\s+weekday-changes\\s+Open\\s+in \\ds, .*\\s+Active\\s+hotfix INC-42$`, "m"));

    const closed = await waitForSuspend(s, "apps-rw", true, 10_000);
    assert.ok(closed >= until && closed - until < 1_000, `closed ${closed - until} ms after until`);
    const list = await waitFor(
      "Expired",
      async () => {
        const out = await fluxgate("overrides", ...kubeFlags(s), "-o", "json");
        const row = (JSON.parse(out.stdout) as { overrides: OverrideRow[] }).overrides[0];
        return row?.phase === "Expired" ? row : undefined;
      },
      { timeoutMs: 5_000, intervalMs: 100 },
    );
    assert.equal(list.active, false);
  } finally {
    await c.stop();
  }
});

test("freeze stops an open window within a second, waits until the targets followed, and ends on its own", async () => {
  const s = await setup(plane());
  await createKustomization(s, "apps-rw");
  await createWindow(s, "always", { schedules: [ALWAYS], targets: [{ kind: "Kustomization", name: "apps-rw" }] });
  const c = await startController(s);
  try {
    await waitForSuspend(s, "apps-rw", false);
    await waitFor("owned", async () => ((await fluxgate("status", ...kubeFlags(s), "-o", "json")).stdout.includes('"open": 1') ? true : undefined));
    const frozen = waitForSuspend(s, "apps-rw", true, 10_000);
    const created = overrideSeen(s);
    const r = await fluxgate("freeze", "always", ...kubeFlags(s), "--for", "5s", "--reason", "incident INC-7: stop all rollouts");
    const finished = Date.now();
    assert.equal(r.code, 0, r.stderr);
    assert.ok((await frozen) - (await created) < 1_000, `the target froze ${(await frozen) - (await created)} ms after the override was created`);
    assert.match(
      r.stdout,
      /^Froze window always in .* until .*: windowoverride\/always-freeze-\d{8}-\d{6}\nReason: incident INC-7: stop all rollouts\nWindow always now: Overridden, 0\/1 targets open \(Frozen by override always-freeze-\d{8}-\d{6} \("incident INC-7: stop all rollouts"\) until .*\)\nIt ends on its own\./,
    );
    const reopened = await waitForSuspend(s, "apps-rw", false, 10_000);
    assert.ok(reopened - finished < 7_000, `reopened ${reopened - finished} ms after the command finished`);
  } finally {
    await c.stop();
  }
});

test("--until in the window's zone, --name, and -o json|yaml print the WindowOverride", async () => {
  const s = await setup(plane());
  await createWindow(s, "weekday-changes", { timeZone: "America/New_York", schedules: [YEARLY], targets: [{ kind: "Kustomization", name: "apps-rw" }] });
  // One hour ahead, written as a wall-clock time in New York.
  const until = Math.floor((Date.now() + 3_600_000) / 60_000) * 60_000;
  const parts = new Intl.DateTimeFormat("en-CA", {
    timeZone: "America/New_York",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
  }).formatToParts(until);
  const get = (type: string): string => parts.find((p) => p.type === type)?.value ?? "";
  const local = `${get("year")}-${get("month")}-${get("day")}T${get("hour")}:${get("minute")}`;
  const r = await fluxgate(
    "open",
    "weekday-changes",
    ...kubeFlags(s),
    "--until",
    local,
    "--reason",
    "planned migration CHG-981",
    "--name",
    "migration",
    "-o",
    "json",
    "--no-wait",
  );
  assert.equal(r.code, 0, r.stderr);
  const o = JSON.parse(r.stdout);
  assert.equal(o.kind, "WindowOverride");
  assert.equal(o.metadata.name, "migration");
  assert.equal(o.metadata.managedFields, undefined);
  assert.deepEqual(o.spec, {
    windowRef: { name: "weekday-changes" },
    action: "Open",
    until: new Date(until).toISOString().replace(".000Z", "Z"),
    reason: "planned migration CHG-981",
  });
  const y = await fluxgate("freeze", "weekday-changes", ...kubeFlags(s), "--for", "90m", "--reason", "demo", "--name", "demo", "-o", "yaml", "--no-wait");
  assert.equal(y.code, 0, y.stderr);
  assert.equal(parse(y.stdout).spec.action, "Freeze");
  const again = await fluxgate("freeze", "weekday-changes", ...kubeFlags(s), "--for", "90m", "--reason", "demo", "--name", "demo", "--no-wait");
  assert.equal(again.code, 2);
  assert.match(again.stderr, /^error: cannot create windowoverrides\.fluxgate\.io "demo" in namespace .*: .*already exists/);
});

test("exactly 7 days is allowed, and the controller agrees (the end is counted from the creation second)", async () => {
  const s = await setup(plane());
  await createWindow(s, "weekday-changes", { schedules: [YEARLY], targets: [{ kind: "Kustomization", name: "apps-rw" }] });
  const c = await startController(s);
  try {
    const r = await fluxgate("freeze", "weekday-changes", ...kubeFlags(s), "--for", "168h", "--reason", "release freeze for the audit");
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^Window weekday-changes now: Overridden/m);
    const [o] = await listOverrides(s.custom, s.namespace);
    assert.equal(o?.status?.phase, "Active");
  } finally {
    await c.stop();
  }
});

test("without a controller the override is created, and the command fails saying nobody took it", async () => {
  const s = await setup(plane());
  await createWindow(s, "weekday-changes", { schedules: [YEARLY], targets: [{ kind: "Kustomization", name: "apps-rw" }] });
  const failed = openOrFreeze({
    kubeconfig: s.cp.kubeconfigPath,
    namespace: s.namespace,
    action: "Open",
    window: "weekday-changes",
    for: "1h",
    reason: "hotfix",
    name: "hotfix",
    wait: true,
    waitTimeoutMs: 1_000,
    output: "text",
    color: false,
    now: Date.now(),
  });
  await assert.rejects(failed, (e: Error) => {
    assert.equal(e.name, "OperationalError");
    assert.match(e.message, /^The controller has not taken it within 1s: is it running\? \(kubectl -n fluxgate-system get deploy fluxgate-controller\)$/m);
    assert.match(e.message, /^It takes effect once the controller runs; to withdraw it: fluxgate overrides cancel hotfix -n /m);
    return true;
  });
  assert.equal((await listOverrides(s.custom, s.namespace))[0]?.metadata?.name, "hotfix");
});

test("refused with exit 2 and nothing created: more than 7 days, no reason, no end or two, an unknown window, an end in the past", async () => {
  const s = await setup(plane());
  await createWindow(s, "weekday-changes", { timeZone: "Europe/Berlin", schedules: [YEARLY], targets: [{ kind: "Kustomization", name: "apps-rw" }] });
  const f = kubeFlags(s);
  const cases: Array<[string[], RegExp]> = [
    [
      ["open", "weekday-changes", ...f, "--for", "169h", "--reason", "x"],
      /^error: --for 169h: an override lasts at most 7 days \(168h\): for longer, change the window's schedule or freezes in Git\n$/,
    ],
    [
      ["freeze", "weekday-changes", ...f, "--until", new Date(Date.now() + 8 * 86_400_000).toISOString(), "--reason", "x"],
      /^error: --until .*: an override lasts at most 7 days \(168h\): for longer, change the window's schedule or freezes in Git; that is until .* at the latest\n$/,
    ],
    [["open", "weekday-changes", ...f, "--for", "2h"], /^error: --reason is required: say why the window is opened, e\.g\. --reason "/],
    [["open", "weekday-changes", ...f, "--for", "2h", "--reason", "  "], /^error: --reason is required/],
    [["open", "weekday-changes", ...f, "--reason", "x"], /^error: give exactly one of --for DURATION .* and --until TIME .*: an override always ends\n$/],
    [["open", "weekday-changes", ...f, "--for", "2h", "--until", "2030-01-01T00:00:00Z", "--reason", "x"], /^error: give exactly one of --for/],
    [["open", "weekday-changes", ...f, "--for", "2d", "--reason", "x"], /^error: --for duration "2d" is not a Go duration/],
    [["open", "weekday-changes", ...f, "--until", "2020-01-01T00:00:00Z", "--reason", "x"], /^error: --until .* is not in the future\n$/],
    [["open", "weekday-changes", ...f, "--for", "1h", "--reason", "x", "--name", "Not_A_Name"], /^error: --name Not_A_Name: must be a Kubernetes name/],
    [
      ["open", "weekday-chnages", ...f, "--for", "1h", "--reason", "x"],
      new RegExp(`^error: window "weekday-chnages" not found in namespace ${s.namespace}\\nWindows in ${s.namespace}: weekday-changes\\.\\n$`),
    ],
    [["open", ...f, "--for", "1h", "--reason", "x"], /^error: open needs WINDOW\n/],
  ];
  for (const [args, message] of cases) {
    const r = await fluxgate(...args);
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
    assert.equal(r.stdout, "");
    assert.match(r.stderr, message, args.join(" "));
  }
  assert.deepEqual(await listOverrides(s.custom, s.namespace), []);
});

test("completion offers the windows of the cluster and namespace the words point at, with their state", async () => {
  const s = await setup(plane());
  await createWindow(s, "weekday-changes", { schedules: [YEARLY], targets: [{ kind: "Kustomization", name: "apps-rw" }] });
  await createWindow(s, "weekend", { schedules: [YEARLY], targets: [{ kind: "Kustomization", name: "apps-rw" }] });
  const c = await startController(s);
  try {
    await waitFor("reported", async () =>
      (await fluxgate("status", ...kubeFlags(s), "-o", "json")).stdout.match(/"Closed"/g)?.length === 2 ? true : undefined,
    );
    const r = await fluxgate("__complete", "--", "freeze", ...kubeFlags(s), "week");
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^weekday-changes\tClosed, opens in .*\nweekend\tClosed, opens in .*\n$/);
    // An unreachable cluster gives no window, quietly; the sub-command is still offered beside them.
    const unreachable = await fluxgate("__complete", "--", "freeze", "--kubeconfig", "/nonexistent", "");
    assert.equal(unreachable.code, 0);
    assert.equal(unreachable.stderr, "");
    assert.match(unreachable.stdout, /^import\t[^\n]+\n$/);
  } finally {
    await c.stop();
  }
});
