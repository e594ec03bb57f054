// Planning a target from every window and override that selects it: selection, precedence, conflicts, holds.

import assert from "node:assert/strict";
import { test } from "node:test";
import { matchesSelector, planTarget, rawTargets, SelectorError, windowsSelecting, type WindowView } from "../../../src/policy/index.ts";
import { compileWindow } from "../../../src/schedule/index.ts";

const NOW = Date.parse("2026-11-25T12:00:00Z"); // Wednesday

function view(name: string, timing: Parameters<typeof compileWindow>[1], extra: Partial<WindowView> = {}): WindowView {
  return {
    key: `flux-system/${name}`,
    namespace: "flux-system",
    name,
    mode: "Suspend",
    compiled: compileWindow(name, timing),
    targets: [{ kind: "Kustomization", name: "apps-rw" }],
    closeGracePeriodMs: 300_000,
    onRevert: "Hold",
    gatedSource: null,
    deleting: false,
    ...extra,
  };
}

const target = {
  apiVersion: "kustomize.toolkit.fluxcd.io/v1",
  kind: "Kustomization",
  metadata: { name: "apps-rw", namespace: "flux-system", labels: { tier: "window" } },
};

test("label selectors follow Kubernetes semantics", () => {
  assert.equal(matchesSelector({}, {}), true);
  assert.equal(matchesSelector({ matchLabels: { a: "1" } }, { a: "1", b: "2" }), true);
  assert.equal(matchesSelector({ matchLabels: { a: "1" } }, { a: "2" }), false);
  assert.equal(matchesSelector({ matchExpressions: [{ key: "a", operator: "In", values: ["1", "2"] }] }, { a: "2" }), true);
  assert.equal(matchesSelector({ matchExpressions: [{ key: "a", operator: "NotIn", values: ["1"] }] }, {}), true);
  assert.equal(matchesSelector({ matchExpressions: [{ key: "a", operator: "Exists" }] }, {}), false);
  assert.equal(matchesSelector({ matchExpressions: [{ key: "a", operator: "DoesNotExist" }] }, { a: "" }), false);
});

test("a selector the API server would refuse is an error that names the field, never a guess", () => {
  assert.throws(
    () => matchesSelector({ matchExpressions: [{ key: "a", operator: "Equals", values: ["1"] }] }, { a: "1" }),
    (e: unknown) => {
      assert.ok(e instanceof SelectorError);
      assert.equal(e.message, 'matchExpressions[0].operator: "Equals" is not a label selector operator: use one of In, NotIn, Exists, DoesNotExist');
      return true;
    },
  );
  assert.throws(
    () => matchesSelector({ matchExpressions: [{ key: "a", operator: "In" }] }, {}),
    /matchExpressions\[0\]\.values: must not be empty with operator In/,
  );
  assert.throws(() => matchesSelector({ matchExpressions: [{ key: "a", operator: "Exists", values: ["x"] }] }, {}), /must be empty with operator Exists/);
  // An invalid window still protects what it names; an entry whose selector cannot be read selects nothing.
  assert.deepEqual(
    rawTargets({
      targets: [
        { kind: "Kustomization", name: "apps-rw" },
        { kind: "Kustomization", labelSelector: { matchExpressions: [{ key: "a", operator: "Equals" }] } },
        { name: "no-kind" },
      ],
    }),
    [{ kind: "Kustomization", name: "apps-rw" }],
  );
});

test("a window selects by kind, namespace (default its own) and name or labels; deleting windows select nothing", () => {
  const byName = view("a", {});
  const byLabel = view("b", {}, { targets: [{ kind: "Kustomization", labelSelector: { matchLabels: { tier: "window" } } }] });
  const otherNs = view("c", {}, { targets: [{ kind: "Kustomization", name: "apps-rw", namespace: "apps" }] });
  const otherKind = view("d", {}, { targets: [{ kind: "HelmRelease", name: "apps-rw" }] });
  const deleting = view("e", {}, { deleting: true });
  assert.deepEqual(
    windowsSelecting(target, [byName, byLabel, otherNs, otherKind, deleting]).map((w) => w.name),
    ["a", "b"],
  );
});

test("no window: release; an invalid window: hold; only Gate windows: gate", () => {
  assert.equal(planTarget([], [], NOW).action, "release");
  const invalid = view("bad", {}, { compiled: null });
  const plan = planTarget([view("ok", {}), invalid], [], NOW);
  assert.equal(plan.action, "hold");
  assert.equal(plan.action === "hold" && plan.reason, "InvalidWindow");
  const gate = planTarget([view("g", { schedules: [{ start: "0 8 * * WED", duration: "8h" }] }, { mode: "Gate" })], [], NOW);
  assert.equal(gate.action, "gate", "Gate mode lets go of spec.suspend");
  assert.equal(gate.action === "gate" && gate.open, true);
});

test("windows of both modes: held closed whatever the windows say and whatever order they come in", () => {
  const open = { schedules: [{ start: "0 0 * * *", duration: "24h" }] };
  const suspend = view("s", open);
  const gate = view("g", open, { mode: "Gate" });
  for (const order of [
    [suspend, gate],
    [gate, suspend],
  ]) {
    const plan = planTarget(order, [], NOW);
    assert.equal(plan.action, "enforce");
    assert.equal(plan.action === "enforce" && plan.open, false, "nothing new goes out while the modes conflict");
    assert.equal(plan.action === "enforce" && plan.decision.until, null, "no schedule ends a conflict");
    assert.match(plan.action === "enforce" ? (plan.conflict ?? "") : "", /different modes \(s: Suspend, g: Gate\)|different modes \(g: Gate, s: Suspend\)/);
  }
  // An Open override of either window does not let a conflicted target through either.
  const hotfix = { namespace: "flux-system", name: "hotfix", window: "s", action: "Open" as const, start: NOW - 1000, end: NOW + 3_600_000, reason: "INC-1" };
  const overridden = planTarget([suspend, gate], [hotfix], NOW);
  assert.equal(overridden.action === "enforce" && overridden.open, false);
});

test("onRevert: Hold unless every selecting window says Reassert", () => {
  const plan = (a: "Hold" | "Reassert", b: "Hold" | "Reassert"): string | false => {
    const p = planTarget([view("a", {}, { onRevert: a }), view("b", {}, { onRevert: b })], [], NOW);
    return p.action === "enforce" && p.onRevert;
  };
  assert.equal(plan("Hold", "Reassert"), "Hold");
  assert.equal(plan("Reassert", "Reassert"), "Reassert");
});

test("precedence across windows: a freeze of one beats the allow of another; an Open override beats the freeze; a Freeze override beats all", () => {
  const allow = view("allow", { schedules: [{ start: "0 8 * * MON", end: "0 17 * * THU" }] });
  const freeze = view("freeze", { freezes: [{ start: "0 0 * * WED", duration: "24h", reason: "No Wednesday deploys" }] });
  const plan = planTarget([allow, freeze], [], NOW);
  assert.equal(plan.action === "enforce" && plan.open, false);
  assert.equal(plan.action === "enforce" && plan.decision.cause?.window, "freeze");
  const open = {
    namespace: "flux-system",
    name: "hotfix",
    window: "freeze",
    action: "Open" as const,
    start: NOW - 1000,
    end: NOW + 3_600_000,
    reason: "INC-1",
  };
  const opened = planTarget([allow, freeze], [open], NOW);
  assert.equal(opened.action === "enforce" && opened.open, true);
  assert.equal(opened.action === "enforce" && opened.decision.until, NOW + 3_600_000);
  const stop = { ...open, name: "stop", window: "allow", action: "Freeze" as const };
  const stopped = planTarget([allow, freeze], [open, stop], NOW);
  assert.equal(stopped.action === "enforce" && stopped.open, false);
  // An override of a window that does not select the target has no effect on it.
  const elsewhere = { ...open, window: "unrelated" };
  const unaffected = planTarget([allow, freeze], [elsewhere], NOW);
  assert.equal(unaffected.action === "enforce" && unaffected.open, false);
});

test("the longest grace period of the selecting windows applies", () => {
  const plan = planTarget([view("a", {}, { closeGracePeriodMs: 60_000 }), view("b", {}, { closeGracePeriodMs: 600_000 })], [], NOW);
  assert.equal(plan.action === "enforce" && plan.closeGracePeriodMs, 600_000);
});

test("a frozen list of windows, indexed by kind and namespace, selects the same windows in the same order as a scan", () => {
  // A small generator with a fixed seed: windows in three namespaces naming two kinds by name, by selector or in another
  // namespace, some of them deleting; every target of the same space is looked up both ways.
  let seed = 7;
  const next = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  const namespaces = ["flux-system", "apps", "infra"];
  const kinds = ["Kustomization", "HelmRelease"];
  const names = ["a", "b", "c", "d"];
  const outcomes = new Set<string>();
  let acrossNamespaces = 0;
  for (let round = 0; round < 50; round++) {
    const windows: WindowView[] = Array.from({ length: 1 + next(12) }, (_, i) =>
      view(
        `w${i}`,
        {},
        {
          key: `${namespaces[i % 3]}/w${i}`,
          namespace: namespaces[i % 3] as string,
          deleting: next(6) === 0,
          targets: Array.from({ length: 1 + next(3) }, () => ({
            kind: kinds[next(2)] as string,
            ...(next(3) === 0 ? { namespace: namespaces[next(3)] as string } : {}),
            ...(next(2) === 0 ? { name: names[next(4)] as string } : { labelSelector: { matchLabels: { tier: names[next(4)] as string } } }),
          })),
        },
      ),
    );
    // Every fifth round, one window twice in the list (a controller given the same namespace twice has it in two informers).
    if (round % 5 === 0) windows.push(windows[0] as WindowView);
    const frozen = Object.freeze([...windows]);
    for (const namespace of namespaces)
      for (const kind of kinds)
        for (const name of names) {
          const t = { kind, namespace, name, labels: { tier: names[next(4)] as string } };
          const scanned = windowsSelecting(t, windows).map((w) => w.key);
          outcomes.add(scanned.length === 0 ? "none" : scanned.length === 1 ? "one" : "several");
          acrossNamespaces += scanned.filter((k) => !k.startsWith(`${namespace}/`)).length;
          assert.deepEqual(
            windowsSelecting(t, frozen).map((w) => w.key),
            scanned,
            `${kind} ${namespace}/${name} among ${JSON.stringify(windows.map((w) => [w.key, w.deleting, w.targets]))}`,
          );
        }
  }
  // The generator reached every case: targets selected by none, one and several windows, and through another namespace's window.
  assert.deepEqual([...outcomes].sort(), ["none", "one", "several"]);
  assert.ok(acrossNamespaces > 0);
});
