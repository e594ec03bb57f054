// Gate mode: fluxgate owns a pinned copy of the upstream source; the pin follows upstream while the window is open and holds while closed.

import type { KubernetesObject } from "../kube/types.ts";
import { API_VERSION, type ReconciliationWindowSpec, type WindowStatus } from "../api/index.ts";
import { canonicalJson } from "../api/canonical.ts";
import { rfc3339 } from "../schedule/format.ts";
import { TARGET_RESOURCES } from "../kube/resources.ts";
import type { ReconcileContext } from "./context.ts";
import { GATE_RELEASED } from "../api/conditions.ts";
import { sourceKeyOf, type FluxObject } from "../kube/flux.ts";
import { objectKey } from "../policy/select.ts";
import { APPROVED_AT, APPROVED_BY, APPROVE_REASON, APPROVE_REVISION, FIELD_MANAGER, GATED_BY, RELEASED_FROM } from "../api/constants.ts";
import { revisionId } from "../policy/index.ts";

/** Event: the gated source was pinned to another revision. */
export const REVISION_PINNED = "RevisionPinned";

export type GateStatus = NonNullable<WindowStatus["gate"]>;

/** The upstream spec with the revision pinned: Git keeps its branch (so a shallow clone finds the commit), OCI pins the digest. */
export function pinnedSpec(kind: string, upstreamSpec: Record<string, unknown>, id: string): Record<string, unknown> {
  const { suspend: _suspend, ref, ...rest } = upstreamSpec;
  const branch = (ref as { branch?: unknown } | undefined)?.branch;
  if (kind === "OCIRepository") return { ...rest, ref: { digest: id } };
  return { ...rest, ref: { ...(typeof branch === "string" ? { branch } : {}), commit: id } };
}

function pinOf(kind: string, gated: FluxObject | undefined): string | undefined {
  const ref = gated?.spec?.ref as { commit?: string; digest?: string } | undefined;
  return kind === "OCIRepository" ? ref?.digest : ref?.commit;
}

/**
 * How many upstream revisions have arrived since the pin fell behind, and since when: carried
 * over from the previous status while the pin stays, one more for each new upstream revision.
 */
export function pendingSincePin(
  kind: string,
  previous: GateStatus | undefined,
  pin: string,
  upstreamRevision: string | undefined,
  arrivedAt: string | undefined,
): Pick<GateStatus, "pendingRevisions" | "pendingSince"> {
  const since = arrivedAt === undefined ? {} : { pendingSince: rfc3339(Date.parse(arrivedAt)) };
  const previousPin = previous?.pinnedRevision === undefined ? undefined : (revisionId(kind, previous.pinnedRevision) ?? previous.pinnedRevision);
  if (previous?.pendingRevisions === undefined || previousPin !== pin) return { pendingRevisions: 1, ...since };
  return {
    pendingRevisions: previous.upstreamRevision === upstreamRevision ? previous.pendingRevisions : previous.pendingRevisions + 1,
    ...(previous.pendingSince !== undefined ? { pendingSince: previous.pendingSince } : since),
  };
}

export interface GateResult {
  status: GateStatus;
  /** Upstream revision waiting, when the pin is behind it. */
  pendingRevision: string | undefined;
  /** Retry soon: the upstream has no artifact yet. */
  waiting: boolean;
}

/**
 * Creates or moves the gated source of a window in Gate mode: pinned to the upstream revision
 * while `open`, held while closed (first pin: what the targets already applied, else upstream),
 * or moved to a revision approved with `fluxgate approve`.
 */
export async function reconcileGate(
  c: ReconcileContext,
  window: KubernetesObject,
  spec: ReconciliationWindowSpec,
  open: boolean,
  targets: readonly FluxObject[],
  previous: WindowStatus | undefined,
): Promise<GateResult> {
  const gate = spec.gate as NonNullable<ReconciliationWindowSpec["gate"]>;
  const namespace = window.metadata?.namespace ?? "";
  const kind = gate.upstream.kind;
  const upstream = c.cache.sourceObject(objectKey(kind, namespace, gate.upstream.name));
  const gated = c.cache.sourceObject(objectKey(kind, namespace, gate.gatedName));
  const upstreamRevision = upstream?.status?.artifact?.revision;
  const upstreamId = revisionId(kind, upstreamRevision);
  const current = pinOf(kind, gated);
  const annotations = window.metadata?.annotations ?? {};
  const status: GateStatus = {
    upstream: `${kind}/${gate.upstream.name}`,
    gatedSource: `${kind}/${gate.gatedName}`,
    ...(upstreamRevision !== undefined ? { upstreamRevision } : {}),
    ...(previous?.gate?.approved !== undefined ? { approved: previous.gate.approved } : {}),
  };

  let pin = open ? (upstreamId ?? current) : current;
  let why = open ? "the window is open" : "";
  if (pin === undefined) {
    const applied = targets.map((t) => revisionId(kind, t.status?.lastAppliedRevision)).find((id) => id !== undefined);
    pin = applied ?? upstreamId;
    why = applied !== undefined ? "what the targets already applied" : "the upstream revision at creation";
  }
  // An approval is taken once: when it is newer than the last one recorded.
  const approvedRevision = annotations[APPROVE_REVISION];
  const approvedAt = annotations[APPROVED_AT];
  if (approvedRevision !== undefined && approvedAt !== undefined && (previous?.gate?.approved === undefined || previous.gate.approved.at < approvedAt)) {
    const id = revisionId(kind, approvedRevision) ?? approvedRevision;
    const by = annotations[APPROVED_BY] ?? "unknown";
    const reason = annotations[APPROVE_REASON] ?? "";
    status.approved = { revision: approvedRevision, reason, by, at: approvedAt };
    if (!open) {
      pin = id;
      why = `approved by ${by}: ${reason}`;
    }
  }

  if (upstream === undefined || pin === undefined) {
    return { status, pendingRevision: undefined, waiting: true };
  }
  const desiredSpec = pinnedSpec(kind, upstream.spec ?? {}, pin);
  const owned = (gated?.metadata?.ownerReferences ?? []).some((o) => o.uid === window.metadata?.uid);
  const drifted = gated === undefined || !owned || Object.entries(desiredSpec).some(([k, v]) => canonicalJson(v) !== canonicalJson(gated.spec?.[k]));
  if (drifted) {
    const resource = TARGET_RESOURCES[kind];
    if (resource === undefined) throw new Error(`unknown source kind ${kind}`);
    await c.client.apply(
      resource,
      {
        metadata: {
          name: gate.gatedName,
          namespace,
          labels: { [GATED_BY]: window.metadata?.name ?? "" },
          ownerReferences: [
            { apiVersion: API_VERSION, kind: "ReconciliationWindow", name: window.metadata?.name ?? "", uid: window.metadata?.uid ?? "", controller: true },
          ],
        },
        spec: desiredSpec,
      } as KubernetesObject,
      FIELD_MANAGER,
    );
    if (pin !== current) {
      const message = `Pinned ${kind}/${gate.gatedName} to ${pin}${current !== undefined ? ` (was ${current})` : ""}: ${why}`;
      c.log.info("Pinned gated source", { window: `${namespace}/${window.metadata?.name ?? ""}`, source: gate.gatedName, revision: pin, why });
      c.events.emit(window, "Normal", REVISION_PINNED, message);
    }
  }
  status.pinnedRevision = upstreamRevision !== undefined && upstreamId === pin ? upstreamRevision : pin;
  const pending = upstreamId !== undefined && upstreamId !== pin;
  if (pending) Object.assign(status, pendingSincePin(kind, previous?.gate, pin, upstreamRevision, upstream.status?.artifact?.lastUpdateTime));
  return { status, pendingRevision: pending ? upstreamRevision : undefined, waiting: false };
}

/**
 * A Gate window is being deleted: its gated source stops being pinned and owned (garbage collection
 * would otherwise delete it from under the targets that use it). It follows the upstream's ref from
 * now on, and is deleted once no Kustomization takes its artifact from it. Returns the targets told.
 */
export async function releaseGate(
  c: ReconcileContext,
  window: KubernetesObject,
  spec: ReconciliationWindowSpec,
  targets: readonly FluxObject[],
): Promise<number> {
  const gate = spec.gate;
  if (gate === undefined) return 0;
  const namespace = window.metadata?.namespace ?? "";
  const windowName = window.metadata?.name ?? "";
  const kind = gate.upstream.kind;
  const resource = TARGET_RESOURCES[kind];
  const gatedKey = objectKey(kind, namespace, gate.gatedName);
  const gated = c.cache.sourceObject(gatedKey);
  if (resource === undefined || gated === undefined) return 0;
  const upstream = c.cache.sourceObject(objectKey(kind, namespace, gate.upstream.name));
  const { suspend: _suspend, ...spec_ } = (upstream?.spec ?? gated.spec ?? {}) as Record<string, unknown>;
  // Without ownerReferences and the window's label (fluxgate owned both): the upstream's spec, unpinned.
  await c.client.apply(
    resource,
    { metadata: { name: gate.gatedName, namespace, labels: { [RELEASED_FROM]: windowName } }, spec: spec_ } as KubernetesObject,
    FIELD_MANAGER,
  );
  const using = targets.filter((t) => t.kind === "Kustomization" && sourceKeyOf(t) === gatedKey);
  const message = `Window ${windowName} was deleted: ${kind}/${gate.gatedName} is no longer pinned and follows ${kind}/${gate.upstream.name}'s ref, so changes now flow at once. Point spec.sourceRef back at ${kind}/${gate.upstream.name}; fluxgate deletes ${kind}/${gate.gatedName} once no Kustomization uses it`;
  c.log.info("Released the gated source of a deleted window", { window: `${namespace}/${windowName}`, source: gate.gatedName, usedBy: using.length });
  c.events.emit(window, "Normal", GATE_RELEASED, message);
  for (const t of using) c.events.emit(t, "Warning", GATE_RELEASED, message, { forward: true });
  return using.length;
}

/** A released gated source that no Kustomization uses any more is deleted. */
export async function reconcileReleasedSource(c: ReconcileContext, key: string, targets: readonly FluxObject[]): Promise<void> {
  const source = c.cache.sourceObject(key);
  if (source?.metadata?.labels?.[RELEASED_FROM] === undefined) return;
  if (targets.some((t) => sourceKeyOf(t) === key)) return;
  const resource = TARGET_RESOURCES[source.kind ?? ""];
  if (resource === undefined) return;
  await c.client.delete(resource, source.metadata.namespace ?? "", source.metadata.name ?? "");
  c.log.info("Deleted a released gated source no Kustomization uses", { source: key });
}

/**
 * Whether the target takes its artifact from a gated source (one a Gate window owns) pinned behind
 * its upstream, as the cache has them: held by a gate, whichever window asks. A window that does
 * not own the gate reports the target the same way as the Gate window that does.
 */
export function heldAtGate(c: Pick<ReconcileContext, "cache">, target: FluxObject): boolean {
  const key = sourceKeyOf(target);
  if (key === null) return false;
  const gated = c.cache.sourceObject(key);
  const owner = gated?.metadata?.labels?.[GATED_BY];
  if (gated === undefined || owner === undefined) return false;
  const namespace = gated.metadata?.namespace ?? "";
  const kind = gated.kind ?? key.split("/", 1)[0] ?? "";
  const upstream = c.cache.windowEntries().find((e) => e.view.namespace === namespace && e.view.name === owner)?.spec?.gate?.upstream;
  if (upstream === undefined) return false;
  const offered = revisionId(kind, c.cache.sourceObject(objectKey(upstream.kind, namespace, upstream.name))?.status?.artifact?.revision);
  const pin = pinOf(kind, gated);
  return offered !== undefined && pin !== undefined && offered !== pin;
}
