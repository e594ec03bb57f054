// Validated views of windows and overrides, cached by object generation so each spec is compiled once.

import type { KubernetesObject } from "@kubernetes/client-node";
import {
  closeGracePeriod,
  MAX_OVERRIDE_MS,
  modeOf,
  onRevertOf,
  parseWith,
  ValidationError,
  validateWindow,
  WindowOverrideSchema,
  type ReconciliationWindowSpec,
  type WindowOverride,
} from "../api/index.ts";
import { objectKey } from "./flux.ts";
import { rawTargets } from "./select.ts";
import type { OverrideView, WindowView } from "./plan.ts";

export interface WindowEntry {
  view: WindowView;
  /** The validated spec, when valid. */
  spec: ReconciliationWindowSpec | null;
  /** The validation problem, when the spec is invalid. */
  error: ValidationError | null;
}

export interface OverrideEntry {
  /** Null when the override is invalid. */
  view: OverrideView | null;
  error: string | null;
  windowName: string | undefined;
}

export function windowKey(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

/** Caches validated windows and overrides by uid and generation. */
export class Views {
  private readonly windows = new Map<string, { stamp: string; entry: WindowEntry }>();
  private readonly overrides = new Map<string, { stamp: string; entry: OverrideEntry }>();

  window(obj: KubernetesObject, now: number): WindowEntry {
    const namespace = obj.metadata?.namespace ?? "";
    const name = obj.metadata?.name ?? "";
    const key = windowKey(namespace, name);
    const stamp = `${obj.metadata?.uid ?? ""}/${obj.metadata?.generation ?? 0}/${obj.metadata?.deletionTimestamp === undefined ? "" : "deleting"}`;
    const cached = this.windows.get(key);
    if (cached?.stamp === stamp) return cached.entry;
    const spec = (obj as { spec?: unknown }).spec;
    const base = { key, namespace, name, deleting: obj.metadata?.deletionTimestamp !== undefined };
    let entry: WindowEntry;
    try {
      const { window, compiled } = validateWindow(obj, now);
      entry = {
        view: { ...base, mode: modeOf(window.spec), compiled, targets: window.spec.targets, closeGracePeriodMs: closeGracePeriod(window.spec),
          onRevert: onRevertOf(window.spec),
          gatedSource: window.spec.gate === undefined ? null : objectKey(window.spec.gate.upstream.kind, namespace, window.spec.gate.gatedName),
        },
        spec: window.spec,
        error: null,
      };
    } catch (e) {
      if (!(e instanceof ValidationError)) throw e;
      entry = { view: { ...base, mode: "Suspend", compiled: null, targets: rawTargets(spec), closeGracePeriodMs: 0, onRevert: "Hold", gatedSource: null }, spec: null, error: e };
    }
    this.windows.set(key, { stamp, entry });
    return entry;
  }

  forgetWindow(key: string): void {
    this.windows.delete(key);
  }

  override(obj: KubernetesObject): OverrideEntry {
    const namespace = obj.metadata?.namespace ?? "";
    const name = obj.metadata?.name ?? "";
    const key = windowKey(namespace, name);
    const stamp = `${obj.metadata?.uid ?? ""}/${obj.metadata?.generation ?? 0}`;
    const cached = this.overrides.get(key);
    if (cached?.stamp === stamp) return cached.entry;
    const rawWindow = (obj as { spec?: { windowRef?: { name?: unknown } } }).spec?.windowRef?.name;
    const windowName = typeof rawWindow === "string" ? rawWindow : undefined;
    let entry: OverrideEntry;
    try {
      const o: WindowOverride = parseWith(WindowOverrideSchema, obj);
      const created = Date.parse(String(obj.metadata?.creationTimestamp ?? ""));
      const start = Number.isNaN(created) ? 0 : created;
      const end = Date.parse(o.spec.until);
      if (end - start > MAX_OVERRIDE_MS) {
        throw new ValidationError([{ path: "spec.until", message: `is more than 7 days after the override was created (${new Date(start).toISOString()}): overrides are short by design` }]);
      }
      if (end <= start) {
        throw new ValidationError([{ path: "spec.until", message: `is not after the override was created (${new Date(start).toISOString()})` }]);
      }
      entry = { view: { namespace, name, window: o.spec.windowRef.name, action: o.spec.action, start, end, reason: o.spec.reason }, error: null, windowName };
    } catch (e) {
      if (!(e instanceof ValidationError)) throw e;
      entry = { view: null, error: e.message, windowName };
    }
    this.overrides.set(key, { stamp, entry });
    return entry;
  }

  forgetOverride(key: string): void {
    this.overrides.delete(key);
  }
}
