// `fluxgate overrides [list|cancel NAME]`: the break-glass and stop-the-line decisions of a namespace, and ending one early.

import { CANCELLED_AT, CANCELLED_BY, OVERRIDE_REQUESTED_BY } from "../api/index.ts";
import { Views } from "../policy/views.ts";
import { OVERRIDES, WINDOWS } from "../kube/resources.ts";
import { UsageError } from "./errors.ts";
import { painter, type Paint } from "./format/color.ts";
import { machine } from "./format/machine.ts";
import { table } from "./format/table.ts";
import { rfc3339 } from "../schedule/format.ts";
import { at, when } from "./format/when.ts";
import { instant, utc, zoneOf, type OverrideObject, type WindowObject } from "./format/window.ts";
import { statusCodeOf } from "../kube/errors.ts";
import { annotate, connect, get, list, whoAmI, type ClusterFlags } from "./kube.ts";
import { poll, windowLine } from "./open.ts";
import { kube, outputOf, type CommandIO, type CommandResult, type Values } from "./command.ts";

/** Runs `fluxgate overrides [list | cancel NAME]` (its spec: specs.ts). */
export function runOverrides(v: Values, positionals: string[], io: CommandIO): Promise<CommandResult> {
  return overrides({
    ...kube(v),
    ...overridesArgs(positionals, v.output !== undefined),
    allNamespaces: v["all-namespaces"] === true,
    output: outputOf(v.output, ["table", "wide", "json", "yaml"] as const, "table"),
    wait: v["no-wait"] !== true,
    color: io.color,
    now: Date.now(),
  });
}

export interface OverridesOptions extends ClusterFlags {
  action: "list" | "cancel";
  /** The override to cancel. */
  name?: string | undefined;
  allNamespaces: boolean;
  output: "table" | "wide" | "json" | "yaml";
  /** After cancel, wait until the window's targets follow its schedule again. */
  wait: boolean;
  color: boolean;
  now: number;
}

/** Reads `[list | cancel NAME]`. */
export function overridesArgs(args: readonly string[], outputGiven: boolean): { action: "list" | "cancel"; name?: string } {
  const [action = "list", name, ...more] = args;
  if (action === "list") {
    if (name !== undefined)
      throw new UsageError(`overrides list takes no name, got "${args.slice(1).join(" ")}"; to end one, use: fluxgate overrides cancel NAME`);
    return { action };
  }
  if (action === "cancel") {
    if (name === undefined) throw new UsageError("overrides cancel needs the NAME of the override; list them with: fluxgate overrides");
    if (more.length > 0) throw new UsageError(`overrides cancel takes one name, got "${args.slice(1).join(" ")}"`);
    if (outputGiven) throw new UsageError("-o goes with overrides list, not with cancel");
    return { action, name };
  }
  throw new UsageError(`overrides ${action}: the subcommands are list (the default) and cancel NAME`);
}

/** One override in `overrides -o json|yaml`: a stable contract (docs/cli.md). */
export interface OverrideRow {
  namespace: string;
  name: string;
  window: string;
  action: string;
  until: string | null;
  reason: string;
  /** Active, Expired, Cancelled, WindowNotFound or Invalid, as the controller reports it; null until it does. */
  phase: string | null;
  /** True while it is in force: valid, its window exists, before `until` and not cancelled. */
  active: boolean;
  createdAt: string | null;
  requestedBy: string | null;
  /** When and by whom `overrides cancel` ended it; null when it was not cancelled. */
  cancelledAt: string | null;
  cancelledBy: string | null;
}

/** The machine-readable rows (pure). */
export function overrideRows(overrides: readonly OverrideObject[], now: number): OverrideRow[] {
  const views = new Views();
  return overrides.map((o) => {
    // The effective end, as the controller computes it: `until`, or the cancellation when earlier.
    const entry = views.override(o, now);
    const cancelled = entry.cancelled !== null && entry.until !== undefined && entry.cancelled.at < entry.until ? entry.cancelled : null;
    return {
      namespace: o.metadata?.namespace ?? "",
      name: o.metadata?.name ?? "",
      window: o.spec?.windowRef?.name ?? "",
      action: o.spec?.action ?? "",
      until: utc(o.spec?.until),
      reason: o.spec?.reason ?? "",
      phase: o.status?.phase ?? null,
      active: entry.view !== null && o.status?.phase !== "Invalid" && o.status?.phase !== "WindowNotFound" && now < entry.view.end,
      createdAt: utc(o.metadata?.creationTimestamp === undefined ? undefined : new Date(o.metadata.creationTimestamp).toISOString()),
      requestedBy: o.metadata?.annotations?.[OVERRIDE_REQUESTED_BY] ?? null,
      cancelledAt: cancelled === null ? null : rfc3339(cancelled.at),
      cancelledBy: cancelled === null ? null : cancelled.by,
    };
  });
}

/** The table for people: those in force first, soonest end first (pure). */
export function overridesTable(
  rows: readonly OverrideRow[],
  windows: readonly WindowObject[],
  now: number,
  o: { allNamespaces: boolean; wide: boolean; namespace: string; paint: Paint },
): string {
  if (rows.length === 0) return o.allNamespaces ? "No overrides in any namespace.\n" : `No overrides in namespace ${o.namespace}.\n`;
  const zone = (r: OverrideRow): ReturnType<typeof zoneOf> =>
    zoneOf(windows.find((w) => w.metadata?.namespace === r.namespace && w.metadata.name === r.window) ?? {});
  const ordered = [...rows].sort(
    (a, b) =>
      a.namespace.localeCompare(b.namespace) ||
      Number(b.active) - Number(a.active) ||
      (a.active ? (a.until ?? "").localeCompare(b.until ?? "") : (b.until ?? "").localeCompare(a.until ?? "")),
  );
  const header = [...(o.allNamespaces ? ["NAMESPACE"] : []), "NAME", "WINDOW", "ACTION", "UNTIL", "PHASE", "REASON", ...(o.wide ? ["CREATED", "BY"] : [])];
  const body = ordered.map((r) => {
    // A cancelled override ended when it was cancelled.
    const until = instant(r.cancelledAt ?? r.until ?? undefined);
    const created = instant(r.createdAt ?? undefined);
    const phase = r.phase ?? "-";
    return [
      ...(o.allNamespaces ? [r.namespace] : []),
      r.name,
      r.window,
      o.paint(r.action === "Freeze" ? "cyan" : "green", r.action),
      until === undefined ? "-" : when(until, now, zone(r)),
      o.paint(phase === "Active" ? "magenta" : phase === "Invalid" || phase === "WindowNotFound" ? "red" : "dim", phase),
      r.reason,
      ...(o.wide ? [created === undefined ? "-" : at(created, now, zone(r)), r.requestedBy ?? "-"] : []),
    ];
  });
  return `${table(header, body)}\n`;
}

/**
 * Lists overrides, or cancels one: it ends now and stays as a record, with who cancelled it and
 * when (annotations the controller honours as its end, and announces with an OverrideCancelled event).
 *
 * @example await overrides({ action: "list", namespace: "flux-system", allNamespaces: false, output: "table", wait: false, color: false, now: Date.now() })
 */
export async function overrides(options: OverridesOptions): Promise<string> {
  const c = connect(options);
  if (options.action === "list") {
    const scope = options.allNamespaces ? undefined : c.namespace;
    const objects = await list<OverrideObject>(c, OVERRIDES, scope);
    const rows = overrideRows(objects, options.now);
    if (options.output === "json" || options.output === "yaml") return machine({ overrides: rows }, options.output);
    // The windows give the zones the times are shown in; without read access, UTC will do.
    const windows = await list<WindowObject>(c, WINDOWS, scope).catch((e: unknown) => {
      if (statusCodeOf((e as Error).cause) === 403) return [];
      throw e;
    });
    return overridesTable(rows, windows, options.now, {
      allNamespaces: options.allNamespaces,
      wide: options.output === "wide",
      namespace: c.namespace,
      paint: painter(options.color),
    });
  }

  const name = options.name ?? "";
  const namespace = c.namespace;
  const found = await get<OverrideObject>(c, OVERRIDES, namespace, name);
  if (found === undefined) {
    const names = (await list<OverrideObject>(c, OVERRIDES, namespace)).map((o) => o.metadata?.name ?? "");
    throw new UsageError(
      `override "${name}" not found in namespace ${namespace}\n${names.length > 0 ? `Overrides in ${namespace}: ${names.slice(0, 10).join(", ")}${names.length > 10 ? ", ..." : ""}.` : `There are no overrides in ${namespace}; list them all with fluxgate overrides -A.`}`,
    );
  }
  const [row] = overrideRows([found], options.now) as [OverrideRow];
  const window = row.window;
  const what = `${row.action} of window ${window}`;
  const record = `It stays as a record; kubectl delete windowoverride ${name} -n ${namespace} removes it.`;
  if (row.cancelledAt !== null) {
    return `windowoverride/${name} in ${namespace} (${what}) was already cancelled by ${row.cancelledBy ?? "unknown"} at ${row.cancelledAt}: nothing changed.\n${record}\n`;
  }
  const entry = new Views().override(found, options.now);
  if (entry.view !== null && entry.view.end <= options.now) {
    return `windowoverride/${name} in ${namespace} (${what}) already ended at ${rfc3339(entry.view.end)}: nothing to cancel, nothing changed.\n${record}\n`;
  }
  const by = (await whoAmI(c)) ?? c.kubeConfig.getCurrentUser()?.name ?? "unknown";
  // Whole seconds, as the API server keeps times; rounded down, so it has ended by the time the controller reads it.
  const cancelledAt = rfc3339(Math.floor(options.now / 1000) * 1000);
  await annotate(c, OVERRIDES, namespace, name, { [CANCELLED_AT]: cancelledAt, [CANCELLED_BY]: by });
  const lines = [
    `Cancelled windowoverride/${name} in ${namespace} (${what}${row.until !== null ? `, until ${row.until}` : ""}) at ${cancelledAt}, by ${by}.`,
    `Its reason was: ${row.reason}`,
    record,
  ];
  if (options.wait && row.active) {
    // The window forgets the override once the controller saw the cancellation.
    const after = await poll(async () => {
      const current = await get<WindowObject>(c, WINDOWS, namespace, window);
      return current?.status?.override !== name ? current : undefined;
    }, 5_000);
    lines.push(`Window ${window} now: ${windowLine(after, options.color)}`);
  }
  return `${lines.join("\n")}\n`;
}
