// The fleet's story, step by step: one commit for three clusters, a fleet window from the API, each cluster's own local time, a freeze of the canary, its end.

import { pushCommit, type CommitFile } from "../../devenv/git.ts";
import { EVENT_WAIT_MAX_MS } from "../../controller/controller.ts";
import { expect, playSteps, type Expectations, type Step } from "../expectations.ts";
import { clock, seconds, shortRevision } from "../snapshot.ts";
import type { FleetPushStatus } from "../../server/status/view.ts";
import type { FleetObserver, FleetEntry, FleetSnapshot } from "./observe.ts";
import {
  FLEET,
  FREEZE,
  RW,
  WINDOW,
  addFleetWindow,
  appFiles,
  endFreeze,
  freezeCanary,
  isCanary,
  localOpening,
  patchFleetWindow,
  type ApiRequest,
  type LocalOpening,
} from "./layout.ts";
import { waitingLines, type FleetWaiting } from "./waiting.ts";

/**
 * The first opening is the first whole minute at least this long after the fleet window is written: time for the steps before it (two patches, a commit,
 * the freeze: 40 s at a load of 20 on 2 cores) and for the end-to-end test's look at the dashboard.
 */
export const OPENING_MARGIN_MS = 70_000;
/**
 * How long each cluster's window stays open: every one is open still when the freeze ends, after Tokyo took the change. The freeze's end is a commit of
 * the fleet repository, so a new revision for every cluster: a closed one would be left waiting for it until its next window.
 */
const OPEN_SECONDS: Readonly<Record<string, number>> = { "edge-berlin": 150, "edge-newyork": 150, "edge-tokyo": 90 };
/** When each cluster opens, in minutes after the first opening: Berlin and New York together, Tokyo a minute later. */
const OPENS_AFTER_MINUTES: Readonly<Record<string, number>> = { "edge-berlin": 0, "edge-newyork": 0, "edge-tokyo": 1 };
/** How long the freeze lasts at most; the story ends it before. */
const FREEZE_SECONDS = 600;
/** "Every cluster enforcing", "the fleet status shows it": within these, or the step fails. */
const ENFORCING_MS = 30_000;
const TRANSITION_MS = 20_000;

export interface FleetStoryContext {
  /** The fleet repository on the Git server; the first commit is there already. */
  readonly repoUrl: string;
  readonly firstCommit: string;
  readonly firstCommittedAt: number;
  readonly observer: FleetObserver;
  /** Calls the Config Service's API as an editor; returns the answer's JSON. */
  readonly api: (request: ApiRequest) => Promise<Record<string, unknown>>;
  /** The changes waiting across the fleet, as the Config Service groups them from pushed status. */
  readonly waiting: () => Promise<FleetWaiting>;
  readonly timeline: (entry: FleetEntry) => void;
  readonly note: (text: string) => void;
  readonly expectations: Expectations;
  readonly now: () => number;
  /** A look at the running fleet at a point of the story (the e2e test opens the dashboard): once changes wait, and at the end. */
  readonly inspect?: ((stage: "waiting" | "end") => Promise<void>) | undefined;
  /** The files of a commit of the fleet repository, as `git diff --numstat` counts them on the Git server. */
  readonly commitFiles: (sha: string) => Promise<CommitFile[]>;
  /** What each cluster's controller has said of its cluster's identity so far. */
  readonly identities: () => ReadonlyMap<string, ControllerIdentity>;
}

/** What a cluster's controller logged of the identity ConfigMap flux-system/fluxgate-cluster. */
export interface ControllerIdentity {
  /** The last identity it read and confirmed: the cluster's name and its labels. */
  readonly confirmed: { cluster: string; labels: Readonly<Record<string, string>> } | undefined;
  /** Each time it said it cannot confirm the identity, the problem it gave. */
  readonly unconfirmed: readonly string[];
}

/** A ControllerIdentity being written, line by line of the controller's log. */
export interface IdentityNotes {
  confirmed: ControllerIdentity["confirmed"];
  unconfirmed: string[];
}

/**
 * Keeps what a controller's log line says of the cluster's identity: "Read the cluster's identity", or that it cannot
 * confirm it ("Cannot confirm the cluster's identity"; "The cluster has no identity object", though every cluster of the demo has one).
 */
export function noteIdentity(into: IdentityNotes, line: string): void {
  if (!line.includes("identity")) return;
  const entry = JSON.parse(line) as { msg?: string; cluster?: string; labels?: string; problem?: string };
  if (entry.msg?.startsWith("Read the cluster's identity") === true)
    into.confirmed = { cluster: entry.cluster ?? "", labels: JSON.parse(entry.labels ?? "{}") as Record<string, string> };
  else if (/^(Cannot confirm the cluster's identity|The cluster has no identity object)/.test(entry.msg ?? ""))
    into.unconfirmed.push(`${entry.msg ?? ""} (${entry.problem ?? ""})`);
}

/** The fleet operations whose commits the story counts. */
export type FleetOperation = "fleet window add" | "fleet freeze" | "freeze end";

/** A commit's size: its files and its diff lines (added and removed). */
export interface CommitSize {
  readonly files: number;
  readonly lines: number;
}

/** What the story measured, for docs/demo.md and the summary. */
export interface FleetFigures {
  apiToEnforcingMs?: number;
  apiToFleetStatusMs?: number;
  transitionToFleetStatusMs: Record<string, number>;
  /** Each fleet operation's commit, as git diff --numstat counts it: a few files whatever the fleet's size (the fleet folder). */
  commits: Partial<Record<FleetOperation, CommitSize>>;
}

const rev = (sha: string): string => `main@sha1:${sha}`;

/** `fleet/kustomization.yaml +1 −0`. */
function fileLine(f: CommitFile): string {
  return `${f.path} +${f.added} −${f.removed}`;
}

/** `k=v,k=v`, keys sorted. */
function labelsText(labels: Readonly<Record<string, string>>): string {
  return Object.keys(labels)
    .sort()
    .map((k) => `${k}=${labels[k] ?? ""}`)
    .join(",");
}

/** `08:52 Europe/Berlin (07:52 UTC)`. */
function openingText(o: LocalOpening): string {
  return `${o.local} ${o.cluster.timeZone} (${clock(o.at).slice(0, 5)} UTC)`;
}

/** The window's status, in one cluster, says it is held by an override (a freeze). */
function frozen(s: FleetSnapshot, name: string): boolean {
  const state = s.clusters[name]?.window?.state;
  return state !== undefined && state !== "Open" && state !== "Closed";
}

/** Plays the story and records one result per step; a step that fails ends it, and the steps after it are recorded as not checked. */
export async function playFleetStory(ctx: FleetStoryContext): Promise<FleetFigures> {
  const { observer, now } = ctx;
  const figures: FleetFigures = { transitionToFleetStatusMs: {}, commits: {} };
  const you = (text: string): void => ctx.timeline({ at: now(), where: "fleet", actor: "you", text });
  const all = FLEET.map((c) => c.name);
  let openings: LocalOpening[] = [];
  let second = "";
  let committedAt = 0;
  let ended = "";
  const openingOf = (name: string): LocalOpening => openings.find((o) => o.cluster.name === name) as LocalOpening;

  /** Tells the files and lines of an API write's commit, and checks it is a change to fleet/ alone. */
  const counted = async (operation: FleetOperation, sha: string): Promise<string> => {
    const files = await ctx.commitFiles(sha);
    const size = { files: files.length, lines: files.reduce((n, f) => n + f.added + f.removed, 0) };
    figures.commits[operation] = size;
    ctx.note(`commit ${sha.slice(0, 7)} (git diff --numstat): ${size.files} files, ${size.lines} lines: ${files.map(fileLine).join(", ")}`);
    const outside = files.filter((f) => !f.path.startsWith("fleet/"));
    expect(files.length > 0 && outside.length === 0, `the ${operation} changed ${outside.map((f) => f.path).join(", ") || "no file"} outside fleet/`);
    return `${size.files} files, ${size.lines} lines`;
  };

  /** Waits for `name`'s window to open at its time, then for the change and for the Config Service to know it. */
  const takes = async (name: string): Promise<string> => {
    const o = openingOf(name);
    ctx.note(`… ${name} opens at ${openingText(o)}, in ${seconds(Math.max(0, o.at - now()))}`);
    const open = await observer.until(
      `${name}'s window to open at ${clock(o.at)}`,
      (s) => s.clusters[name]?.window?.state === "Open",
      o.at - now() + TRANSITION_MS,
    );
    expect(open.at >= o.at, `${name}'s window was Open at ${clock(open.at)}, before ${clock(o.at)}`);
    const applied = await observer.until(`${name} to take ${shortRevision(rev(second))}`, (s) => s.clusters[name]?.release === "v2", TRANSITION_MS);
    const pushed = await observer.until(
      `the Config Service to have ${name}'s ${RW} open with nothing waiting`,
      (s) => s.pushed[name]?.state === "open" && s.pushed[name]?.pendingRevision === null,
      TRANSITION_MS,
    );
    figures.transitionToFleetStatusMs[name] = pushed.at - o.at;
    return `Open ${seconds(open.at - o.at)} after ${o.local} local, v2 applied after ${seconds(applied.at - o.at)}, in the fleet status after ${seconds(pushed.at - o.at)}`;
  };

  const steps: Step[] = [
    {
      expectation: "every cluster applied the fleet's first commit and reports to the Config Service",
      run: async () => {
        const s = await observer.until(
          "every cluster to apply the first commit",
          (x) => all.every((n) => x.clusters[n]?.rwApplied === rev(ctx.firstCommit) && x.clusters[n]?.release === "v1" && x.clusters[n]?.config === "v1"),
          120_000,
        );
        const heard = await observer.until("every cluster to report", (x) => all.every((n) => x.pushed[n]?.reporting === "reporting"), 60_000);
        return `applied ${seconds(s.at - ctx.firstCommittedAt)} after the commit, all reporting after ${seconds(heard.at - ctx.firstCommittedAt)}`;
      },
    },
    {
      expectation:
        "each cluster's controller confirmed its identity (ConfigMap flux-system/fluxgate-cluster from init): its name and its labels in fluxgate.yaml",
      run: async () => {
        const identities = ctx.identities();
        for (const c of FLEET) {
          const id = identities.get(c.name);
          expect(
            id !== undefined && id.unconfirmed.length === 0,
            `${c.name}'s controller cannot confirm its identity: ${id?.unconfirmed.join("; ") ?? "no word of it"}`,
          );
          expect(
            id.confirmed?.cluster === c.name && labelsText(id.confirmed.labels) === labelsText(c.labels),
            `${c.name}'s controller read ${id.confirmed === undefined ? "no identity" : `${id.confirmed.cluster} ${labelsText(id.confirmed.labels)}`}`,
          );
        }
        return Promise.resolve(FLEET.map((c) => `${c.name} ${labelsText(c.labels)}`).join("; "));
      },
    },
    {
      expectation: `a fleet window added through the API in one commit to fleet/ alone: every cluster enforces it (${RW} suspended) and the fleet status says so`,
      run: async () => {
        const first = Math.ceil((now() + OPENING_MARGIN_MS) / 60_000) * 60_000;
        openings = FLEET.map((c) => localOpening(c, first + (OPENS_AFTER_MINUTES[c.name] ?? 0) * 60_000, OPEN_SECONDS[c.name] ?? 60));
        const base = openingOf("edge-berlin");
        const written = now();
        const answer = await ctx.api(addFleetWindow(base));
        you(
          `POST /api/v1/fleet/windows ${WINDOW}: every cluster (selector ring), daily ${base.local} ${base.cluster.timeZone} for ${base.seconds}s → commit ${String(answer.commit).slice(0, 7)} for ${(answer.clusters as string[]).length} clusters`,
        );
        const size = await counted("fleet window add", String(answer.commit));
        const enforcing = await observer.until(
          "every cluster to suspend apps-rw",
          (x) => all.every((n) => x.clusters[n]?.window?.state === "Closed" && x.clusters[n]?.rwSuspended === true),
          ENFORCING_MS,
        );
        const pushed = await observer.until(
          "the fleet status to show every cluster closed",
          (x) => all.every((n) => x.pushed[n]?.state === "closed"),
          ENFORCING_MS,
        );
        figures.apiToEnforcingMs = enforcing.at - written;
        figures.apiToFleetStatusMs = pushed.at - written;
        return `API write → every cluster enforcing ${seconds(enforcing.at - written)}; → fleet status ${seconds(pushed.at - written)}; the commit: ${size}`;
      },
    },
    {
      expectation: "each cluster runs the window at its own local time: a patch of its own for New York and Tokyo (one commit each)",
      run: async () => {
        for (const o of openings.filter((x) => x.cluster.name !== "edge-berlin")) {
          const answer = await ctx.api(patchFleetWindow(o));
          you(
            `PUT /api/v1/clusters/${o.cluster.name}/windows/${WINDOW}/patch: ${o.cluster.timeZone}, daily ${o.local} → commit ${String(answer.commit).slice(0, 7)}`,
          );
        }
        // New York opens at the same instant as the base (another local time): its zone tells its patch is there.
        await observer.until(
          "each cluster's window to run in its zone and open at its own time",
          (x) =>
            openings.every((o) => {
              const w = x.clusters[o.cluster.name]?.window;
              return w?.timeZone === o.cluster.timeZone && w.nextOpen === new Date(o.at).toISOString().replace(".000Z", "Z");
            }),
          ENFORCING_MS,
        );
        for (const o of openings) ctx.note(`${o.cluster.name} opens at ${openingText(o)}`);
        return openings.map((o) => `${o.cluster.city} ${o.local}`).join(", ");
      },
    },
    {
      expectation: "a commit of the application: the real-time part reached every cluster at once; apps-rw waits on every cluster, and the fleet knows it",
      run: async () => {
        second = await pushCommit(ctx.repoUrl, appFiles("v2"), "shop v2");
        committedAt = now();
        ctx.timeline({
          at: committedAt,
          where: "fleet",
          actor: "git",
          text: `commit ${second.slice(0, 7)} on main: "shop v2" (apps/shop-rt and apps/shop-rw)`,
        });
        const rt = await observer.until("every cluster to take shop-config v2", (x) => all.every((n) => x.clusters[n]?.config === "v2"), ENFORCING_MS);
        const waits = await observer.until(
          `the fleet status to show ${shortRevision(rev(second))} waiting on every cluster`,
          (x) => all.every((n) => x.pushed[n]?.pendingRevision === rev(second)),
          ENFORCING_MS,
        );
        expect(
          all.every((n) => waits.clusters[n]?.release === "v1"),
          `a cluster took shop-release v2 while its window was closed`,
        );
        const view = await ctx.waiting();
        for (const line of waitingLines(view)) ctx.note(`fleet view: ${line}`);
        const group = view.revisions.find((r) => r.revision === rev(second));
        expect(
          group !== undefined && group.clusters === all.length,
          `the waiting view has ${group?.clusters ?? 0} clusters waiting on ${shortRevision(rev(second))}`,
        );
        await ctx.inspect?.("waiting");
        return `shop-config v2 everywhere ${seconds(rt.at - committedAt)} after the commit; waiting in the fleet status after ${seconds(waits.at - committedAt)}`;
      },
    },
    {
      expectation: `a fleet freeze of ring=canary (one commit to fleet/ alone) holds edge-newyork; Flux applies it on every cluster, the others' controllers leave it be`,
      run: async () => {
        const written = now();
        const answer = await ctx.api(freezeCanary(FREEZE_SECONDS));
        you(`POST /api/v1/fleet/overrides ${FREEZE}: freeze ring=canary for ${FREEZE_SECONDS / 60} minutes → commit ${String(answer.commit).slice(0, 7)}`);
        const size = await counted("fleet freeze", String(answer.commit));
        const canary = FLEET.filter(isCanary).map((c) => c.name);
        const others = FLEET.filter((c) => !isCanary(c)).map((c) => c.name);
        const s = await observer.until("the canary's window to be frozen", (x) => canary.every((n) => frozen(x, n)), ENFORCING_MS);
        // One WindowOverride with a clusterSelector, in every cluster: only the canary's controller acts on it.
        const everywhere = await observer.until(
          `every cluster to have WindowOverride ${FREEZE} from Git`,
          (x) => all.every((n) => x.clusters[n]?.overrides.includes(FREEZE) === true),
          ENFORCING_MS,
        );
        const held = others.filter((n) => frozen(everywhere, n));
        expect(held.length === 0, `the freeze of ring=canary holds ${held.join(", ")}, whose identity does not match it`);
        const pushed = await observer.until(
          "the fleet status to show the canary frozen",
          (x) => canary.every((n) => x.pushed[n]?.state === "frozen"),
          ENFORCING_MS,
        );
        // The freeze's commit is the newest revision: the view is read once every cluster has said it waits on it.
        const newest = rev(String(answer.commit));
        await observer.until(
          `the fleet status to show ${shortRevision(newest)} waiting on every cluster`,
          (x) => all.every((n) => x.pushed[n]?.pendingRevision === newest),
          ENFORCING_MS,
        );
        for (const line of waitingLines(await ctx.waiting())) ctx.note(`fleet view: ${line}`);
        return `${canary.join(", ")} frozen ${seconds(s.at - written)} after the API write; in the fleet status after ${seconds(pushed.at - written)}; ${others.join(", ")} not held; the commit: ${size}`;
      },
    },
    {
      expectation: "edge-berlin opened at its local time and took the change",
      run: () => takes("edge-berlin"),
    },
    {
      expectation: "edge-newyork's opening is held by the freeze: it keeps the old release",
      run: async () => {
        const o = openingOf("edge-newyork");
        const leaked = await observer.holdsWithin((x) => x.clusters["edge-newyork"]?.release === "v2", Math.max(0, o.at + 10_000 - now()));
        expect(leaked === undefined, `edge-newyork took v2 at ${clock(leaked?.at ?? 0)} while frozen`);
        const s = observer.latest as FleetSnapshot;
        expect(frozen(s, "edge-newyork"), `edge-newyork's window is ${s.clusters["edge-newyork"]?.window?.state ?? "gone"}`);
        // Every commit to the fleet repository is a new revision of it: what waits is its newest, the freeze's commit by now.
        expect(s.pushed["edge-newyork"]?.pendingRevision !== null, "the fleet status no longer shows a change waiting on edge-newyork");
        return `still shop-release v1 ${seconds(now() - o.at)} after its ${o.local} opening; frozen in the fleet status`;
      },
    },
    {
      expectation: "edge-tokyo opened at its local time and took the change",
      run: () => takes("edge-tokyo"),
    },
    {
      expectation: "the freeze ends (one commit to fleet/ alone): edge-newyork, inside its window, takes the change",
      run: async () => {
        const written = now();
        const answer = await ctx.api(endFreeze());
        ended = String(answer.commit);
        you(`DELETE /api/v1/fleet/overrides/${FREEZE} → commit ${ended.slice(0, 7)}`);
        const size = await counted("freeze end", String(answer.commit));
        // The window's status follows its targets' writes, up to EVENT_WAIT_MAX_MS later while they keep being reconciled (Flux's
        // status updates of a target just resumed, on a loaded machine): the time Flux takes to prune the freeze comes before it.
        const open = await observer.until(
          "edge-newyork's window to open",
          (x) => x.clusters["edge-newyork"]?.window?.state === "Open",
          ENFORCING_MS + EVENT_WAIT_MAX_MS,
        );
        const applied = await observer.until("edge-newyork to take v2", (x) => x.clusters["edge-newyork"]?.release === "v2", TRANSITION_MS);
        const pushed = await observer.until(
          "the Config Service to have edge-newyork open with nothing waiting",
          (x) => x.pushed["edge-newyork"]?.state === "open" && x.pushed["edge-newyork"]?.pendingRevision === null,
          TRANSITION_MS,
        );
        figures.transitionToFleetStatusMs["edge-newyork"] = pushed.at - open.at;
        return `Open ${seconds(open.at - written)} after the API write, v2 applied after ${seconds(applied.at - written)}, in the fleet status ${seconds(pushed.at - open.at)} after the opening; the commit: ${size}`;
      },
    },
    {
      expectation: "the fleet status shows every cluster's observed state from its pushes: reporting, nothing waiting, nothing diverged",
      run: async () => {
        const settled = now();
        // The freeze's end is the newest revision: every cluster applies it (each is open) and then says nothing waits; a cluster's
        // "nothing waits" from before its source fetched it would be stale.
        await observer.until(
          `every cluster to apply ${shortRevision(rev(ended))} and push that nothing waits`,
          (x) => all.every((n) => x.clusters[n]?.rwApplied === rev(ended) && x.pushed[n]?.pendingRevision === null),
          TRANSITION_MS,
        );
        const status = (await ctx.api({ method: "GET", path: "/api/v1/fleet/status" })) as unknown as FleetPushStatus;
        const view = await ctx.waiting();
        expect(view.revisions.length === 0, `changes still wait: ${waitingLines(view).join("; ")}`);
        const t = status.totals;
        expect(t.reporting === all.length && t.waiting === 0 && t.diverged === 0, `fleet status: ${JSON.stringify(t)}`);
        const s = observer.latest as FleetSnapshot;
        for (const c of FLEET)
          ctx.note(
            `${c.name}: ${s.pushed[c.name]?.reporting ?? "?"}, ${RW} ${s.pushed[c.name]?.state ?? "?"}, nothing waits; observed shop-release ${s.clusters[c.name]?.release ?? "?"}`,
          );
        expect(
          all.every((n) => s.clusters[n]?.release === "v2"),
          "a cluster does not run shop-release v2",
        );
        await ctx.inspect?.("end");
        return `${t.reporting} of ${t.clusters} clusters reporting, ${t.waiting} targets waiting, ${t.diverged} diverged (${seconds(now() - settled)})`;
      },
    },
    {
      expectation: `no controller said "Cannot confirm the cluster's identity" from its start to the end of the story`,
      run: () => {
        const said = [...ctx.identities()].filter(([, id]) => id.unconfirmed.length > 0);
        expect(said.length === 0, said.map(([n, id]) => `${n}: ${id.unconfirmed.join("; ")}`).join("; "));
        return Promise.resolve(`none of the ${FLEET.length} controllers said it`);
      },
    },
  ];

  await playSteps(steps, "[fleet]", ctx.expectations);
  return figures;
}
