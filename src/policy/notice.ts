// Notice before a change (`spec.notice`): which coming transition a window announces, when, and how it is worded per target.

import type { WindowState, Transition } from "../schedule/index.ts";
import { formatLength } from "../schedule/duration.ts";
import { localTime } from "../schedule/format.ts";
import type { ZoneRules } from "../schedule/index.ts";

/** What a notice announces: the window opens, or a freeze starts. */
export type NoticeTransition = "Open" | "Frozen";

/** The coming transition a window announces, and from when. */
export interface UpcomingNotice {
  transition: NoticeTransition;
  /** When the window opens or the freeze starts (epoch ms). */
  at: number;
  /** When it is announced: `at` minus the notice (epoch ms). */
  noticeAt: number;
}

/**
 * The first coming transition that a notice announces, from the window's state now and its next
 * transitions (in order): one into `open` from a state that is not open (the window opens), or one
 * into `frozen` from a state that is not frozen (a freeze starts, whether the window was open or
 * closed). Closing is not announced. Null when none of `transitions` is one.
 *
 * @example upcomingNotice("closed", [{ at: T, state: "open", ... }], 900_000) // { transition: "Open", at: T, noticeAt: T - 900_000 }
 */
export function upcomingNotice(current: WindowState, transitions: readonly Pick<Transition, "at" | "state">[], noticeMs: number): UpcomingNotice | null {
  let before = current;
  for (const t of transitions) {
    if (t.state === "open" && before !== "open") return { transition: "Open", at: t.at, noticeAt: t.at - noticeMs };
    if (t.state === "frozen" && before !== "frozen") return { transition: "Frozen", at: t.at, noticeAt: t.at - noticeMs };
    before = t.state;
  }
  return null;
}

/**
 * Whether the notice is due at `now`: its moment has come and the transition has not. A window
 * created (or a controller started) inside the notice period announces at once; one that was not
 * running during the whole period announces nothing, as the transition has happened by then.
 */
export function noticeDue(u: UpcomingNotice, now: number): boolean {
  return now >= u.noticeAt && now < u.at;
}

/** What a target will do at the transition, as the notice says it: the revision that goes out, or why none does. */
export interface NoticeTarget {
  namespace: string;
  name: string;
  /** The revision waiting now; null when nothing waits. */
  pendingRevision: string | null;
  /**
   * For an opening: why the target stays held although this window opens (another window's freeze,
   * a conflict of modes), as the decision of all its windows at that instant says it; null when it opens.
   */
  heldBy: string | null;
}

/**
 * One target's line of a notice: `apps/web: main@sha1:1a2b3c` (goes out when the window opens),
 * `apps/web: nothing waits`, `apps/web: stays held (Frozen by ...)`; for a freeze,
 * `apps/web: main@sha1:1a2b3c waits and is held from then`.
 */
export function noticeLine(transition: NoticeTransition, t: NoticeTarget): string {
  const name = `${t.namespace}/${t.name}`;
  if (transition === "Open" && t.heldBy !== null) return `${name}: stays held (${t.heldBy})${t.pendingRevision === null ? "" : `, ${t.pendingRevision} waits`}`;
  if (t.pendingRevision === null) return `${name}: nothing waits`;
  return transition === "Open" ? `${name}: ${t.pendingRevision}` : `${name}: ${t.pendingRevision} waits and is held from then`;
}

/** The most target lines a window's notice lists; the rest are counted. */
export const MAX_NOTICE_LINES = 10;

/**
 * The head of a notice: `Opens Mon 2026-11-23 08:00 CET (in 15m)`, `Freeze starts Fri 2026-11-27 00:00 CET (in 1h)`.
 */
export function noticeHead(u: UpcomingNotice, zone: ZoneRules, now: number): string {
  const left = u.at - now;
  const when = `${localTime(u.at, zone)} (${left < 60_000 ? "in under a minute" : `in ${formatLength(Math.round(left / 60_000) * 60_000)}`})`;
  return u.transition === "Open" ? `Opens ${when}` : `Freeze starts ${when}`;
}

/**
 * The window's notice, every target in a line (at most MAX_NOTICE_LINES, the rest counted):
 * `Opens Mon 2026-11-23 08:00 CET (in 15m): apps/web: main@sha1:1a2b3c; apps/infra: nothing waits`.
 */
export function windowNotice(u: UpcomingNotice, zone: ZoneRules, now: number, targets: readonly NoticeTarget[]): string {
  const lines = [...targets].sort((a, b) => `${a.namespace}/${a.name}`.localeCompare(`${b.namespace}/${b.name}`)).map((t) => noticeLine(u.transition, t));
  const shown = lines.slice(0, MAX_NOTICE_LINES).join("; ");
  const more = lines.length > MAX_NOTICE_LINES ? `; and ${lines.length - MAX_NOTICE_LINES} more` : "";
  return `${noticeHead(u, zone, now)}: ${lines.length === 0 ? "no target" : `${shown}${more}`}`;
}

/** A target's own notice, on the target: `Window changes opens Mon 2026-11-23 08:00 CET (in 15m): apps/web: main@sha1:1a2b3c`. */
export function targetNotice(window: string, u: UpcomingNotice, zone: ZoneRules, now: number, t: NoticeTarget): string {
  const head = noticeHead(u, zone, now);
  const said =
    u.transition === "Open" ? `Window ${window} opens${head.slice("Opens".length)}` : `Window ${window}: freeze starts${head.slice("Freeze starts".length)}`;
  return `${said}: ${noticeLine(u.transition, t)}`;
}
