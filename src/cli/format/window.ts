// How the CLI reads and words a window as the controller reports it: its zone, its state, its next change, revisions.

import type { KubernetesObject } from "../../kube/types.ts";
import { CONTROLLER_NAMESPACE, DEFAULT_TIME_ZONE, type ReconciliationWindowSpec, type WindowStatus } from "../../api/index.ts";
import { READY, STALLED, SUSPEND_REVERTED_CONDITION } from "../../api/conditions.ts";
import { zoneRules, type ZoneRules } from "../../schedule/index.ts";
import { rfc3339 } from "../../schedule/format.ts";
import { span, when } from "./when.ts";

/** A ReconciliationWindow as read from the API server; nothing in it is trusted to be valid. */
export interface WindowObject extends KubernetesObject {
  spec?: Partial<ReconciliationWindowSpec>;
  status?: WindowStatus;
}

/** A WindowOverride as read from the API server. */
export interface OverrideObject extends KubernetesObject {
  spec?: { windowRef?: { name?: string }; action?: string; until?: string; reason?: string };
  status?: { phase?: string; message?: string; startedAt?: string; expiredAt?: string; cancelledAt?: string; cancelledBy?: string };
}

/** The state a person sees: the controller's, or Invalid (Stalled), or Unknown (not reconciled yet). */
export type ShownState = "Open" | "Closed" | "Frozen" | "Overridden" | "Invalid" | "Unknown";

/** The window's zone; UTC when it names none (or one the engine rejects: the window is then invalid anyway). */
export function zoneOf(w: WindowObject): ZoneRules {
  try {
    return zoneRules(w.spec?.timeZone ?? DEFAULT_TIME_ZONE);
  } catch {
    return zoneRules(DEFAULT_TIME_ZONE);
  }
}

/** Epoch ms of an RFC 3339 time, or undefined. */
export function instant(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const t = Date.parse(text);
  return Number.isNaN(t) ? undefined : t;
}

/** An RFC 3339 time as written by the controller, normalised to UTC seconds; null when absent. */
export function utc(text: string | undefined): string | null {
  const t = instant(text);
  return t === undefined ? null : rfc3339(t);
}

function condition(w: WindowObject, type: string): { status: string; reason: string; message: string } | undefined {
  return w.status?.conditions?.find((c) => c.type === type);
}

export function shownState(w: WindowObject): ShownState {
  if (condition(w, STALLED)?.status === "True") return "Invalid";
  return w.status?.state ?? "Unknown";
}

/**
 * The window's next change in words, from the times the controller wrote:
 * `opens in 2h13m, Mon 08:00 CET`, `closes in ...`, `override ends in ...`.
 */
export function nextChange(w: WindowObject, now: number): string {
  const state = shownState(w);
  const next = instant(w.status?.nextTransition);
  if (state === "Invalid" || state === "Unknown") return "-";
  if (next === undefined) {
    return state === "Open" ? "stays open" : state === "Closed" ? "no opening within a year" : state === "Frozen" ? "frozen with no end within a year" : "-";
  }
  const verb =
    state === "Overridden"
      ? "override ends"
      : next === instant(w.status?.nextOpen)
        ? "opens"
        : state === "Open"
          ? "closes"
          : state === "Frozen"
            ? "freeze ends"
            : "freezes";
  // A change that is overdue means the status is stale: say so rather than print a time in the past as the future.
  if (next < now - 5_000) return `${verb}: was due ${span(now - next)} ago — is the controller running?`;
  return `${verb} ${when(next, now, zoneOf(w))}`;
}

/** Shortens the hashes in a Flux revision for tables: `main@sha1:4f2c1a9b0e3d`. */
export function shortRevision(revision: string): string {
  return revision.replace(/([0-9a-f]{12})[0-9a-f]{8,}/g, "$1");
}

/** What needs a person's attention in the window's conditions, in a sentence, or null. */
export function attention(w: WindowObject): string | null {
  // Being deleted (alone, or with the CRDs): its finalizer waits for the controller to give its targets back.
  if (w.metadata?.deletionTimestamp !== undefined) {
    return `being deleted since ${String(w.metadata.deletionTimestamp instanceof Date ? w.metadata.deletionTimestamp.toISOString() : w.metadata.deletionTimestamp)}: the controller releases its targets first (is it running?). If fluxgate is being uninstalled (its CRDs deleted), give every target back with: fluxgate release --all`;
  }
  if (w.status === undefined || Object.keys(w.status).length === 0) {
    return `not reconciled yet: is the fluxgate controller running? (kubectl -n ${CONTROLLER_NAMESPACE} get deploy fluxgate-controller)`;
  }
  const stalled = condition(w, STALLED);
  if (stalled?.status === "True") return `invalid spec, its targets are left as they are: ${stalled.message}`;
  // A change that went out while closed, a gate that holds nothing or a conflict first; then a fight over spec.suspend.
  const ready = condition(w, READY);
  const reverted = condition(w, SUSPEND_REVERTED_CONDITION);
  const notes = [...(ready?.status === "False" ? [`${ready.reason}: ${ready.message}`] : []), ...(reverted?.status === "True" ? [reverted.message] : [])];
  return notes.length === 0 ? null : notes.join("\n    ");
}
