// The metadata a target's forwarded events carry, so that a cluster's last event of a target tells all a fleet view needs.

import { EVENT_METADATA as KEY } from "../api/constants.ts";
import { rfc3339 } from "../schedule/format.ts";
import { decisionOfPlan, type TargetPlan } from "../policy/index.ts";
import type { ReconcileContext } from "./context.ts";
import { pendingOf, sourceKeyOf, type FluxObject } from "../kube/flux.ts";

/**
 * The target's state (open, closed, frozen; `held` when an invalid window holds it as it is,
 * `ungoverned` when no window selects it), its windows, its next change ("" when none is due) and
 * the revision waiting with since when ("" when nothing waits). Sent with every event fluxgate
 * forwards to notification-controller; a Config Service receiving them keeps the newest.
 */
export function targetPicture(c: Pick<ReconcileContext, "cache">, target: FluxObject, plan: TargetPlan): Record<string, string> {
  const decision = decisionOfPlan(plan);
  const state = decision.state ?? (plan.action === "release" ? "ungoverned" : "held");
  const source = sourceKeyOf(target);
  const pending = pendingOf(target, source === null ? undefined : c.cache.sourceObject(source));
  return {
    [KEY.state]: state,
    [KEY.windows]: "windows" in plan ? plan.windows.map((w) => w.name).join(", ") : "",
    [KEY.nextChange]: decision.until === null ? "" : rfc3339(decision.until),
    [KEY.pendingRevision]: pending?.pendingRevision ?? "",
    [KEY.pendingSince]: pending?.waitingSince ?? "",
  };
}
