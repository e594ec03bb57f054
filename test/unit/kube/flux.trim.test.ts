// trimTarget: what the controller's cache keeps of a target answers every reader of src/kube/flux.ts as the whole object does, and is much smaller.

import assert from "node:assert/strict";
import { test } from "node:test";
import {
  appliedRevisionOf,
  fluxgateWroteAt,
  isReconciling,
  isSuspended,
  keyOf,
  managedByFluxgate,
  ownsSuspend,
  parentHeld,
  parentOf,
  pendingOf,
  sourceKeyOf,
  suspendOwners,
  trimTarget,
  type FluxObject,
} from "../../../src/kube/flux.ts";
import { FIELD_MANAGER, PARENT_RECONCILE, PARENT_RECONCILE_DISABLED } from "../../../src/api/constants.ts";

/** A time as the API server's JSON carries it (client-node's types say Date; the informers keep the text). */
const json = (time: string): Date => time as unknown as Date;

const statusFields = {
  "f:status": { "f:conditions": {}, "f:inventory": { "f:entries": {} }, "f:lastAppliedRevision": {}, "f:observedGeneration": {} },
  "f:metadata": { "f:finalizers": { ".": {}, 'v:"finalizers.fluxcd.io"': {} } },
};

/** A Kustomization as the API server sends it after a parent applied it, kustomize-controller reconciled it and fluxgate suspended it. */
function kustomization(overrides: { suspendOwner?: string; held?: boolean; reconciling?: boolean } = {}): FluxObject {
  const fluxgateFields: Record<string, unknown> = { "f:spec": { "f:suspend": {} } };
  if (overrides.held === true) fluxgateFields["f:metadata"] = { "f:annotations": { [`f:${PARENT_RECONCILE}`]: {} } };
  return {
    apiVersion: "kustomize.toolkit.fluxcd.io/v1",
    kind: "Kustomization",
    metadata: {
      name: "apps",
      namespace: "flux-system",
      uid: "0b7c2f4e-1111-2222-3333-444455556666",
      resourceVersion: "4242",
      generation: 3,
      creationTimestamp: new Date("2026-11-01T10:00:00Z"),
      labels: { "kustomize.toolkit.fluxcd.io/name": "parent", "kustomize.toolkit.fluxcd.io/namespace": "flux-system", "fluxgate.io/window": "w" },
      annotations: {
        ...(overrides.held === true ? { [PARENT_RECONCILE]: PARENT_RECONCILE_DISABLED } : {}),
        "kubectl.kubernetes.io/last-applied-configuration": JSON.stringify({ spec: { path: "./apps", interval: "10m", big: "x".repeat(2_000) } }),
      },
      finalizers: ["finalizers.fluxcd.io"],
      managedFields: [
        {
          manager: "kustomize-controller",
          operation: "Apply",
          apiVersion: "kustomize.toolkit.fluxcd.io/v1",
          time: json("2026-11-20T08:00:00Z"),
          fieldsType: "FieldsV1",
          fieldsV1: {
            "f:spec": {
              "f:path": {},
              "f:interval": {},
              "f:prune": {},
              "f:sourceRef": {},
              ...(overrides.suspendOwner === "kustomize-controller" ? { "f:suspend": {} } : {}),
            },
          },
        },
        {
          manager: "kustomize-controller",
          operation: "Update",
          subresource: "status",
          apiVersion: "kustomize.toolkit.fluxcd.io/v1",
          time: json("2026-11-20T08:01:00Z"),
          fieldsType: "FieldsV1",
          fieldsV1: statusFields,
        },
        {
          manager: FIELD_MANAGER,
          operation: "Apply",
          apiVersion: "kustomize.toolkit.fluxcd.io/v1",
          time: json("2026-11-20T09:00:00Z"),
          fieldsType: "FieldsV1",
          fieldsV1: fluxgateFields,
        },
        ...(overrides.suspendOwner === "flux"
          ? [{ manager: "flux", operation: "Update", time: json("2026-11-20T09:30:00Z"), fieldsType: "FieldsV1", fieldsV1: { "f:spec": { "f:suspend": {} } } }]
          : []),
      ],
    },
    spec: {
      interval: "10m",
      path: "./apps",
      prune: true,
      suspend: true,
      sourceRef: { kind: "GitRepository", name: "gitops" },
      postBuild: { substitute: { a: "b" } },
    },
    status: {
      observedGeneration: 3,
      lastAppliedRevision: "main@sha1:aaaa",
      lastAttemptedRevision: "main@sha1:bbbb",
      conditions: [
        {
          type: "Ready",
          status: overrides.reconciling === true ? "Unknown" : "True",
          reason: "ReconciliationSucceeded",
          message: "Applied revision: main@sha1:aaaa".repeat(5),
          lastTransitionTime: "2026-11-20T08:01:00Z",
        },
        {
          type: "Reconciling",
          status: overrides.reconciling === true ? "True" : "False",
          reason: "Progressing",
          message: "…",
          lastTransitionTime: "2026-11-20T08:01:00Z",
        },
      ],
      inventory: { entries: Array.from({ length: 50 }, (_, i) => ({ id: `apps_deployment-${i}_apps_Deployment`, v: "v1" })) },
    },
  };
}

const readers = (o: FluxObject): unknown => ({
  key: keyOf(o),
  suspended: isSuspended(o),
  owners: suspendOwners(o),
  managed: managedByFluxgate(o),
  ownsSuspend: ownsSuspend(o),
  wroteAt: fluxgateWroteAt(o),
  parentHeld: parentHeld(o),
  parent: parentOf(o),
  reconciling: isReconciling(o),
  applied: appliedRevisionOf(o),
  source: sourceKeyOf(o),
  pending: pendingOf(o, { kind: "GitRepository", status: { artifact: { revision: "main@sha1:cccc", lastUpdateTime: "2026-11-20T10:00:00Z" } } }),
  labels: o.metadata?.labels,
  uid: o.metadata?.uid,
  resourceVersion: o.metadata?.resourceVersion,
  generation: o.metadata?.generation,
  apiVersion: o.apiVersion,
});

test("every reader gives the same answer from the trimmed target as from the whole one", () => {
  const cases = [
    kustomization(),
    kustomization({ suspendOwner: "kustomize-controller" }),
    kustomization({ suspendOwner: "flux", held: true }),
    kustomization({ reconciling: true }),
    {
      apiVersion: "helm.toolkit.fluxcd.io/v2",
      kind: "HelmRelease",
      metadata: { name: "h", namespace: "n", resourceVersion: "1" },
      spec: { suspend: false },
      status: { helmChart: "n/n-h", lastAttemptedRevision: "1.2.3" },
    } satisfies FluxObject,
    { kind: "Kustomization", metadata: { name: "bare" } } satisfies FluxObject,
  ];
  for (const whole of cases) assert.deepEqual(readers(trimTarget(whole)), readers(whole), `${whole.metadata?.name ?? ""}`);
});

test("the trimmed target leaves out what nobody reads", () => {
  const whole = kustomization({ held: true });
  const trimmed = trimTarget(whole);
  assert.equal(trimmed.metadata?.annotations?.["kubectl.kubernetes.io/last-applied-configuration"], undefined);
  assert.equal(trimmed.metadata?.annotations?.[PARENT_RECONCILE], PARENT_RECONCILE_DISABLED);
  assert.deepEqual(trimmed.spec, { suspend: true, sourceRef: { kind: "GitRepository", name: "gitops" } });
  assert.equal(trimmed.status?.inventory, undefined);
  assert.deepEqual(trimmed.status?.conditions?.[0], { type: "Ready", status: "True", reason: "ReconciliationSucceeded" });
  assert.deepEqual(
    trimmed.metadata?.managedFields?.map((m) => m.manager),
    [FIELD_MANAGER],
    "of the managed fields only fluxgate's entry: the others own no spec.suspend",
  );
  const size = (o: unknown): number => JSON.stringify(o).length;
  assert.ok(size(trimmed) * 5 < size(whole), `trimmed ${size(trimmed)} bytes of ${size(whole)}`);
});
