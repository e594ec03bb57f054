// `fluxgate status`: one row per window — state, since when, next change, targets, pending, override — once, or redrawn as it changes.

import type { WriteStream } from "node:tty";
import type { WindowStatus } from "../api/index.ts";
import { planTarget, targetTransitions, type OverrideView } from "../policy/index.ts";
import { Views } from "../policy/views.ts";
import { Informer } from "../kube/informer.ts";
import { OVERRIDES, WINDOWS } from "../kube/resources.ts";
import { painter, stateStyle, type Paint } from "./format/color.ts";
import { machine } from "./format/machine.ts";
import { indent, table } from "./format/table.ts";
import { localTime } from "../schedule/format.ts";
import { span, when } from "./format/when.ts";
import { attention, instant, nextChange, shortRevision, shownState, utc, zoneOf, type OverrideObject, type WindowObject } from "./format/window.ts";
import { statusCodeOf } from "../kube/errors.ts";
import { stopSignals } from "./signals.ts";
import { clusterError, connect, list, type Cluster, type ClusterFlags } from "./kube.ts";
import { zoneRules } from "../schedule/index.ts";
import { kube, outputOf, type CommandIO, type CommandResult, type Values } from "./command.ts";

/** Runs `fluxgate status` (its spec: specs.ts). */
export function runStatus(v: Values, _args: string[], io: CommandIO): Promise<CommandResult> {
  return status({
    ...kube(v),
    allNamespaces: v["all-namespaces"] === true,
    output: outputOf(v.output, ["table", "wide", "json", "yaml"] as const, "table"),
    watch: v.watch === true,
    color: io.color,
    now: () => Date.now(),
    out: io.stdout,
  });
}

export interface StatusOptions extends ClusterFlags {
  /** -A: every namespace. */
  allNamespaces: boolean;
  output: "table" | "wide" | "json" | "yaml";
  /** Keep watching and redraw on every change until stopped. */
  watch: boolean;
  color: boolean;
  /** The current time, injected; --watch asks again at every redraw. */
  now: () => number;
  /** Where --watch writes its frames (default stdout). */
  out?: NodeJS.WritableStream;
  /** Stops --watch (default: SIGINT or SIGTERM). */
  signal?: AbortSignal;
}

/** One window in `status -o json|yaml`: a stable contract (docs/cli.md). */
export interface StatusRow {
  namespace: string;
  name: string;
  /** Open, Closed, Frozen or Overridden; Invalid while the spec is invalid; Unknown until the controller reports one. */
  state: string;
  since: string | null;
  nextTransition: string | null;
  targets: { matched: number; open: number } | null;
  pending: number;
  override: string | null;
}

export interface StatusResult {
  windows: StatusRow[];
}

const ALTERNATE_SCREEN = "\x1b[?1049h";
const MAIN_SCREEN = "\x1b[?1049l";

/** The machine-readable rows (pure). */
export function statusResult(windows: readonly WindowObject[]): StatusResult {
  return {
    windows: windows.map((w) => ({
      namespace: w.metadata?.namespace ?? "",
      name: w.metadata?.name ?? "",
      state: shownState(w),
      since: utc(w.status?.since),
      nextTransition: utc(w.status?.nextTransition),
      targets: w.status?.targets === undefined ? null : { matched: w.status.targets.matched, open: w.status.targets.open },
      pending: w.status?.targets?.pending ?? 0,
      override: w.status?.override ?? null,
    })),
  };
}

export interface TableOptions {
  allNamespaces: boolean;
  wide: boolean;
  /** The namespace looked in, for the message when there is nothing. */
  namespace: string;
  /** The namespace came from the kubeconfig, not from -n: say how to choose another. */
  namespaceFromContext: boolean;
  paint: Paint;
  /** Validated windows and overrides, cached across redraws. */
  views: Views;
}

interface WaitingRow {
  namespace: string;
  target: string;
  revision: string;
  waiting: string;
  windows: string;
  goes: string;
}

/**
 * Targets with a revision waiting, once each, and when they go out: computed with the time engine
 * from every window that lists the target and their overrides, as the controller decides.
 */
function waitingRows(windows: readonly WindowObject[], overrides: readonly OverrideObject[], now: number, views: Views): WaitingRow[] {
  const targets = new Map<string, { pending: NonNullable<WindowStatus["pending"]>[number]; windows: WindowObject[] }>();
  const more: WaitingRow[] = [];
  for (const w of windows) {
    const listed = w.status?.pending ?? [];
    for (const t of listed) {
      const key = `${t.namespace}/${t.kind}/${t.name}`;
      const entry = targets.get(key) ?? { pending: t, windows: [] };
      entry.windows.push(w);
      targets.set(key, entry);
    }
    const unlisted = (w.status?.targets?.pending ?? 0) - listed.length;
    if (unlisted > 0) {
      more.push({
        namespace: w.metadata?.namespace ?? "",
        target: `... and ${unlisted} more`,
        revision: "",
        waiting: "",
        windows: w.metadata?.name ?? "",
        goes: "",
      });
    }
  }
  const valid = overrides.map((o) => views.override(o, now).view).filter((v): v is OverrideView => v !== null);
  const rows = [...targets.values()].map(({ pending: t, windows: holding }): WaitingRow => {
    const waited = instant(t.waitingSince);
    // The windows that list it, planned as the controller plans a target (policy/decision.ts).
    const entries = holding.map((w) => views.window(w, now).view);
    const plan = planTarget(entries, valid, now);
    let goes: string;
    if (plan.action === "hold") {
      goes = `held: ${plan.message}`;
    } else if (plan.action === "enforce" && plan.conflict !== null) {
      goes = "held: windows of different modes select it, until one mode governs it";
    } else {
      const open = plan.action !== "release" && plan.open;
      const opens = open ? undefined : targetTransitions(entries, valid, now, 16).find((x) => x.state === "open");
      const zone = zoneOf(holding.find((w) => w.metadata?.name === opens?.cause?.window) ?? holding[0] ?? {});
      goes = open ? "now: it may take changes" : opens === undefined ? "no opening within a year" : when(opens.at, now, zone);
    }
    return {
      namespace: t.namespace,
      target: `${t.kind}/${t.name}`,
      revision: `${shortRevision(t.pendingRevision)}${(t.revisions ?? 1) > 1 ? ` (${t.revisions} revisions)` : ""}`,
      waiting: waited === undefined ? "-" : span(Math.max(0, now - waited)),
      windows: holding
        .map((w) => w.metadata?.name ?? "")
        .sort()
        .join(", "),
      goes,
    };
  });
  return [...rows.sort((a, b) => `${a.namespace}/${a.target}`.localeCompare(`${b.namespace}/${b.target}`)), ...more];
}

/** The table for people, with what waits and what needs attention below it (pure). */
export function statusTable(windows: readonly WindowObject[], overrides: readonly OverrideObject[], now: number, o: TableOptions): string {
  if (windows.length === 0) {
    if (o.allNamespaces) return "No windows in any namespace.\n";
    return `No windows in namespace ${o.namespace}.${o.namespaceFromContext ? " Choose another with -n NAMESPACE, or look in all with -A." : ""}\n`;
  }
  const p = o.paint;
  const header = [
    ...(o.allNamespaces ? ["NAMESPACE"] : []),
    "NAME",
    "STATE",
    "SINCE",
    "NEXT",
    "TARGETS",
    "PENDING",
    "OVERRIDE",
    ...(o.wide ? ["MODE", "REASON"] : []),
  ];
  const rows = windows.map((w) => {
    const state = shownState(w);
    const since = instant(w.status?.since);
    const targets = w.status?.targets;
    const pending = targets?.pending ?? 0;
    return [
      ...(o.allNamespaces ? [w.metadata?.namespace ?? ""] : []),
      w.metadata?.name ?? "",
      p(stateStyle(state), state),
      since === undefined ? "-" : span(Math.max(0, now - since)),
      nextChange(w, now),
      targets === undefined ? "-" : `${targets.open}/${targets.matched} open${targets.conflicts > 0 ? `, ${targets.conflicts} in conflict` : ""}`,
      pending > 0 ? p("yellow", String(pending)) : "0",
      w.status?.override ?? "-",
      ...(o.wide ? [w.spec?.mode ?? "Suspend", w.status?.reason ?? "-"] : []),
    ];
  });
  const sections = [table(header, rows)];

  const waiting = waitingRows(windows, overrides, now, o.views);
  if (waiting.length > 0) {
    const rows = waiting.map((t) => [...(o.allNamespaces ? [t.namespace] : []), t.target, t.revision, t.waiting, t.windows, t.goes]);
    sections.push(
      `Waiting to go out:\n${indent(table([...(o.allNamespaces ? ["NAMESPACE"] : []), "TARGET", "REVISION", "WAITING", "WINDOWS", "GOES OUT"], rows))}\n` +
        `  Why a target waits: fluxgate explain KIND/NAME -n NAMESPACE`,
    );
  }

  const notes = windows.flatMap((w) => {
    const note = attention(w);
    return note === null ? [] : [`${o.allNamespaces ? `${w.metadata?.namespace ?? ""}/` : ""}${w.metadata?.name ?? ""}: ${note}`];
  });
  if (notes.length > 0) sections.push(`Needs attention:\n${notes.map((n) => `  ${p("red", "!")} ${n}`).join("\n")}`);
  return `${sections.join("\n\n")}\n`;
}

/**
 * Prints the windows' status; with `watch`, redraws it on every change until stopped.
 *
 * @example await status({ namespace: "flux-system", allNamespaces: false, output: "json", watch: false, color: false, now: Date.now })
 */
export async function status(options: StatusOptions): Promise<string> {
  const cluster = connect(options);
  const scope = options.allNamespaces ? undefined : cluster.namespace;
  const people = options.output === "table" || options.output === "wide";
  const windows = await list<WindowObject>(cluster, WINDOWS, scope);
  // Overrides tell when a waiting target goes out; without read access the table does without them.
  const readable = people ? await readableOverrides(cluster, scope) : null;
  const overrides = readable ?? [];
  const views = new Views();
  const render = (ws: readonly WindowObject[], os: readonly OverrideObject[], compact: boolean): string => {
    if (!people) {
      const result = statusResult(ws);
      return compact && options.output === "json" ? `${JSON.stringify(result)}\n` : machine(result, options.output as "json" | "yaml");
    }
    return statusTable(ws, os, options.now(), {
      allNamespaces: options.allNamespaces,
      wide: options.output === "wide",
      namespace: cluster.namespace,
      namespaceFromContext: !cluster.namespaceGiven,
      paint: painter(options.color),
      views,
    });
  };
  if (!options.watch) return render(windows, overrides, false);

  const out = options.out ?? process.stdout;
  const terminal = (out as Partial<WriteStream>).isTTY === true;
  // Ctrl-C ends --watch cleanly.
  const stop = options.signal ?? stopSignals().signal;
  let last = "";
  let frames = 0;
  // The watch ends when asked to, or at once when the API server refuses it (RBAC without "watch").
  const done = new AbortController();
  if (stop.aborted) done.abort();
  stop.addEventListener("abort", () => done.abort(), { once: true });
  let refused: Error | undefined;
  let pending: NodeJS.Timeout | undefined;
  const watch = <T extends WindowObject | OverrideObject>(resource: typeof WINDOWS, fatal: boolean): Informer<T> =>
    new Informer<T>(
      cluster.kubeConfig,
      resource,
      () => {
        // Coalesce a burst of events (a status patch per target) into one redraw.
        clearTimeout(pending);
        pending = setTimeout(draw, 50);
      },
      {
        namespace: scope,
        onError: (e) => {
          // A connection that drops is retried by the informer; a refusal is final.
          const code = statusCodeOf(e);
          if (fatal && (code === 401 || code === 403 || code === 404)) {
            refused = clusterError(e, { verb: "watch", resource, namespace: scope }, cluster);
            done.abort();
          }
        },
      },
    );
  const windowInformer = watch<WindowObject>(WINDOWS, true);
  const overrideInformer = readable !== null ? watch<OverrideObject>(OVERRIDES, false) : undefined;
  let synced = false;
  function draw(): void {
    const body = synced ? render(sorted(windowInformer.list(scope)), overrideInformer?.list(scope) ?? overrides, true) : render(windows, overrides, true);
    // On a terminal the frame carries the time, like watch(1), so a person sees it is live.
    const frame = terminal ? `${localTime(options.now(), zoneRules("UTC"))} · fluxgate status --watch · Ctrl-C to stop\n\n${body}` : body;
    if (frame === last) return;
    last = frame;
    if (terminal) {
      // On the alternate screen (as watch(1)): home, each line over the old one (erasing its rest), then
      // erase below, so the table is redrawn in place without flicker.
      out.write(`${frames === 0 ? ALTERNATE_SCREEN : ""}\x1b[H${frame.replace(/\n/g, "\x1b[K\n")}\x1b[J`);
    } else {
      out.write(`${frames > 0 && options.output === "yaml" ? "---\n" : frames > 0 && options.output !== "json" ? "\n" : ""}${frame}`);
    }
    frames++;
  }
  draw();
  void Promise.all([windowInformer.start(), overrideInformer?.start()]).then(() => {
    synced = true;
    draw();
  });
  // On a terminal the relative times ("in 2h13m") move: redraw each second; a pipe gets a frame per change only.
  const ticker = terminal ? setInterval(draw, 1000) : undefined;
  try {
    if (!done.signal.aborted) await new Promise<void>((resolve) => done.signal.addEventListener("abort", () => resolve(), { once: true }));
  } finally {
    clearInterval(ticker);
    clearTimeout(pending);
    await Promise.all([windowInformer.stop(), overrideInformer?.stop()]);
    // Back to the normal screen, leaving the last table there.
    if (terminal) out.write(`${MAIN_SCREEN}${last}`);
  }
  if (refused !== undefined) throw refused;
  return "";
}

/** The overrides, or null when RBAC does not let us read them. */
async function readableOverrides(cluster: Cluster, scope: string | undefined): Promise<OverrideObject[] | null> {
  try {
    return await list<OverrideObject>(cluster, OVERRIDES, scope);
  } catch (e) {
    // No read access, or the overrides' CRD already gone while the windows' still terminates (an uninstall): the table does without them.
    const code = statusCodeOf((e as Error).cause);
    if (code === 403 || code === 404) return null;
    throw e;
  }
}

function sorted(windows: readonly WindowObject[]): WindowObject[] {
  const key = (w: WindowObject): string => `${w.metadata?.namespace ?? ""}/${w.metadata?.name ?? ""}`;
  return [...windows].sort((a, b) => key(a).localeCompare(key(b)));
}
