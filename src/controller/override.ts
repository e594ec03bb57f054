// Reconciles one WindowOverride: validity, Active until `until` then Expired (kept as a record), events, and its window.

import type { OverrideStatus } from "../api/index.ts";
import { rfc3339 } from "../cli/format/time.ts";
import type { Outcome } from "../kube/queue.ts";
import { OVERRIDES } from "../kube/resources.ts";
import { INVALID_SPEC, OVERRIDE_EXPIRED, OVERRIDE_STARTED } from "./conditions.ts";
import type { Controller } from "./controller.ts";
import { FIELD_MANAGER } from "./flux.ts";
import { windowKey } from "./views.ts";

export async function reconcileOverride(c: Controller, key: string): Promise<Outcome> {
  const obj = c.overrideObject(key);
  if (obj === undefined) return { kind: "done" };
  const now = c.clock.now();
  const entry = c.views.override(obj);
  const namespace = obj.metadata?.namespace ?? "";
  const previous = (obj as { status?: OverrideStatus }).status;
  if (entry.windowName !== undefined) c.enqueueWindow(windowKey(namespace, entry.windowName));

  let status: OverrideStatus;
  if (entry.view === null) {
    status = { phase: "Invalid", message: entry.error ?? "invalid spec" };
  } else {
    const active = now < entry.view.end;
    const window = c.windowObject(windowKey(namespace, entry.view.window));
    const verb = entry.view.action === "Open" ? "opens" : "freezes";
    status = {
      phase: active ? "Active" : "Expired",
      message: active
        ? `${verb} window ${entry.view.window} until ${rfc3339(entry.view.end)}${window === undefined ? ` (no window ${entry.view.window} in ${namespace} yet)` : ""}`
        : `expired at ${rfc3339(entry.view.end)}; kept as a record until deleted`,
      startedAt: rfc3339(entry.view.start),
      ...(active ? {} : { expiredAt: rfc3339(entry.view.end) }),
    };
  }
  if (previous?.phase !== status.phase) {
    // Once per phase of a spec: a crash before the status below is written announces the phase again, and finds it recorded.
    const phaseKey = `${status.phase}/${obj.metadata?.generation ?? 0}`;
    const once = { once: phaseKey };
    // Recorded before the status that says the phase changed, so a crash in between announces it again instead of never.
    if (status.phase === "Active") await c.events.record(obj, "Normal", OVERRIDE_STARTED, `${entry.view?.action ?? ""} override ${status.message ?? ""}: ${entry.view?.reason ?? ""}`, once);
    if (status.phase === "Expired") await c.events.record(obj, "Normal", OVERRIDE_EXPIRED, `Override ${status.message ?? ""}`, once);
    if (status.phase === "Invalid") await c.events.record(obj, "Warning", INVALID_SPEC, `Invalid override; it has no effect: ${status.message ?? ""}`, once);
    const window = entry.windowName === undefined ? undefined : c.windowObject(windowKey(namespace, entry.windowName));
    if (window !== undefined && status.phase !== "Invalid") {
      await c.events.record(window, "Normal", status.phase === "Active" ? OVERRIDE_STARTED : OVERRIDE_EXPIRED, `Override ${obj.metadata?.name ?? ""}: ${status.message ?? ""}`, {
        once: `${obj.metadata?.uid ?? obj.metadata?.name ?? ""}/${phaseKey}`,
      });
    }
    c.log.info("Override changed phase", { override: key, from: previous?.phase ?? "", to: status.phase });
  }
  if (previous?.phase !== status.phase || previous?.message !== status.message || previous?.expiredAt !== status.expiredAt) {
    await c.client.applyStatus(OVERRIDES, namespace, obj.metadata?.name ?? "", status, FIELD_MANAGER);
  }
  if (entry.view !== null && now < entry.view.end) return { kind: "requeueAfter", ms: Math.max(1, entry.view.end - now) };
  return { kind: "done" };
}
