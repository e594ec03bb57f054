// The result of `fluxgate explain` (its -o json|yaml contract) and its text for people.

import type { CompiledWindow, RuleRef, Transition } from "../../schedule/index.ts";
import { decidingWindow, reasonOf, type TargetDecision, type WindowView } from "../../policy/index.ts";
import { stateStyle, type Paint } from "./color.ts";
import { indent, table } from "./table.ts";
import { at, span, wallClock, when } from "./when.ts";
import { instant, zoneOf, type WindowObject } from "./window.ts";

/** A rule as `explain -o json` shows it. */
export interface RuleResult {
  window: string;
  kind: RuleRef["kind"];
  label: string;
  reason: string | null;
}

/** What `explain -o json|yaml` prints: a stable contract (docs/cli.md). */
export interface ExplainResult {
  target: { kind: string; namespace: string; name: string };
  decision: {
    /** enforce: spec.suspend follows the state; gate: the revision does; hold: left as it is; release: no window selects it. */
    effect: "enforce" | "gate" | "hold" | "release";
    state: "Open" | "Closed" | "Frozen" | null;
    mayTakeChanges: boolean | null;
    overridden: boolean;
    rule: RuleResult | null;
    since: string | null;
    until: string | null;
    message: string;
  };
  next: { at: string; state: "Open" | "Closed" | "Frozen"; rule: RuleResult | null } | null;
  suspend: { value: boolean; managers: string[] };
  /** `revisions`: distinct source revisions arrived while it waited, as the controller counted them (a lower bound of the commits). */
  revisions: { applied: string | null; pending: string | null; revisions: number | null; waitingSince: string | null; source: string | null };
  windows: Array<{ namespace: string; name: string; mode: string; valid: boolean; state: "Open" | "Closed" | "Frozen" | "Overridden" | null; message: string }>;
  overrides: Array<{ namespace: string; name: string; window: string; action: string; until: string | null; reason: string; phase: string | null }>;
  /**
   * The schedules and freezes of those windows given by an RFC 5545 rule: the rule, in words, and the interval active now or
   * next (RFC 3339 UTC; `local` in the window's zone).
   */
  recurrences: Array<{
    namespace: string;
    window: string;
    kind: "allow" | "freeze";
    path: string;
    rule: string;
    words: string;
    label: string;
    active: boolean;
    next: { start: string; end: string; local: string } | null;
  }>;
  /** Revisions it applied while its windows were closed, as the windows' controller observed them (kept until the window opens). */
  violations: Array<{ window: string; revision: string; at: string; cause: string }>;
  /**
   * What the controller wrote about the target on its windows: windows that name it but that it does
   * not act on for it (--no-cross-namespace-refs), and Ready=False conditions that name it.
   */
  observed: {
    refusedBy: Array<{ namespace: string; name: string; message: string }>;
    problems: Array<{ namespace: string; name: string; reason: string; message: string }>;
  };
  /** What could not be read, in sentences (RBAC); the answer above may then be incomplete. */
  notes: string[];
}

/** What the text of `fluxgate explain` says beyond the result: the decision and the windows it came from. */
export interface RenderContext {
  now: number;
  selecting: readonly WindowView[];
  windows: readonly WindowObject[];
  decision: TargetDecision;
  nextTransition: Transition | undefined;
  nextOpen: Transition | undefined;
  /** Each selecting window's decision on its own, in the order of `windows` of the result. */
  alone: readonly TargetDecision[];
  painter: Paint;
}

function zoneNamed(windowName: string | undefined, ctx: RenderContext): ReturnType<typeof zoneOf> {
  const w = ctx.windows.find((o) => o.metadata?.name === windowName) ?? ctx.windows.find((o) => ctx.selecting.some((s) => s.name === o.metadata?.name));
  return w === undefined ? zoneOf({}) : zoneOf(w);
}

/** The text of `fluxgate explain`: the decision, the rule behind it, what comes next, the windows, overrides and revisions. */
export function renderExplained(r: ExplainResult, ctx: RenderContext): string {
  const p = ctx.painter;
  const { now, decision } = ctx;
  const lines: string[] = [];
  const label = (name: string, text: string): void => {
    const [first, ...rest] = text.split("\n");
    lines.push(`${name.padEnd(11)} ${first ?? ""}`, ...rest.map((l) => `${" ".repeat(12)}${l}`));
  };
  lines.push(`${r.target.kind} ${r.target.namespace}/${r.target.name}`, "");

  const conflict = r.decision.message.startsWith("Held closed: ");
  if (conflict) {
    label("Decision", `${p("red", "Held closed")}: takes no changes until one mode governs it\n${r.decision.message.replace(/^Held closed: /, "")}`);
  } else if (decision.state === null) {
    const detail = r.decision.message.replace(/^Held as it is: /, "");
    label(
      "Decision",
      r.decision.effect === "release"
        ? `${p("green", "Not governed")}: takes changes as Flux applies them\n${detail}`
        : `${p("red", "Held")}: fluxgate leaves it as it is, suspended or not\n${detail.charAt(0).toUpperCase()}${detail.slice(1)}`,
    );
  } else {
    const shown = r.decision.state ?? "Closed";
    const zone = zoneNamed(decision.cause?.window, ctx);
    const takes = decision.state === "open" ? "takes changes" : "takes no changes";
    const until = decision.until === null ? "" : ` until ${at(decision.until, now, zone)}`;
    // The rule without its end (the first line has it), and the window it belongs to.
    const rule = (d: TargetDecision, compiled: CompiledWindow | null): string =>
      compiled === null || d.state === null ? "" : reasonOf({ state: d.state, cause: d.cause, until: null }, compiled.zone, null);
    const names = ctx.selecting.map((w) => w.name).join(", ");
    const why =
      decision.cause === null
        ? `No schedule of window ${names} is active.`
        : `${rule(decision, decidingWindow(decision.cause, ctx.selecting))}, of window ${decision.cause.window}.`;
    const beaten = ctx.selecting.flatMap((w, i) => {
      const d = ctx.alone[i];
      return d === undefined || d.state === null || w.name === decision.cause?.window || d.state === decision.state
        ? []
        : [`This beats window ${w.name} (alone: ${rule(d, w.compiled)}).`];
    });
    const details = [why, ...beaten];
    label("Decision", `${p(stateStyle(shown), shown)}: ${takes}${until}\n${details.join("\n")}`);
  }
  if (conflict) {
    label("Next", "no change until the conflict is resolved: make every window that selects it the same mode");
  } else if (ctx.nextTransition !== undefined) {
    const t = ctx.nextTransition;
    const zone = zoneNamed(t.cause?.window ?? decision.cause?.window, ctx);
    const verb = t.state === "open" ? "opens" : t.state === "frozen" ? "freezes" : "closes";
    const compiled = decidingWindow(t.cause, ctx.selecting);
    const why =
      t.cause === null || compiled === null
        ? "no schedule is active then"
        : `${reasonOf({ state: t.state, cause: t.cause, until: null }, compiled.zone, null)}, of window ${t.cause.window}`;
    label("Next", `${verb} ${at(t.at, now, zone)}: ${why}`);
  } else if (decision.state !== null) {
    label("Next", "no change within a year");
  }
  if (r.decision.effect === "enforce") {
    const wanted = r.decision.mayTakeChanges === false;
    const owners = r.suspend.managers.length === 0 ? "not set by anyone" : `set by ${r.suspend.managers.join(", ")}`;
    const agrees = r.suspend.value === wanted;
    const others = r.suspend.managers.filter((m) => m !== "fluxgate");
    // Why it differs, as observed: what the controller reported on the window, else who set it, else that fluxgate has not written it.
    const why =
      r.observed.problems.length > 0
        ? `the controller reports ${r.observed.problems.map((x) => x.reason).join(", ")} (below)`
        : others.length > 0
          ? `set by manager ${others.map((m) => `"${m}"`).join(", ")}`
          : r.suspend.managers.includes("fluxgate")
            ? "fluxgate wrote it before the decision changed and has not written it since: is the controller running?"
            : "fluxgate has not written it: is the controller running, and does its RBAC allow patching it?";
    label(
      "Suspend",
      `spec.suspend is ${String(r.suspend.value)} (${owners})${agrees ? ", as decided" : p("yellow", ` — the decision wants ${String(wanted)}: ${why}`)}`,
    );
  } else if (r.decision.effect === "gate") {
    // What the controller reports of the gated source, when it does (status.gate of a Gate-mode window).
    const pins = ctx.windows
      .filter((w) => ctx.selecting.some((v) => v.namespace === w.metadata?.namespace && v.name === w.metadata?.name))
      .map((w) => (w.status as { gate?: { upstream?: string; gatedSource?: string; upstreamRevision?: string; pinnedRevision?: string } } | undefined)?.gate)
      .filter((g) => g !== undefined)
      .map(
        (g) =>
          `${g.gatedSource ?? "the gated source"} pinned at ${g.pinnedRevision ?? "nothing yet"}; upstream ${g.upstream ?? ""} at ${g.upstreamRevision ?? "?"}`,
      );
    label("Gate", ["Gate mode: Flux keeps reconciling and healing; only the revision of the gated source is held", ...pins].join("\n"));
  } else {
    label("Suspend", `spec.suspend is ${String(r.suspend.value)}${r.suspend.managers.length > 0 ? ` (set by ${r.suspend.managers.join(", ")})` : ""}`);
  }
  label("Applied", r.revisions.applied ?? "nothing yet");
  if (r.revisions.pending !== null) {
    const since = instant(r.revisions.waitingSince ?? undefined);
    const waited = since === undefined ? "" : `, waiting ${span(Math.max(0, now - since))}`;
    const goes = conflict
      ? "held until the conflict of modes is resolved"
      : r.decision.mayTakeChanges === true
        ? "goes out now: it may take changes"
        : ctx.nextOpen !== undefined
          ? `goes out when it opens: ${at(ctx.nextOpen.at, now, zoneNamed(ctx.nextOpen.cause?.window, ctx))}`
          : "no opening within a year";
    const count = (r.revisions.revisions ?? 1) > 1 ? ` (${r.revisions.revisions} revisions since the applied one)` : "";
    label("Pending", `${r.revisions.pending}${count}${waited}\n${goes}`);
  } else {
    label("Pending", r.revisions.source === null ? "unknown: it names no source" : "nothing: it has applied what its source offers");
  }

  for (const x of r.observed.problems) label("Observed", p("red", `window ${x.namespace}/${x.name}: ${x.reason}: ${x.message}`));
  for (const x of r.observed.refusedBy)
    label("Refused", p("yellow", `window ${x.namespace}/${x.name} names it, but the controller does not act on it: ${x.message}`));
  for (const v of r.violations) {
    label("Violation", p("red", `applied ${v.revision} at ${v.at} while window ${v.window} was closed: ${v.cause}`));
  }

  lines.push("");
  if (r.windows.length === 0) {
    lines.push("No window selects it.");
  } else {
    lines.push(`Windows that select it (${r.windows.length}):`);
    lines.push(
      indent(
        table(
          ["WINDOW", "MODE", "ALONE, IT WOULD BE"],
          r.windows.map((w) => [`${w.namespace}/${w.name}`, w.mode, w.valid ? w.message : p("red", w.message)]),
        ),
      ),
    );
  }
  if (r.recurrences.length > 0) {
    // Each rule, what it says, and when it next starts in its window's zone: a calendar rule is checked against a calendar.
    lines.push("", `Recurrence rules of these windows (${r.recurrences.length}):`);
    for (const x of r.recurrences) {
      const start = instant(x.next?.start);
      const end = instant(x.next?.end);
      const zone = zoneNamed(x.window, ctx);
      const next =
        start === undefined || end === undefined
          ? "never starts again"
          : x.active
            ? `active now, until ${at(end, now, zone)}`
            : `next ${at(start, now, zone)} → ${wallClock(end, now, zone)}`;
      lines.push(`  ${x.namespace}/${x.window} ${x.path}${x.kind === "freeze" ? " (freeze)" : ""}: ${x.label}`, `    ${x.words}; ${next}`);
    }
  }
  if (r.windows.length > 0) {
    lines.push("");
    if (r.overrides.length === 0) {
      lines.push("Overrides of these windows: none.");
    } else {
      lines.push(`Overrides of these windows (${r.overrides.length}):`);
      lines.push(
        indent(
          table(
            ["OVERRIDE", "WINDOW", "ACTION", "UNTIL", "PHASE", "REASON"],
            r.overrides.map((o) => {
              const until = instant(o.until ?? undefined);
              return [o.name, o.window, o.action, until === undefined ? "-" : `${when(until, now, zoneNamed(o.window, ctx))}`, o.phase ?? "-", o.reason];
            }),
          ),
        ),
      );
    }
  }
  if (r.notes.length > 0) lines.push("", ...r.notes.map((n) => `${p("yellow", "Note")}: ${n}.`));
  return `${lines.join("\n")}\n`;
}
