// What the demo sees of the cluster at one instant, and the timeline lines that tell how two instants differ.

import { rfc3339 } from "../schedule/format.ts";
import { CONFIGMAP, DEPLOYMENT, GATED_SOURCE, RT, RW, UPSTREAM_SOURCE, WINDOW_NAME } from "./scenario.ts";

/** An event fluxgate recorded in the demo's namespace. */
export interface DemoEvent {
  readonly uid: string;
  readonly kind: string;
  readonly name: string;
  readonly reason: string;
  readonly message: string;
}

export interface WindowSnapshot {
  readonly state: string | undefined;
  readonly reason: string | undefined;
  readonly nextOpen: string | undefined;
  readonly nextClose: string | undefined;
  readonly pending: readonly {
    name: string;
    pendingRevision: string;
    appliedRevision?: string | undefined;
    revisions?: number | undefined;
    waitingSince?: string | undefined;
  }[];
  /** Gate mode: the revision the gated source is pinned to. */
  readonly pinnedRevision: string | undefined;
}

/** The demo's objects at one instant; undefined where an object (or field) does not exist. */
export interface Snapshot {
  readonly at: number;
  /** The version written in the first line of the ConfigMap's nginx.conf. */
  readonly conf: string | undefined;
  /** The Deployment's image; undefined when there is no Deployment. */
  readonly image: string | undefined;
  /** The Deployment's uid: a recreated Deployment has a new one. */
  readonly deploymentUid: string | undefined;
  /** Artifact revisions of the upstream and the gated GitRepository. */
  readonly upstream: string | undefined;
  readonly gated: string | undefined;
  readonly rtApplied: string | undefined;
  readonly rwApplied: string | undefined;
  readonly rtSuspended: boolean;
  readonly rwSuspended: boolean;
  /** apps-rw's sourceRef name, and whether Flux reconciled its current spec and is Ready. */
  readonly rwSource: string | undefined;
  readonly rwReady: boolean;
  readonly window: WindowSnapshot | undefined;
  /** fluxgate's events, oldest first. */
  readonly events: readonly DemoEvent[];
}

export const EMPTY: Snapshot = {
  at: 0,
  conf: undefined,
  image: undefined,
  deploymentUid: undefined,
  upstream: undefined,
  gated: undefined,
  rtApplied: undefined,
  rwApplied: undefined,
  rtSuspended: false,
  rwSuspended: false,
  rwSource: undefined,
  rwReady: false,
  window: undefined,
  events: [],
};

/** One line of the timeline: when, who acted (git, you, flux, fluxgate, cluster), what happened. */
export interface Entry {
  readonly at: number;
  readonly actor: string;
  readonly text: string;
}

/** `main@sha1:0123456789abcdef…` → `main@0123456`: enough to tell the demo's commits apart. */
export function shortRevision(revision: string | undefined): string {
  if (revision === undefined) return "-";
  const m = /^(.*?)@(?:sha1|sha256):([0-9a-f]{7})[0-9a-f]*$/.exec(revision);
  return m === null ? revision : `${m[1]}@${m[2]}`;
}

/** `11:23:05`: the UTC wall-clock time of a timeline line. */
export function clock(t: number): string {
  return new Date(t).toISOString().slice(11, 19);
}

/** `2.3s`, `1m05s`. */
export function seconds(ms: number): string {
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)}s`;
  const whole = Math.round(s);
  return `${Math.floor(whole / 60)}m${String(whole % 60).padStart(2, "0")}s`;
}

function pendingKey(w: WindowSnapshot | undefined): string {
  return (w?.pending ?? []).map((p) => `${p.name}=${p.pendingRevision}`).join(",");
}

/** The window's own open/close events repeat what its status says; the timeline shows the status instead. */
function worthTelling(e: DemoEvent): boolean {
  return !(e.kind === "ReconciliationWindow" && (e.reason === "WindowOpened" || e.reason === "WindowClosed"));
}

/** Events that report what Flux did (told after Flux's lines); the others are fluxgate's own acts (told before). */
function isEffect(e: DemoEvent): boolean {
  return e.reason === "ChangesApplied" || e.reason === "AppliedWhileClosed";
}

/** Full revisions in an event message, shortened as in the rest of the timeline. */
function shortenRevisions(message: string): string {
  return message.replace(/\S+@sha(?:1|256):[0-9a-f]{40,64}\b/g, (r) => shortRevision(r)).replace(/\b([0-9a-f]{7})[0-9a-f]{33}\b/g, "$1");
}

/**
 * What changed between two snapshots, as timeline entries in the order of cause and effect:
 * fluxgate's decisions and acts, then the sources, what Flux applied and the objects it changed,
 * then what fluxgate observed of it (what waits, what was applied).
 */
export function changes(prev: Snapshot, next: Snapshot): Entry[] {
  const out: Entry[] = [];
  const at = next.at;
  const say = (actor: string, text: string): void => {
    out.push({ at, actor, text });
  };
  const seen = new Set(prev.events.map((e) => e.uid));
  const fresh = next.events.filter((e) => !seen.has(e.uid) && worthTelling(e));
  const tell = (e: DemoEvent): void => say("fluxgate", `${e.reason} on ${e.kind} ${e.name}: ${shortenRevisions(e.message)}`);
  if (next.window?.state !== prev.window?.state && next.window?.state !== undefined) {
    const reason = next.window.reason ?? "";
    say("fluxgate", reason.startsWith(next.window.state) ? `window ${WINDOW_NAME}: ${reason}` : `window ${WINDOW_NAME} is ${next.window.state}: ${reason}`);
  }
  fresh.filter((e) => !isEffect(e)).forEach(tell);
  if (next.upstream !== prev.upstream && next.upstream !== undefined) {
    say("flux", `source-controller fetched ${shortRevision(next.upstream)} into GitRepository ${UPSTREAM_SOURCE}`);
  }
  if (next.gated !== prev.gated && next.gated !== undefined) {
    say("flux", `source-controller fetched ${shortRevision(next.gated)} into GitRepository ${GATED_SOURCE} (the pinned copy)`);
  }
  if (next.rtApplied !== prev.rtApplied && next.rtApplied !== undefined) say("flux", `Kustomization ${RT} applied ${shortRevision(next.rtApplied)}`);
  if (next.conf !== prev.conf) {
    if (next.conf === undefined) say("cluster", `ConfigMap ${CONFIGMAP} deleted`);
    else if (prev.conf === undefined) say("cluster", `ConfigMap ${CONFIGMAP} created: nginx.conf ${next.conf}`);
    else say("cluster", `ConfigMap ${CONFIGMAP} changed: nginx.conf ${prev.conf} → ${next.conf}`);
  }
  if (next.rwApplied !== prev.rwApplied && next.rwApplied !== undefined) say("flux", `Kustomization ${RW} applied ${shortRevision(next.rwApplied)}`);
  if (next.image !== prev.image) {
    if (next.image === undefined) say("cluster", `Deployment ${DEPLOYMENT} is gone`);
    else if (prev.image === undefined) say("cluster", `Deployment ${DEPLOYMENT} created: image ${next.image}`);
    else say("cluster", `Deployment ${DEPLOYMENT} changed: image ${prev.image} → ${next.image}`);
  }
  if (pendingKey(next.window) !== pendingKey(prev.window)) {
    const pending = next.window?.pending ?? [];
    if (pending.length === 0) {
      if (prev.window !== undefined) say("fluxgate", `status: nothing waits for the window any more`);
    }
    for (const p of pending) {
      const since = p.waitingSince === undefined ? "" : ` since ${clock(Date.parse(p.waitingSince))}`;
      const until = next.window?.nextOpen === undefined ? "" : `, until the window opens at ${clock(Date.parse(next.window.nextOpen))}`;
      const count = (p.revisions ?? 1) > 1 ? `, ${p.revisions} revisions` : "";
      say("waiting", `${p.name}: ${shortRevision(p.pendingRevision)} waits${since} (applied: ${shortRevision(p.appliedRevision)}${count})${until}`);
    }
  }
  fresh.filter(isEffect).forEach(tell);
  return out;
}

/** One timeline line: `11:23:05  fluxgate  window nginx-window is Open: …`. */
export function formatEntry(e: Entry): string {
  return `${clock(e.at)}  ${e.actor.padEnd(8)}  ${e.text}`;
}

/** The window's next opening as the status says it, RFC 3339, for comparing with the planned one. */
export function sameInstant(status: string | undefined, t: number): boolean {
  return status === rfc3339(t);
}
