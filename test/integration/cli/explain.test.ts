// `fluxgate explain KIND/NAME`: every window and override that selects one Flux object, the decision and its rule, revisions, next change.

import assert from "node:assert/strict";
import { test } from "node:test";
import { parse } from "yaml";
import { explain } from "../../../src/cli/explain.ts";
import type { ExplainResult } from "../../../src/cli/format/explain.ts";
import { FLEET_NOW, fluxgate, GITREPOSITORIES, kustomization, sharedFleet, window } from "./helpers.ts";

const fleet = sharedFleet();
const SNAPSHOTS = new URL("__snapshots__/", import.meta.url).pathname;

async function text(object: string, namespace: string): Promise<string> {
  const { kubeconfig } = await fleet();
  return explain({ kubeconfig, namespace, object, output: "text", color: false, now: FLEET_NOW });
}

test("a target held by a freeze of one window against another that is open: the rule, what it beats, the next change, the waiting revision", async (t) => {
  const out = await text("kustomization/apps-rw", "flux-system");
  t.assert.fileSnapshot(out, `${SNAPSHOTS}explain-apps-rw.txt`, { serializers: [(v) => String(v)] });
  assert.match(out, /^Decision {4}Frozen: takes no changes until Tue 2027-01-05 00:00 CET \(in 13d13h\)$/m);
  assert.match(out, /^ {12}Frozen by freeze "Holiday freeze" \(2026-12-20T00:00 → 2027-01-05T00:00\), of window holiday-freeze\.$/m);
  assert.match(out, /^ {12}This beats window weekday-changes \(alone: Open by schedule "0 8 \* \* MON → 0 17 \* \* THU"\)\.$/m);
  assert.match(out, /^Next {8}opens Tue 2027-01-05 00:00 CET \(in 13d13h\): Open by schedule "0 8 \* \* MON → 0 17 \* \* THU", of window weekday-changes$/m);
  assert.match(out, /^Pending {5}main@sha1:7d3e1f0a9b8c2d4e6f708192a3b4c5d6e7f80912, waiting 2h47m$/m);
});

test("-o json: the decision, its rule, the next change, revisions, windows and overrides as a stable structure", async () => {
  const { kubeconfig } = await fleet();
  const r = await fluxgate("explain", "ks/apps-rw", "--kubeconfig", kubeconfig, "-n", "flux-system", "-o", "json");
  assert.equal(r.code, 0, r.stderr);
  const got = JSON.parse(r.stdout) as ExplainResult;
  assert.deepEqual(got.target, { kind: "Kustomization", namespace: "flux-system", name: "apps-rw" });
  // The CLI evaluates at its own clock: the holiday freeze decides until 5 January whatever the day in these tests.
  assert.equal(got.decision.effect, "enforce");
  assert.deepEqual(got.revisions, {
    applied: "main@sha1:2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c",
    pending: "main@sha1:7d3e1f0a9b8c2d4e6f708192a3b4c5d6e7f80912",
    revisions: 1,
    waitingSince: "2026-12-22T07:00:00Z",
    source: "GitRepository/flux-system/gitops",
  });
  assert.deepEqual(got.suspend, { value: true, managers: ["fluxgate"] });
  assert.deepEqual(
    got.windows.map((w) => [w.namespace, w.name, w.mode, w.valid]),
    [
      ["flux-system", "weekday-changes", "Suspend", true],
      ["flux-system", "holiday-freeze", "Suspend", true],
    ].sort((a, b) => String(a[1]).localeCompare(String(b[1]))),
  );
  assert.deepEqual(got.overrides, []);
  assert.deepEqual(got.violations, []);
  assert.deepEqual(Object.keys(got), [
    "target",
    "decision",
    "next",
    "suspend",
    "revisions",
    "windows",
    "overrides",
    "recurrences",
    "violations",
    "observed",
    "notes",
  ]);
  assert.deepEqual(Object.keys(got.decision), ["effect", "state", "mayTakeChanges", "overridden", "rule", "since", "until", "message"]);
});

test("-o json at the fleet's instant: Frozen by the holiday freeze until 5 January, then open by the weekday schedule", async () => {
  const { kubeconfig } = await fleet();
  const got = JSON.parse(
    await explain({ kubeconfig, namespace: "flux-system", object: "kustomization/apps-rw", output: "json", color: false, now: FLEET_NOW }),
  );
  assert.deepEqual(got.decision, {
    effect: "enforce",
    state: "Frozen",
    mayTakeChanges: false,
    overridden: false,
    rule: { window: "holiday-freeze", kind: "freeze", label: "2026-12-20T00:00 → 2027-01-05T00:00", reason: "Holiday freeze" },
    since: "2026-12-19T23:00:00Z",
    until: "2027-01-04T23:00:00Z",
    message: 'Frozen by freeze "Holiday freeze" (2026-12-20T00:00 → 2027-01-05T00:00) until Tue 2027-01-05 00:00 CET',
  });
  assert.deepEqual(got.next, {
    at: "2027-01-04T23:00:00Z",
    state: "Open",
    rule: { window: "weekday-changes", kind: "allow", label: "0 8 * * MON → 0 17 * * THU", reason: null },
  });
  assert.deepEqual(
    (got as ExplainResult).windows.map((w) => [w.name, w.state]),
    [
      ["holiday-freeze", "Frozen"],
      ["weekday-changes", "Open"],
    ],
  );
  const yaml = await explain({ kubeconfig, namespace: "flux-system", object: "kustomization/apps-rw", output: "yaml", color: false, now: FLEET_NOW });
  assert.deepEqual(parse(yaml), got);
});

test("KIND NAME works as KIND/NAME; a target no window selects is not governed; one an invalid window selects is held", async () => {
  const { kubeconfig, custom } = await fleet();
  const spaced = await fluxgate("explain", "Kustomization", "apps-rt", "--kubeconfig", kubeconfig, "-n", "flux-system");
  assert.equal(spaced.code, 0, spaced.stderr);
  assert.match(spaced.stdout, /^Decision {4}Open: takes changes$/m);
  assert.match(spaced.stdout, /^ {12}Open by schedule "0 0 \* \* \* → \+24h", of window live-config\.$/m);
  await kustomization(custom, "flux-system", "tools");
  const free = await text("kustomization/tools", "flux-system");
  assert.match(free, /^Decision {4}Not governed: takes changes as Flux applies them\n {12}No window selects it: fluxgate leaves it alone\.$/m);
  assert.match(free, /^No window selects it\.$/m);
  await kustomization(custom, "edge", "legacy-app");
  const held = await text("ks/legacy-app", "edge");
  assert.match(held, /^Decision {4}Held: fluxgate leaves it as it is, suspended or not\n {12}Window legacy is invalid\.$/m);
  assert.match(held, /^ {2}edge\/legacy\s+Suspend\s+invalid spec: spec\.schedules\[0\]\.start: cron "0 0 30 2 \*": names a date that never exists/m);
});

test("in Gate mode the same decision holds the revision, not spec.suspend", async () => {
  const { kubeconfig, custom } = await fleet();
  await kustomization(custom, "edge", "gated-app");
  await window(custom, "edge", "gated", {
    timeZone: "America/New_York",
    schedules: [{ start: "0 22 * * *", duration: "2h" }],
    targets: [{ kind: "Kustomization", name: "gated-app" }],
    mode: "Gate",
    gate: { upstream: { kind: "GitRepository", name: "gitops" }, gatedName: "gitops-gated" },
  });
  const got = JSON.parse(
    await explain({ kubeconfig, namespace: "edge", object: "ks/gated-app", output: "json", color: false, now: FLEET_NOW }),
  ) as ExplainResult;
  assert.equal(got.decision.effect, "gate");
  assert.equal(got.decision.state, "Closed");
  assert.equal(got.next?.at, "2026-12-23T03:00:00Z");
  const out = await text("ks/gated-app", "edge");
  assert.match(out, /^Gate {8}Gate mode: Flux keeps reconciling and healing; only the revision of the gated source is held$/m);
});

test("bad input is exit 2 with a hint: an unknown kind, a missing object, no name", async () => {
  const { kubeconfig } = await fleet();
  const kind = await fluxgate("explain", "deployment/web", "--kubeconfig", kubeconfig, "-n", "flux-system");
  assert.equal(kind.code, 2);
  assert.match(kind.stderr, /^error: deployment: not a kind a window can govern; one of kustomization, helmrelease, /);
  const missing = await fluxgate("explain", "ks/nope", "--kubeconfig", kubeconfig, "-n", "flux-system");
  assert.equal(missing.code, 2);
  assert.equal(missing.stderr, 'error: Kustomization "nope" not found in namespace flux-system\n');
  const bare = await fluxgate("explain", "kustomization", "--kubeconfig", kubeconfig);
  assert.equal(bare.code, 2);
  assert.match(bare.stderr, /give the object as KIND\/NAME, e\.g\. kustomization\/apps-rw/);
  const none = await fluxgate("explain", "--kubeconfig", kubeconfig);
  assert.equal(none.code, 2);
  assert.match(none.stderr, /^error: explain needs KIND\/NAME\n/);
});

test("in Gate mode, pending is the upstream revision the pin holds back, not what the gated source offers", async () => {
  const { kubeconfig, custom } = await fleet();
  const A = "a".repeat(40);
  const B = "b".repeat(40);
  const source = async (name: string, ref: Record<string, string>, revision: string): Promise<void> => {
    await custom.createNamespacedCustomObject({
      ...GITREPOSITORIES,
      namespace: "edge",
      body: {
        apiVersion: "source.toolkit.fluxcd.io/v1",
        kind: "GitRepository",
        metadata: { name },
        spec: { url: "https://git.example/fleet.git", interval: "1m", ref },
      },
    });
    await custom.patchNamespacedCustomObjectStatus({
      ...GITREPOSITORIES,
      namespace: "edge",
      name,
      body: [
        {
          op: "add",
          path: "/status",
          value: { artifact: { path: "x", url: "http://x/x.tar.gz", revision, digest: `sha256:${"0".repeat(64)}`, lastUpdateTime: "2026-12-22T08:00:00Z" } },
        },
      ],
    });
  };
  await source("upstream-p", { branch: "main" }, `main@sha1:${B}`);
  await source("upstream-p-gated", { branch: "main", commit: A }, `main@sha1:${A}`);
  await custom.createNamespacedCustomObject({
    group: "kustomize.toolkit.fluxcd.io",
    version: "v1",
    plural: "kustomizations",
    namespace: "edge",
    body: {
      apiVersion: "kustomize.toolkit.fluxcd.io/v1",
      kind: "Kustomization",
      metadata: { name: "pinned-app" },
      spec: { interval: "10m", path: "./deploy", prune: true, sourceRef: { kind: "GitRepository", name: "upstream-p-gated" } },
    },
  });
  await custom.patchNamespacedCustomObjectStatus({
    group: "kustomize.toolkit.fluxcd.io",
    version: "v1",
    plural: "kustomizations",
    namespace: "edge",
    name: "pinned-app",
    body: [{ op: "add", path: "/status", value: { lastAppliedRevision: `main@sha1:${A}` } }],
  });
  await window(custom, "edge", "pinned", {
    schedules: [{ start: "0 0 1 1 *", duration: "1h" }],
    targets: [{ kind: "Kustomization", name: "pinned-app" }],
    mode: "Gate",
    gate: { upstream: { kind: "GitRepository", name: "upstream-p" }, gatedName: "upstream-p-gated" },
  });
  const got = JSON.parse(
    await explain({ kubeconfig, namespace: "edge", object: "ks/pinned-app", output: "json", color: false, now: FLEET_NOW }),
  ) as ExplainResult;
  assert.equal(got.decision.effect, "gate");
  assert.equal(got.revisions.applied, `main@sha1:${A}`);
  assert.equal(got.revisions.pending, `main@sha1:${B}`, "the upstream is ahead of the pin");
  const out = await text("ks/pinned-app", "edge");
  assert.match(out, new RegExp(`^Pending {5}main@sha1:${B}`, "m"));
  assert.doesNotMatch(out, /Pending {5}nothing/);
});

test("a target selected by windows of both modes is held closed until the conflict is resolved, and never said to go out", async () => {
  const { kubeconfig, custom } = await fleet();
  await kustomization(custom, "edge", "conflicted", { applied: "main@sha1:1111111111111111111111111111111111111111" });
  await window(custom, "edge", "conflict-suspend", {
    schedules: [{ start: "0 0 * * *", duration: "24h" }],
    targets: [{ kind: "Kustomization", name: "conflicted" }],
  });
  await window(custom, "edge", "conflict-gate", {
    schedules: [{ start: "0 0 * * *", duration: "24h" }],
    targets: [{ kind: "Kustomization", name: "conflicted" }],
    mode: "Gate",
    gate: { upstream: { kind: "GitRepository", name: "gitops" }, gatedName: "gitops-conflict" },
  });
  const got = JSON.parse(
    await explain({ kubeconfig, namespace: "edge", object: "ks/conflicted", output: "json", color: false, now: FLEET_NOW }),
  ) as ExplainResult;
  assert.equal(got.decision.effect, "enforce");
  assert.equal(got.decision.mayTakeChanges, false);
  assert.match(got.decision.message, /^Held closed: selected by windows of different modes/);
  assert.equal(got.next, null);
  const out = await text("ks/conflicted", "edge");
  assert.match(out, /^Decision {4}Held closed: takes no changes until one mode governs it$/m);
  assert.match(out, /^Next {8}no change until the conflict is resolved/m);
  assert.doesNotMatch(out, /goes out/);
});

test("a target governed by recurrence rules: each rule, in words, and its next interval in the window's zone (text and -o json)", async () => {
  const { kubeconfig, custom } = await fleet();
  await window(custom, "edge", "os-patching", {
    timeZone: "Europe/Berlin",
    schedules: [{ recurrence: "FREQ=MONTHLY;BYDAY=2SU", at: "02:00", endAt: "06:00" }],
    freezes: [{ recurrence: "FREQ=YEARLY;BYMONTH=12;BYMONTHDAY=24,25,26", at: "00:00", duration: "24h", reason: "Christmas" }],
    targets: [{ kind: "Kustomization", name: "patched-nodes" }],
  });
  await kustomization(custom, "edge", "patched-nodes");
  const out = await text("ks/patched-nodes", "edge");
  assert.match(
    out,
    /^Next {8}freezes Thu 00:00 CET \(in 1d13h\): Frozen by freeze "Christmas" \(FREQ=YEARLY;BYMONTH=12;BYMONTHDAY=24,25,26 at 00:00 → \+24h\), of window os-patching$/m,
  );
  assert.match(out, /^ {12}goes out when it opens: Sun 2027-01-10 02:00 CET \(in 18d15h\)$/m);
  assert.match(
    out,
    /^Recurrence rules of these windows \(2\):\n {2}edge\/os-patching spec\.schedules\[0\]: FREQ=MONTHLY;BYDAY=2SU at 02:00 → 06:00\n {4}the second Sunday of each month; next Sun 2027-01-10 02:00 CET \(in 18d15h\) → Sun 2027-01-10 06:00 CET\n {2}edge\/os-patching spec\.freezes\[0\] \(freeze\): FREQ=YEARLY;BYMONTH=12;BYMONTHDAY=24,25,26 at 00:00 → \+24h\n {4}day 24, day 25 or day 26 of December, each year; next Thu 00:00 CET \(in 1d13h\) → Fri 00:00 CET$/m,
  );
  const json = JSON.parse(
    await explain({ kubeconfig, namespace: "edge", object: "ks/patched-nodes", output: "json", color: false, now: FLEET_NOW }),
  ) as ExplainResult;
  assert.deepEqual(json.recurrences[0], {
    namespace: "edge",
    window: "os-patching",
    kind: "allow",
    path: "spec.schedules[0]",
    rule: "FREQ=MONTHLY;BYDAY=2SU",
    words: "the second Sunday of each month",
    label: "FREQ=MONTHLY;BYDAY=2SU at 02:00 → 06:00",
    active: false,
    next: { start: "2027-01-10T01:00:00Z", end: "2027-01-10T05:00:00Z", local: "Sun 2027-01-10 02:00 CET → Sun 2027-01-10 06:00 CET" },
  });
});
