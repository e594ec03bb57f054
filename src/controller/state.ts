// What the controller remembers between reconciles, owned here alone: each window's selection and last decision, each target's memory, the gated sources to
// clean up.

import type { WindowStatus } from "../api/index.ts";

/** A revision a target applied while its windows were closed, as observed. */
export interface Violation {
  revision: string;
  previousRevision: string | undefined;
  /** When it was observed (controller clock). */
  at: number;
  /** What let it through, in a sentence. */
  cause: string;
}

/** What the controller remembers of a target between reconciles. */
export interface TargetMemory {
  /**
   * The last value of spec.suspend fluxgate wrote, when (controller clock), the resourceVersion it
   * wrote over, and the one the API server answered with when the target came back as written
   * (`answered`): that version's watch event is fluxgate's own write, with nothing to reconcile.
   */
  lastWrite: { suspend: boolean; at: number; over: string | undefined; answered?: string | undefined } | null;
  /** Reverts in a row taken for a hot loop (see HOT_LOOP_REVERTS in target.ts): they slow the re-assert down. */
  reverts: number;
  /** When the reverts of the last few seconds were noticed (controller clock), to tell a hot loop from a parent's reconciles. */
  recentReverts: number[];
  /** The manager that set spec.suspend back, while the fight lasts. */
  revertedBy: string | null;
  /** lastAppliedRevision last seen, to tell when Flux applied something. */
  appliedRevision: string | undefined;
  /** When the last revert was noticed (controller clock). */
  revertedAt: number | undefined;
  /** The write the last revert undid: one revert is counted per fluxgate write, however often the target is seen. */
  revertedWrite: TargetMemory["lastWrite"];
  /** A Flux controller applying Git (the parent Kustomization) was seen owning spec.suspend. */
  parentDeclaresSuspend: boolean;
  /** The last revision applied while closed, until the target may take changes again. */
  violation: Violation | null;
  /** Not reconciled yet by this process: a transition it finds done may not have been announced. */
  fresh: boolean;
  /** Since when the target has been kept suspended while its windows let it take changes (see keptSuspended). */
  keptSuspended: KeptSuspended;
  /** fluxgate's last write to the target failed: the API server's answer (or the connection's error), until a write succeeds. */
  writeError: WriteError | null;
  /** Since when (controller clock) its spec.suspend has differed from what its windows decide, as a window last observed it; null while it follows. */
  divergedSince: number | null;
}

/** A write to a target that failed: what the API server answered. */
export interface WriteError {
  /** The HTTP status, when the API server answered (403: RBAC refused it). */
  code: number | undefined;
  /** The API server's message, as it gave it ("... is forbidden: User ... cannot patch resource ..."). */
  message: string;
  /** When it failed (controller clock). */
  at: number;
}

/** A target kept suspended while its windows let it take changes: since when (controller clock), and since when it has been seen resumed. */
export interface KeptSuspended {
  since: number | null;
  resumedAt: number | null;
}

/**
 * How long a target must be seen resumed before it no longer counts as kept suspended: longer than
 * the longest back-off of a re-assert (30 s), so a fight that keeps it suspended most of the time
 * is one stretch, not many short ones.
 */
export const KEPT_SUSPENDED_QUIET_MS = 60_000;

/**
 * The next KeptSuspended of a target (pure): `held` when it is seen suspended while its windows
 * let it take changes, `resumed` when they do and it is not suspended, `closed` when they do not
 * (or do not govern spec.suspend). `recheckAt` says when a resumed target stops counting.
 *
 * @example keptSuspended({ since: 0, resumedAt: null }, "resumed", 5) // → { since: 0, resumedAt: 5, recheckAt: 60_005 }
 */
export function keptSuspended(before: KeptSuspended, seen: "held" | "resumed" | "closed", now: number): KeptSuspended & { recheckAt: number | null } {
  if (seen === "closed" || (seen === "resumed" && before.since === null)) return { since: null, resumedAt: null, recheckAt: null };
  if (seen === "held") return { since: before.since ?? now, resumedAt: null, recheckAt: null };
  const resumedAt = before.resumedAt ?? now;
  if (now - resumedAt >= KEPT_SUSPENDED_QUIET_MS) return { since: null, resumedAt: null, recheckAt: null };
  return { since: before.since, resumedAt, recheckAt: resumedAt + KEPT_SUSPENDED_QUIET_MS };
}

/**
 * The controller's memory. Reconcilers and informer handlers change it only through these
 * methods, so what is remembered, and when it is forgotten, is decided in one place.
 */
export class ControllerState {
  /** Targets each window selected at its last reconcile. */
  private readonly selection = new Map<string, Set<string>>();
  /** Per window: the inputs of its last decision, to know when its targets must be re-planned. */
  private readonly decisionInputs = new Map<string, string>();
  /** Per window: the state this process last wrote to its status (the informer's copy may lag). */
  private readonly reportedStates = new Map<string, string | undefined>();
  /** Per window: the notice this process last announced (spec.notice), as it wrote it in status.upcoming (the informer's copy may lag). */
  private readonly announced = new Map<string, NonNullable<WindowStatus["upcoming"]>>();
  /** Per target: what fluxgate last wrote and what it saw. */
  private readonly memory = new Map<string, TargetMemory>();
  /** Gated sources of deleted windows, deleted once no Kustomization uses them. */
  private readonly releasedSources = new Set<string>();
  /** Source key → target keys that take their artifact from it. */
  private readonly sourceIndex = new Map<string, Set<string>>();
  /** Targets fluxgate is writing: the versions their watch events brought while the write was in flight. */
  private readonly writing = new Map<string, (string | undefined)[]>();

  /** Records the targets a window selects now; returns those it selected before. */
  select(window: string, targets: Set<string>): Set<string> {
    const before = this.selection.get(window) ?? new Set<string>();
    this.selection.set(window, targets);
    return before;
  }

  /** The targets a window selected at its last reconcile. */
  selected(window: string): ReadonlySet<string> {
    return this.selection.get(window) ?? new Set<string>();
  }

  /** Windows that selected the target at their last reconcile. */
  windowsThatSelected(target: string): string[] {
    const out: string[] = [];
    for (const [w, set] of this.selection) if (set.has(target)) out.push(w);
    return out;
  }

  /** Records the inputs of a window's decision; true when they differ from the last ones. */
  decisionChanged(window: string, inputs: string): boolean {
    const changed = this.decisionInputs.get(window) !== inputs;
    this.decisionInputs.set(window, inputs);
    return changed;
  }

  /** The state this process last reported for a window, if it reported one. */
  reportedState(window: string): string | undefined {
    return this.reportedStates.get(window);
  }

  reportState(window: string, state: string | undefined): void {
    this.reportedStates.set(window, state);
  }

  /** The notice this process last announced for a window, if it announced one. */
  announcedNotice(window: string): NonNullable<WindowStatus["upcoming"]> | undefined {
    return this.announced.get(window);
  }

  recordAnnounced(window: string, upcoming: NonNullable<WindowStatus["upcoming"]>): void {
    this.announced.set(window, upcoming);
  }

  /** A deleted window's targets were released: only its selection is left to forget. */
  forgetSelection(window: string): void {
    this.selection.delete(window);
  }

  /** A window is gone: forgets all of it and returns the targets it selected, to re-plan them. */
  forgetWindow(window: string): ReadonlySet<string> {
    const selected = this.selected(window);
    this.selection.delete(window);
    this.decisionInputs.delete(window);
    this.reportedStates.delete(window);
    this.announced.delete(window);
    return selected;
  }

  /** The memory of a target, made fresh on first use. */
  memoryOf(target: string): TargetMemory {
    let m = this.memory.get(target);
    if (m === undefined) {
      m = {
        lastWrite: null,
        reverts: 0,
        recentReverts: [],
        revertedBy: null,
        revertedAt: undefined,
        revertedWrite: null,
        appliedRevision: undefined,
        parentDeclaresSuspend: false,
        violation: null,
        fresh: true,
        keptSuspended: { since: null, resumedAt: null },
        writeError: null,
        divergedSince: null,
      };
      this.memory.set(target, m);
    }
    return m;
  }

  /**
   * Whether the watch event of `resourceVersion` of the target needs no reconcile now: it is
   * fluxgate's own write as the API server answered it, seen for the first time (the reconcile that
   * wrote planned the next; said once per write), or it came while fluxgate was writing the target,
   * and is kept for `endWrite` to tell once the answer comes.
   */
  isOwnWrite(target: string, resourceVersion: string | undefined): boolean {
    const seen = this.writing.get(target);
    if (seen !== undefined) {
      seen.push(resourceVersion);
      return true;
    }
    const write = this.memory.get(target)?.lastWrite;
    if (write?.answered === undefined || write.answered !== resourceVersion) return false;
    write.answered = undefined;
    return true;
  }

  /** fluxgate starts writing the target: the watch events that come until `endWrite` are kept. */
  beginWrite(target: string): void {
    this.writing.set(target, []);
  }

  /**
   * The write's answer came (`answered`: its resourceVersion when the target came back as written;
   * undefined when it did not, or the write failed). `reconcile`: a version seen meanwhile is not
   * that write's own, so the target must be reconciled. `echoSeen`: the write's own watch event
   * came before its answer, so no later event is its echo.
   */
  endWrite(target: string, answered: string | undefined): { reconcile: boolean; echoSeen: boolean } {
    const seen = this.writing.get(target) ?? [];
    this.writing.delete(target);
    const echoSeen = answered !== undefined && seen.includes(answered);
    return { reconcile: seen.some((v) => v === undefined || v !== answered), echoSeen };
  }

  /** The memory of a target, without making one. */
  knownMemory(target: string): TargetMemory | undefined {
    return this.memory.get(target);
  }

  forgetTarget(target: string): void {
    this.memory.delete(target);
  }

  /** Indexes a target under the source it takes its artifact from (none: `null`); a deleted target is forgotten. */
  indexTarget(target: string, source: string | null, deleted: boolean): void {
    for (const [s, set] of this.sourceIndex) if (s !== source) set.delete(target);
    if (deleted) {
      this.forgetTarget(target);
      return;
    }
    if (source === null) return;
    let set = this.sourceIndex.get(source);
    if (set === undefined) this.sourceIndex.set(source, (set = new Set()));
    set.add(target);
  }

  /** Targets that take their artifact from a source. */
  targetsOfSource(source: string): ReadonlySet<string> {
    return this.sourceIndex.get(source) ?? new Set<string>();
  }

  /** Marks a source as released by a deleted Gate window (or not). */
  markReleased(source: string, released: boolean): void {
    if (released) this.releasedSources.add(source);
    else this.releasedSources.delete(source);
  }

  releasedSourceKeys(): readonly string[] {
    return [...this.releasedSources];
  }
}
