// Notice before a change (spec.notice): a window's next opening or freeze start, recorded in its status and announced once, on the window and on each target.

import type { WindowStatus } from "../api/index.ts";
import { FREEZE_STARTS_SOON, WINDOW_OPENS_SOON } from "../api/conditions.ts";
import { EVENT_METADATA } from "../api/constants.ts";
import type { KubernetesObject } from "../kube/types.ts";
import type { FluxObject } from "../kube/flux.ts";
import { decisionOfPlan, noticeDue, targetNotice, upcomingNotice, windowNotice, type NoticeTarget, type OverrideView } from "../policy/index.ts";
import { Evaluator, type CompiledWindow } from "../schedule/index.ts";
import { rfc3339 } from "../schedule/format.ts";
import type { ReconcileContext } from "./context.ts";
import { targetPicture } from "./picture.ts";
import type { TargetReport } from "./status.ts";
import { planFor } from "./target.ts";

/** How soon a notice whose event the API server refused is announced again. */
const NOTICE_RETRY_MS = 10_000;

type Upcoming = NonNullable<WindowStatus["upcoming"]>;

/** What a window's reconcile knows that its notice needs. */
export interface NoticeInput {
  window: KubernetesObject;
  /** `namespace/name`. */
  key: string;
  name: string;
  compiled: CompiledWindow;
  /** The window's own overrides. */
  overrides: readonly OverrideView[];
  noticeMs: number;
  now: number;
  /** status.upcoming as the cache has it. */
  previous: Upcoming | undefined;
  targets: readonly FluxObject[];
  /** What each target did, as the window summed it up (the revision waiting). */
  reports: readonly TargetReport[];
}

export interface NoticeOutcome {
  /** status.upcoming to write; undefined when nothing is to come. */
  upcoming: Upcoming | undefined;
  /** When to look again: the notice's moment, or a retry; null when nothing is left to announce. */
  recheckAt: number | null;
}

/**
 * With spec.notice: the next opening or freeze start, recorded in status.upcoming and announced
 * once its notice is due — a WindowOpensSoon or FreezeStartsSoon event on the window (every target
 * in a line) and on each target (forwarded to notification-controller with the target's picture),
 * naming the revision that goes out, or that nothing waits. Once per transition: a status that
 * records it announced (or this process's memory of it), or the event found already recorded
 * (named after the transition), stops a second one. Inside the notice period and not yet announced
 * (a window just created, a notice just set, a controller that was down at the notice's moment), it
 * is announced at once.
 */
export async function announceNotice(ctx: ReconcileContext, input: NoticeInput): Promise<NoticeOutcome> {
  const { compiled, now, name } = input;
  const evaluator = new Evaluator([compiled], input.overrides);
  const u = upcomingNotice(evaluator.stateAt(now).state, evaluator.transitions(now, 16), input.noticeMs);
  if (u === null) return { upcoming: undefined, recheckAt: null };
  const upcoming: Upcoming = { transition: u.transition, at: rfc3339(u.at), noticeAt: rfc3339(u.noticeAt) };
  // What this process announced last, else the cache's status: a cache that lags the last write must not announce it again.
  const known = [ctx.state.announcedNotice(input.key), input.previous].find(
    (k) => k?.announcedAt !== undefined && k.transition === u.transition && Date.parse(k.at) === u.at,
  );
  if (known?.announcedAt !== undefined)
    return { upcoming: { ...upcoming, announcedAt: known.announcedAt, ...(known.message !== undefined ? { message: known.message } : {}) }, recheckAt: null };
  if (!noticeDue(u, now)) return { upcoming, recheckAt: u.noticeAt };

  const reason = u.transition === "Open" ? WINDOW_OPENS_SOON : FREEZE_STARTS_SOON;
  const once = `${u.transition}@${upcoming.at}`;
  const views = ctx.cache.windowViews();
  const overrides = ctx.cache.overrideViews();
  const lines = input.targets.map((t) => {
    const report = input.reports.find((r) => r.kind === t.kind && r.namespace === t.metadata?.namespace && r.name === t.metadata?.name);
    // What all its windows decide at the transition: another window's freeze may keep it held although this one opens.
    const then = decisionOfPlan(planFor(t, views, overrides, u.at));
    const line: NoticeTarget = {
      namespace: t.metadata?.namespace ?? "",
      name: t.metadata?.name ?? "",
      pendingRevision: report?.pending?.pendingRevision ?? null,
      heldBy: u.transition === "Open" && then.mayTakeChanges !== true ? then.message : null,
    };
    return { t, line };
  });
  const message = windowNotice(
    u,
    compiled.zone,
    now,
    lines.map((l) => l.line),
  );
  if (!(await ctx.events.record(input.window, "Normal", reason, message, { once }))) {
    // The API server refused the event: announced again shortly, while the notice is still due.
    return { upcoming, recheckAt: Math.min(now + NOTICE_RETRY_MS, u.at) };
  }
  for (const { t, line } of lines) {
    ctx.events.emit(t, "Normal", reason, targetNotice(name, u, compiled.zone, now, line), {
      forward: true,
      metadata: {
        ...targetPicture(ctx, t, planFor(t, views, overrides, now)),
        [EVENT_METADATA.upcoming]: u.transition,
        [EVENT_METADATA.upcomingAt]: upcoming.at,
        [EVENT_METADATA.upcomingWindow]: name,
      },
      once: `${name}/${once}`,
      retry: true,
    });
  }
  const announced: Upcoming = { ...upcoming, announcedAt: rfc3339(now), message };
  ctx.state.recordAnnounced(input.key, announced);
  ctx.log.info("Announced a coming transition", { window: input.key, transition: u.transition, at: upcoming.at, targets: lines.length });
  return { upcoming: announced, recheckAt: null };
}
