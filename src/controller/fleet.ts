// The status of a fleet window (one with a clusterSelector) on this cluster: not this cluster's, or unconfirmed because the cluster's identity is not.

import type { Condition, WindowStatus } from "../api/index.ts";
import { rfc3339 } from "../schedule/format.ts";
import { IDENTITY_UNCONFIRMED, NOT_SELECTED, READY } from "../api/conditions.ts";
import type { FleetScope } from "../policy/index.ts";

/**
 * The window's status as its fleet scope says: a window that is not this cluster's is Ready with
 * reason NotSelected and governs nothing; one on a cluster whose identity cannot be confirmed is
 * Ready=False (IdentityUnconfirmed): its schedules open nothing, its freezes hold. Else unchanged.
 */
export function withFleetScope(
  status: WindowStatus,
  scope: FleetScope | undefined,
  previous: WindowStatus | undefined,
  now: number,
  generation: number | undefined,
): WindowStatus {
  if (scope === undefined || scope.kind === "own" || scope.kind === "selected") return status;
  const before = previous?.conditions?.find((c) => c.type === READY);
  const selected = scope.kind !== "not-selected";
  const readyStatus = selected ? "False" : "True";
  const ready: Condition = {
    type: READY,
    status: readyStatus,
    observedGeneration: generation,
    lastTransitionTime: before !== undefined && before.status === readyStatus ? before.lastTransitionTime : rfc3339(now),
    reason: selected ? IDENTITY_UNCONFIRMED : NOT_SELECTED,
    message: selected
      ? `Fleet window ${scope.message}: none of its schedules opens here, its freezes hold`
      : `Fleet window not for this cluster: ${scope.message}; it governs nothing here`,
  };
  const conditions = [ready, ...(status.conditions ?? []).filter((c) => c.type !== READY)];
  if (!selected) return { ...status, reason: `Not for this cluster: ${scope.message}`, conditions };
  const { observedGeneration: _current, ...rest } = status;
  return { ...rest, ...(previous?.observedGeneration !== undefined ? { observedGeneration: previous.observedGeneration } : {}), conditions };
}
