// Live status (a kubeconfig context) and pushed status (the cluster's events) of one cluster, per target: the newest information wins, and the view says which
// source it came from.

import { Views } from "../../policy/views.ts";
import { decideTarget, observedTarget, selects, type ObservedWindow, type TargetIdentity, type WindowView } from "../../policy/index.ts";
import { TARGET_NOT_FOLLOWING } from "../../api/conditions.ts";
import { rfc3339 } from "../../schedule/format.ts";
import type { KubernetesObject } from "../../kube/types.ts";
import type { PushedTarget } from "./store.ts";

/** What a target does beside what was decided, as its cluster observed it. */
export interface ObservedView {
  /** Whether the target holds new changes now: spec.suspend in Suspend mode, the gated source in Gate mode; null when no event said. */
  holding: boolean | null;
  /**
   * It does not do what was decided: decided closed or frozen yet not holding, or a change went
   * through; decided open yet spec.suspend is true (in Gate mode too: suspended, it takes nothing); or the cluster's controller said it does not follow. The
   * view
   * must not call it simply closed or open.
   */
  diverged: boolean;
  /**
   * The cluster's controller's own sentence for why the target does not do what was decided (its
   * last pushed event, TargetNotFollowing; or, read live, a window's Ready=False that names it), so
   * the view says what the controller says instead of guessing; null when it said nothing.
   */
  problem: string | null;
}

/** A pushed target with what it does beside what was decided, and whether it went quiet. */
export type PushedTargetView = PushedTarget &
  ObservedView & {
    /** Nothing of the target (no event, no heartbeat) within the stale threshold. */
    stale: boolean;
  };

/** Whether what a target does agrees with what was decided. */
export function observedOf(t: Pick<PushedTarget, "state" | "suspended" | "gated" | "violation"> & { problem: string | null }): ObservedView {
  const holding = t.gated ?? t.suspended;
  const closed = t.state === "closed" || t.state === "frozen";
  const diverged = (closed && (holding === false || t.violation !== null)) || (t.state === "open" && t.suspended === true) || t.problem !== null;
  return { holding, diverged, problem: t.problem };
}

/** What a pushed target's newest event says of it not following: the controller's sentence when that event is a TargetNotFollowing warning. */
export function pushedProblem(t: Pick<PushedTarget, "lastReason" | "lastMessage">): string | null {
  return t.lastReason === TARGET_NOT_FOLLOWING ? t.lastMessage : null;
}

/** The pushed targets as the API shows them: each with what it does beside what was decided, and stale when silent past `staleAfterMs`. */
export function pushedTargetViews(targets: readonly PushedTarget[], now: number, staleAfterMs: number): PushedTargetView[] {
  return targets.map((t) => ({
    ...t,
    upcoming: comingOf(t, now),
    ...observedOf({ ...t, problem: pushedProblem(t) }),
    stale: now - Date.parse(t.lastEventAt) > staleAfterMs,
  }));
}

/** A target's last notice while what it announced is still to come; null once it has come (the store keeps it until a newer notice). */
export function comingOf(t: Pick<PushedTarget, "upcoming">, now: number): PushedTarget["upcoming"] {
  const u = t.upcoming;
  return u === null || !(Date.parse(u.at) > now) ? null : u;
}

/** A window's coming opening or freeze start, as its cluster announced it (spec.notice), with the targets it was announced to. */
export interface UpcomingWindowView {
  window: string | null;
  transition: string;
  at: string;
  targets: number;
}

/** The coming notices of a cluster's targets, one per window and transition, soonest first. */
export function upcomingWindows(targets: readonly Pick<PushedTarget, "upcoming">[], now: number): UpcomingWindowView[] {
  const byKey = new Map<string, UpcomingWindowView>();
  for (const t of targets) {
    const u = comingOf(t, now);
    if (u === null) continue;
    const key = `${u.window ?? ""}|${u.transition}|${u.at}`;
    const known = byKey.get(key);
    if (known !== undefined) known.targets++;
    else byKey.set(key, { window: u.window, transition: u.transition, at: u.at, targets: 1 });
  }
  return [...byKey.values()].sort((a, b) => Date.parse(a.at) - Date.parse(b.at) || (a.window ?? "").localeCompare(b.window ?? ""));
}

/** Where a target's status came from. */
export type StatusSource = "live" | "pushed";

/** A target's status from the newest source that knows it. */
export interface TargetStatusView {
  kind: string;
  namespace: string;
  name: string;
  /** The source the decision below comes from, and as of when: for live, when the service read the cluster; for pushed, the event's time. */
  source: StatusSource;
  asOf: string;
  /** The other source, when it knows the target too, and as of when (older, or as old). */
  other: { source: StatusSource; asOf: string } | null;
  /** What was decided: open, closed, frozen; held (an invalid window holds it as it is); ungoverned. */
  state: string | null;
  windows: string | null;
  /** The next change of state (RFC 3339), null when none is due or the source does not say. */
  nextChange: string | null;
  /** When the decided state began. */
  lastTransition: string | null;
  pendingRevision: string | null;
  pendingSince: string | null;
  /**
   * What the target does, as observed. Live status reads windows and overrides, not the targets,
   * so spec.suspend and the gate come from pushed events only — and only when the event is not
   * older than the decided state's beginning (an observation from before it says nothing of now).
   * A violation comes from the winning source (a window's status lists them too).
   */
  suspended: boolean | null;
  gated: boolean | null;
  violation: string | null;
  holding: boolean | null;
  diverged: boolean;
  /** The cluster's controller's sentence for why it does not do what was decided (see ObservedView). */
  problem: string | null;
}

/** How the two sources of one cluster stand. */
export interface StatusSources {
  /** The kubeconfig context: when it was read, or why it could not be; null without a context. */
  live: { context: string; readAt: string | null; error: string | null } | null;
  /** The cluster's last event, or null when the receiver is off or it never pushed. */
  pushed: { lastHeard: string } | null;
  /** The source with the newest information, null when neither has any. */
  newest: StatusSource | null;
}

/** A live window status entry naming a target (pending, violations). */
interface TargetEntry {
  kind: string;
  namespace: string;
  name: string;
}

interface WindowStatusLike {
  pending?: Array<TargetEntry & { pendingRevision: string; waitingSince?: string }>;
  violations?: Array<TargetEntry & { revision: string }>;
}

const same = (a: TargetEntry, b: TargetEntry): boolean => a.kind === b.kind && a.namespace === b.namespace && a.name === b.name;
const keyOf = (t: TargetEntry): string => `${t.kind}/${t.namespace}/${t.name}`;

/**
 * Each target as the cluster's live windows and overrides decide it now (the policy layer, as the
 * controller decides), with what waits and what went through from the windows' status. Targets are
 * those the windows name, list as pending or as violations, and those in `known` (the pushed ones,
 * whose events name their windows: a label selector cannot be matched without the target's labels).
 */
export function liveTargets(
  objects: { windows: KubernetesObject[]; overrides: KubernetesObject[] },
  known: readonly PushedTarget[],
  now: number,
): Map<string, Omit<TargetStatusView, "source" | "asOf" | "other" | "suspended" | "gated" | "holding" | "diverged">> {
  const observed: ObservedWindow[] = objects.windows;
  const views = new Views();
  const windows = objects.windows.map((o) => ({ view: views.window(o, now).view, status: (o as { status?: WindowStatusLike }).status ?? {} }));
  const overrides = objects.overrides.flatMap((o) => {
    const v = views.override(o, now).view;
    return v === null ? [] : [v];
  });
  const identities = new Map<string, TargetEntry>();
  const add = (t: TargetEntry): void => void identities.set(keyOf(t), { kind: t.kind, namespace: t.namespace, name: t.name });
  for (const w of windows) {
    for (const t of w.view.targets) if (t.name !== undefined) add({ kind: t.kind, namespace: t.namespace ?? w.view.namespace, name: t.name });
    for (const p of w.status.pending ?? []) add(p);
    for (const v of w.status.violations ?? []) add(v);
  }
  for (const t of known) add(t);

  const out: ReturnType<typeof liveTargets> = new Map();
  for (const [key, t] of identities) {
    const identity: TargetIdentity = { ...t, labels: {} };
    const named = new Set(
      (known.find((k) => same(k, t))?.windows ?? "")
        .split(",")
        .map((n) => n.trim())
        .filter((n) => n !== ""),
    );
    const selecting: WindowView[] = windows
      .filter(
        (w) =>
          !w.view.deleting &&
          (selects(w.view.namespace, w.view.targets, identity) || named.has(w.view.name) || (w.status.pending ?? []).some((p) => same(p, t))),
      )
      .map((w) => w.view);
    if (selecting.length === 0) continue;
    const decision = decideTarget(selecting, overrides, now);
    const statuses = windows.filter((w) => selecting.includes(w.view)).map((w) => w.status);
    const pending = statuses.flatMap((s) => s.pending ?? []).find((p) => same(p, t));
    const violation = statuses.flatMap((s) => s.violations ?? []).find((v) => same(v, t));
    // What the controller wrote on the windows about this target, read as explain and status read it.
    const said = observedTarget(
      t,
      observed.filter((w) => selecting.some((v) => v.namespace === w.metadata?.namespace && v.name === w.metadata?.name)),
    ).problems;
    out.set(key, {
      ...t,
      state: decision.state ?? (decision.effect === "hold" ? "held" : "ungoverned"),
      windows: selecting.map((w) => w.name).join(", "),
      nextChange: decision.until === null ? null : rfc3339(decision.until),
      lastTransition: decision.since === null ? null : rfc3339(decision.since),
      pendingRevision: pending?.pendingRevision ?? null,
      pendingSince: pending?.waitingSince ?? null,
      violation: violation?.revision ?? null,
      problem: said.length === 0 ? null : said.map((x) => `${x.reason}: ${x.message}`).join("; "),
    });
  }
  return out;
}

/** A pushed target as a status view, the newest source. */
function fromPushed(p: PushedTarget): TargetStatusView {
  return {
    kind: p.kind,
    namespace: p.namespace,
    name: p.name,
    source: "pushed",
    asOf: p.lastEventAt,
    other: null,
    state: p.state,
    windows: p.windows,
    nextChange: p.nextChange === "" ? null : p.nextChange,
    lastTransition: p.lastTransition,
    pendingRevision: p.pendingRevision,
    pendingSince: p.pendingSince,
    suspended: p.suspended,
    gated: p.gated,
    violation: p.violation,
    ...observedOf({ ...p, problem: pushedProblem(p) }),
  };
}

/**
 * Every target of the cluster from the newest source that knows it. `live` is null without a
 * context or when the read failed; `readAt` is when it was read.
 */
export function newestTargets(pushed: readonly PushedTarget[], live: { targets: ReturnType<typeof liveTargets>; readAt: number } | null): TargetStatusView[] {
  const out = new Map<string, TargetStatusView>();
  for (const p of pushed) out.set(keyOf(p), fromPushed(p));
  if (live !== null) {
    const readAt = new Date(live.readAt).toISOString();
    for (const [key, l] of live.targets) {
      const p = pushed.find((x) => keyOf(x) === key);
      // An event stamped after the read (a cluster's clock a little ahead) is the newer information.
      if (p !== undefined && Date.parse(p.lastEventAt) > live.readAt) {
        out.set(key, { ...fromPushed(p), other: { source: "live", asOf: readAt } });
        continue;
      }
      // The pushed observation counts only when it is not older than the state live decided.
      const fresh = p !== undefined && (l.lastTransition === null || Date.parse(p.lastEventAt) >= Date.parse(l.lastTransition));
      const suspended = fresh ? p.suspended : null;
      const gated = fresh ? p.gated : null;
      out.set(key, {
        ...l,
        source: "live",
        asOf: readAt,
        other: p === undefined ? null : { source: "pushed", asOf: p.lastEventAt },
        suspended,
        gated,
        ...observedOf({ state: l.state, suspended, gated, violation: l.violation, problem: l.problem ?? (fresh ? pushedProblem(p) : null) }),
      });
    }
  }
  return [...out.values()].sort((a, b) => a.kind.localeCompare(b.kind) || a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name));
}

/** Which source has the newest information of the cluster. */
export function newestSource(readAt: number | null, lastHeard: string | null): StatusSource | null {
  if (readAt === null) return lastHeard === null ? null : "pushed";
  return lastHeard !== null && Date.parse(lastHeard) > readAt ? "pushed" : "live";
}
