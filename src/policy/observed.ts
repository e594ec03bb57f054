// What the controller observed of one target, read back from the conditions it writes on the windows: the one reading every surface (explain, status, the
// dashboard) shows.

import { ACCESS_DENIED, READY } from "../api/conditions.ts";

/** A window as this reading needs it: its name and the conditions the controller wrote. */
export interface ObservedWindow {
  metadata?: { namespace?: string | undefined; name?: string | undefined } | undefined;
  status?: { conditions?: readonly { type: string; status: string; reason?: string | undefined; message?: string | undefined }[] | undefined } | undefined;
}

/** What the windows' controller says of one target. */
export interface TargetObservation {
  /** Windows that name the target but that the controller does not act on for it (--no-cross-namespace-refs), with its sentence. */
  refusedBy: { namespace: string; name: string; message: string }[];
  /** Windows whose Ready=False names the target: the reason and the controller's sentence. */
  problems: { namespace: string; name: string; reason: string; message: string }[];
}

/**
 * Reads what the controller wrote about one target on the windows that select it: a window in
 * another namespace whose Ready is AccessDenied does not govern it (the controller refuses
 * cross-namespace entries, and says so there), and a Ready=False whose message names the target
 * (`Kustomization/NAMESPACE/NAME`, as the controller names targets) is a problem of the target.
 *
 * @example observedTarget({ kind: "Kustomization", namespace: "b", name: "app-b" }, windows).refusedBy.length
 */
export function observedTarget(target: { kind: string; namespace: string; name: string }, windows: readonly ObservedWindow[]): TargetObservation {
  const out: TargetObservation = { refusedBy: [], problems: [] };
  const named = `${target.kind}/${target.namespace}/${target.name}`;
  for (const w of windows) {
    const namespace = w.metadata?.namespace ?? "";
    const name = w.metadata?.name ?? "";
    const ready = w.status?.conditions?.find((c) => c.type === READY);
    if (ready === undefined || ready.status !== "False") continue;
    const reason = ready.reason ?? "";
    const message = ready.message ?? "";
    if (reason === ACCESS_DENIED && namespace !== target.namespace) {
      out.refusedBy.push({ namespace, name, message });
      continue;
    }
    if (message.includes(named)) out.problems.push({ namespace, name, reason, message });
  }
  return out;
}

/** Whether a window is one the controller refuses for this target (see observedTarget). */
export function refusesTarget(observation: TargetObservation, window: { namespace: string; name: string }): boolean {
  return observation.refusedBy.some((r) => r.namespace === window.namespace && r.name === window.name);
}
