// The metadata a target's forwarded events carry, so that a cluster's last event of a target tells all a fleet view needs.

import { EVENT_METADATA as KEY } from "../api/constants.ts";
import { rfc3339 } from "../schedule/format.ts";
import { decisionOfPlan, type TargetPlan } from "../policy/index.ts";
import type { ReconcileContext } from "./context.ts";
import { isSuspended, keyOf, pendingOf, sourceKeyOf, type FluxObject } from "../kube/flux.ts";

/**
 * The target's state (open, closed, frozen; `held` when an invalid window holds it as it is,
 * `ungoverned` when no window selects it), its windows, its next change ("" when none is due) and
 * the revision waiting with since when ("" when nothing waits). Sent with every event fluxgate
 * forwards to notification-controller; a Config Service receiving them keeps the newest. Beside
 * that decision, what the target does as observed: its spec.suspend, whether it takes its
 * artifact from the gated source (Gate mode), and a revision applied while closed — so a fleet
 * view cannot show "closed" while a change went through.
 */
export function targetPicture(c: Pick<ReconcileContext, "cache" | "state">, target: FluxObject, plan: TargetPlan): Record<string, string> {
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
    [KEY.since]: decision.since === null ? "" : rfc3339(decision.since),
    [KEY.suspended]: String(isSuspended(target)),
    // A HelmRelease takes its chart through a HelmChart, whose source the gate cannot be read from here: not said.
    [KEY.gated]: plan.action === "gate" && target.kind === "Kustomization" ? String(source !== null && plan.windows.some((w) => w.gatedSource === source)) : "",
    [KEY.violation]: c.state.memoryOf(keyOf(target)).violation?.revision ?? "",
  };
}
