// The status a window reports under the multi-tenant lockdown (--no-cross-namespace-refs): Ready=False naming the entries it refused (see policy/tenancy.ts).

import type { Condition, WindowStatus } from "../api/index.ts";
import { rfc3339 } from "../schedule/format.ts";
import { ACCESS_DENIED, READY } from "../api/conditions.ts";
import { refusedMessage, type RefusedTarget } from "../policy/index.ts";

/** The window's status with Ready=False (AccessDenied) naming the refused entries, its other targets reported as before. */
export function withRefusedTargets(
  status: WindowStatus,
  windowNamespace: string,
  refused: readonly RefusedTarget[],
  previous: WindowStatus | undefined,
  now: number,
  generation: number | undefined,
): WindowStatus {
  if (refused.length === 0) return status;
  const before = previous?.conditions?.find((c) => c.type === READY);
  // Another problem the status reports is kept in the message: the refusal is named first, as the reason.
  const other = status.conditions?.find((c) => c.type === READY && c.status === "False");
  const ready: Condition = {
    type: READY,
    status: "False",
    observedGeneration: generation,
    lastTransitionTime: before !== undefined && before.status === "False" ? before.lastTransitionTime : rfc3339(now),
    reason: ACCESS_DENIED,
    message: `${refusedMessage(windowNamespace, refused)}${other !== undefined ? `; also ${other.reason}: ${other.message}` : ""}`,
  };
  // Not Ready: the generation last reconciled while Ready stays (see windowStatus).
  const { observedGeneration: _current, ...rest } = status;
  return {
    ...rest,
    ...(previous?.observedGeneration !== undefined ? { observedGeneration: previous.observedGeneration } : {}),
    conditions: [ready, ...(status.conditions ?? []).filter((c) => c.type !== READY)],
  };
}
