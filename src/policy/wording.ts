// How a decision is worded for people: the state's name and the one sentence saying why and until when, the same on every surface.

import type { WindowStatus } from "../api/index.ts";
import { localTime } from "../schedule/format.ts";
import type { Decision, RuleRef, WindowState as EngineState, ZoneRules } from "../schedule/index.ts";

/** The state as the status and the CLI name it. */
export type ShownDecisionState = NonNullable<WindowStatus["state"]>;

/** `Overridden` when an override decides, else Open, Closed or Frozen. */
export function stateOf(d: Pick<Decision, "state" | "overridden">): ShownDecisionState {
  if (d.overridden) return "Overridden";
  return stateName(d.state);
}

/** Open, Closed or Frozen: the engine's state with a capital, as machine-readable output spells it. */
export function stateName(state: EngineState): "Open" | "Closed" | "Frozen" {
  return state === "open" ? "Open" : state === "frozen" ? "Frozen" : "Closed";
}

/** A rule as people know it: `schedule "0 8 * * MON → 0 17 * * THU"`, `freeze "Holiday freeze" (…)`, `override name ("why")`. */
export function describeRule(cause: RuleRef): string {
  switch (cause.kind) {
    case "allow":
      return `schedule "${cause.label}"`;
    case "freeze":
      return cause.reason !== undefined ? `freeze "${cause.reason}" (${cause.label})` : `freeze ${cause.label}`;
    case "override-open":
    case "override-freeze":
      return `override ${cause.label}${cause.reason !== undefined ? ` ("${cause.reason}")` : ""}`;
  }
}

/**
 * One sentence saying why a window (or a target) is in its state and until when, times in `zone`;
 * `after` is the state that follows at `d.until`, so a closed one says whether it then opens or
 * freezes. The window's `status.reason`, the Config Service's `reason`, `explain`, events and the
 * calendar all say this.
 *
 * @example reasonOf(decision, zoneRules("Europe/Berlin"), "open") // "Closed: no schedule is active; opens Mon 2026-11-23 08:00 CET"
 */
export function reasonOf(d: Pick<Decision, "state" | "cause" | "until">, zone: ZoneRules, after: EngineState | null): string {
  const until = d.until === null ? "" : ` until ${localTime(d.until, zone)}`;
  if (d.cause === null) {
    if (d.until === null) return "Closed: no schedule is active";
    return `Closed: no schedule is active; ${after === "frozen" ? "freezes" : after === "open" ? "opens" : "changes"} ${localTime(d.until, zone)}`;
  }
  const verb = d.cause.kind === "override-open" ? "Opened" : d.cause.kind === "override-freeze" ? "Frozen" : d.state === "open" ? "Open" : "Frozen";
  return `${verb} by ${describeRule(d.cause)}${until}`;
}

/** What a target that no window selects is told. */
export const NOT_GOVERNED = "No window selects it: fluxgate leaves it alone.";

/** The sentence for a target held as it is (a window that selects it is invalid). */
export function heldMessage(why: string): string {
  return `Held as it is: ${why}.`;
}

/** The sentence for a target held closed by a conflict of modes. */
export function conflictMessage(conflict: string): string {
  return `Held closed: ${conflict}.`;
}
