// Fleet scope: whether a window or override with a clusterSelector is this cluster's, from its identity ConfigMap, failing safe.

import assert from "node:assert/strict";
import { test } from "node:test";
import { fleetScope, overrideActsHere, overridesOf, readClusterIdentity, scopeWindowParts, Views } from "../../../src/policy/index.ts";
import { parseWith, ValidationError, WindowOverrideSpecSchema } from "../../../src/api/index.ts";

/** The override spec's problem, or null when valid. */
function validateOverride(spec: unknown): string | null {
  try {
    parseWith(WindowOverrideSpecSchema, spec, "spec");
    return null;
  } catch (e) {
    assert.ok(e instanceof ValidationError);
    return e.message;
  }
}

const identity = (labels: string): unknown => ({ data: { cluster: "edge-berlin", labels } });

test("the identity ConfigMap is read: a name and a YAML map of labels; anything else cannot be confirmed, and says why", () => {
  assert.deepEqual(readClusterIdentity(identity("region: eu\nring: prod\n")), {
    confirmed: true,
    cluster: "edge-berlin",
    labels: { region: "eu", ring: "prod" },
  });
  assert.deepEqual(readClusterIdentity({ data: { cluster: "edge-berlin" } }), { confirmed: true, cluster: "edge-berlin", labels: {} });
  const problems = [
    undefined,
    { data: {} },
    { data: { cluster: "Edge Berlin" } },
    identity("- ring"),
    identity("ring: 3"),
    identity("ring: [a]"),
    identity("bad key!: x"),
    identity("ring: {"),
  ].map((c) => {
    const r = readClusterIdentity(c);
    return r.confirmed ? "confirmed" : r.problem;
  });
  assert.deepEqual(problems, [
    "ConfigMap flux-system/fluxgate-cluster does not exist (fluxgate init writes it into the cluster's windows/ folder)",
    "ConfigMap flux-system/fluxgate-cluster: data.cluster must be the cluster's name in fluxgate.yaml (a DNS label)",
    "ConfigMap flux-system/fluxgate-cluster: data.cluster must be the cluster's name in fluxgate.yaml (a DNS label)",
    "ConfigMap flux-system/fluxgate-cluster: data.labels must be a YAML map of Kubernetes labels (key: value)",
    'ConfigMap flux-system/fluxgate-cluster: data.labels must be a YAML map of Kubernetes labels (key: value); "ring" is not one',
    'ConfigMap flux-system/fluxgate-cluster: data.labels must be a YAML map of Kubernetes labels (key: value); "ring" is not one',
    'ConfigMap flux-system/fluxgate-cluster: data.labels must be a YAML map of Kubernetes labels (key: value); "bad key!" is not one',
    "ConfigMap flux-system/fluxgate-cluster: data.labels must be a YAML map of Kubernetes labels (key: value)",
  ]);
});

test("scope: own without a selector; selected or not by the labels; unconfirmed without an identity — then schedules open nothing, freezes hold, an Open does nothing", () => {
  const prod = readClusterIdentity(identity("ring: prod\n"));
  const none = readClusterIdentity(undefined);
  assert.deepEqual(fleetScope(undefined, none), { kind: "own" });
  assert.equal(fleetScope({ matchLabels: { ring: "prod" } }, prod).kind, "selected");
  assert.equal(fleetScope({ matchExpressions: [{ key: "ring", operator: "NotIn", values: ["prod"] }] }, prod).kind, "not-selected");
  assert.equal(fleetScope({}, prod).kind, "selected", "an empty selector matches every cluster");
  assert.equal(fleetScope({ matchLabels: { ring: "prod" } }, none).kind, "unconfirmed");
  const parts = { compiled: { allow: [1, 2], freeze: [3] }, targets: ["t"] };
  assert.deepEqual(scopeWindowParts(fleetScope({ matchLabels: { ring: "lab" } }, prod), parts), { compiled: parts.compiled, targets: [] });
  assert.deepEqual(scopeWindowParts(fleetScope({ matchLabels: { ring: "lab" } }, none), parts), { compiled: { allow: [], freeze: [3] }, targets: ["t"] });
  assert.deepEqual(scopeWindowParts(fleetScope({ matchLabels: { ring: "prod" } }, prod), parts), parts);
  const unconfirmed = fleetScope({ matchLabels: { ring: "prod" } }, none);
  assert.deepEqual([overrideActsHere(unconfirmed, "Freeze"), overrideActsHere(unconfirmed, "Open")], [true, false]);
  const notMine = fleetScope({ matchLabels: { ring: "lab" } }, prod);
  assert.deepEqual([overrideActsHere(notMine, "Freeze"), overrideActsHere(notMine, "Open")], [false, false]);
});

test("a fleet window's view in Views: not this cluster's governs no target; unconfirmed opens by no schedule; scoped again when the identity changes", () => {
  const views = new Views();
  const window = {
    apiVersion: "fluxgate.io/v1alpha1",
    kind: "ReconciliationWindow",
    metadata: { name: "prod-changes", namespace: "flux-system", uid: "u1", generation: 1 },
    spec: {
      clusterSelector: { matchLabels: { ring: "prod" } },
      schedules: [{ start: "0 0 * * *", duration: "24h" }],
      targets: [{ kind: "Kustomization", name: "apps-rw" }],
    },
  };
  const now = Date.parse("2026-12-01T12:00:00Z");
  let e = views.window(window, now);
  assert.equal(e.view.fleet?.kind, "unconfirmed");
  assert.equal(e.view.compiled?.allow.length, 0);
  assert.equal(e.view.targets.length, 1);
  views.setIdentity(readClusterIdentity(identity("ring: canary\n")));
  e = views.window(window, now);
  assert.equal(e.view.fleet?.kind, "not-selected");
  assert.equal(e.view.targets.length, 0);
  views.setIdentity(readClusterIdentity(identity("ring: prod\n")));
  e = views.window(window, now);
  assert.equal(e.view.fleet?.kind, "selected");
  assert.equal(e.view.compiled?.allow.length, 1);
  assert.equal(e.view.targets.length, 1);
});

test("an override with a windowSelector applies to every window of its namespace whose labels match, as if it named it", () => {
  const o = { namespace: "flux-system", window: "", windowSelector: {}, name: "f", action: "Freeze" as const, start: 0, end: 1, reason: "r" };
  const named = { ...o, window: "apps-rw", windowSelector: undefined, name: "n" };
  const fleetOnly = { ...o, windowSelector: { matchExpressions: [{ key: "fluxgate.io/fleet-window", operator: "Exists" }] }, name: "g" };
  const w = { namespace: "flux-system", name: "apps-rw", labels: {} };
  assert.deepEqual(
    overridesOf(w, [o, named, fleetOnly]).map((x) => [x.name, x.window]),
    [
      ["f", "apps-rw"],
      ["n", "apps-rw"],
    ],
  );
  assert.deepEqual(overridesOf({ ...w, namespace: "other" }, [o]), []);
  assert.deepEqual(
    overridesOf({ ...w, labels: { "fluxgate.io/fleet-window": "apps-rw" } }, [fleetOnly]).map((x) => x.window),
    ["apps-rw"],
  );
});

test("an override names one window or selects windows: exactly one of windowRef and windowSelector", () => {
  const base = { action: "Freeze", until: "2026-12-01T18:00:00Z", reason: "r" };
  assert.equal(validateOverride({ ...base, windowRef: { name: "a" } }), null);
  assert.equal(validateOverride({ ...base, windowSelector: {}, clusterSelector: { matchLabels: { ring: "prod" } } }), null);
  assert.match(validateOverride(base) ?? "", /give exactly one of windowRef and windowSelector/);
  assert.match(validateOverride({ ...base, windowRef: { name: "a" }, windowSelector: {} }) ?? "", /give exactly one of windowRef and windowSelector/);
});
