// The story of one mode, step by step: commit, what Flux applies at once, what waits for the window, drift, the opening.

import { Connection, PatchStrategy } from "../kube/connection.ts";
import type { KubeConfig, KubernetesObject } from "../kube/types.ts";
import { setTimeout as sleep } from "node:timers/promises";
import { createRepository, pushCommit, type GitServer } from "../devenv/git.ts";
import { expect, playSteps, type Expectations, type Step } from "./expectations.ts";
import { Observer } from "./observe.ts";
import {
  DEPLOYMENT,
  FIRST,
  FLUX_INTERVAL,
  FLUX_INTERVAL_MS,
  GATED_SOURCE,
  RT,
  RW,
  SECOND,
  UPSTREAM_SOURCE,
  WINDOW_NAME,
  gitRepository,
  kustomization,
  namespaceOf,
  nextOpening,
  reconciliationWindow,
  repositoryFiles,
  type DemoMode,
  type Opening,
} from "./scenario.ts";
import { clock, sameInstant, seconds, shortRevision, type Entry } from "./snapshot.ts";
import { DEMO_FIELD_MANAGER } from "../api/constants.ts";

/** The window opens this long after it is created, at the least: time for the steps that happen while it is closed. */
export const OPENING_MARGIN_MS = 35_000;
/** How long each opening lasts, and how often the window opens. */
export const OPEN_SECONDS = 30;
export const EVERY_MINUTES = 5;
/** "At once" and "within seconds", as the story measures them. */
const AT_ONCE_MS = 15_000;
const WITHIN_SECONDS_MS = 10_000;
/** How long the story keeps looking after its last step. */
const TELL_LAST_MS = 1_000;
/** How long the demo watches a deleted Deployment stay deleted: five Flux intervals. */
const DRIFT_WATCH_MS = 5 * FLUX_INTERVAL_MS;

export interface StoryContext {
  readonly mode: DemoMode;
  /** Admin access to the local cluster. */
  readonly kubeConfig: KubeConfig;
  readonly git: GitServer;
  /** Prints a timeline line. */
  readonly timeline: (entry: Entry) => void;
  /** Prints narration: headings and explanations between timeline lines. */
  readonly note: (text: string) => void;
  readonly expectations: Expectations;
  readonly now?: () => number;
}

/** Creates the mode's namespace and repository (the control plane is new: neither exists yet); returns the repository's URL. */
async function prepare(ctx: StoryContext, namespace: string): Promise<string> {
  await new Connection(ctx.kubeConfig).core.createNamespace({ body: { metadata: { name: namespace } } });
  return await createRepository(ctx.git, namespace);
}

/**
 * Plays the story of `ctx.mode` in namespace demo-<mode> and records one result per step. A step
 * that fails ends the story; the steps after it are recorded as not checked.
 */
export async function playStory(ctx: StoryContext): Promise<void> {
  const { mode } = ctx;
  const now = ctx.now ?? Date.now;
  const namespace = namespaceOf(mode);
  const connection = new Connection(ctx.kubeConfig);
  const { objects, apps } = connection;
  const apply = async (obj: KubernetesObject): Promise<void> => {
    await objects.patch(obj, undefined, undefined, DEMO_FIELD_MANAGER, true, PatchStrategy.ServerSideApply);
  };
  const you = (text: string): void => ctx.timeline({ at: now(), actor: "you", text });
  const git = (sha: string, message: string): void => ctx.timeline({ at: now(), actor: "git", text: `commit ${sha.slice(0, 7)} on main: "${message}"` });
  const observer = new Observer(ctx.kubeConfig, namespace, (entries) => entries.forEach(ctx.timeline), now);

  let repoUrl = "";
  let first = "";
  let second = "";
  let opening: Opening | undefined;
  let committedAt = 0;
  let confChangedAt = 0;
  const rev = (sha: string): string => `main@sha1:${sha}`;
  const openingAt = (): number => (opening as Opening).at;

  const commit = async (v: typeof FIRST, message: string): Promise<string> => {
    const sha = await pushCommit(repoUrl, repositoryFiles(v), message);
    committedAt = now();
    git(sha, message);
    return sha;
  };

  const steps: Step[] = [
    {
      expectation: `Flux applied the first commit: ConfigMap nginx.conf ${FIRST.conf}, Deployment ${FIRST.image}`,
      run: async () => {
        first = await commit(FIRST, `nginx: nginx.conf ${FIRST.conf}, image ${FIRST.image}`);
        await apply(gitRepository(namespace, repoUrl));
        await apply(kustomization(namespace, RT, UPSTREAM_SOURCE));
        await apply(kustomization(namespace, RW, UPSTREAM_SOURCE));
        you(
          `applied GitRepository ${UPSTREAM_SOURCE} (branch main), Kustomizations ${RT} (./apps/nginx-rt) and ${RW} (./apps/nginx-rw, dependsOn ${RT}); interval ${FLUX_INTERVAL}`,
        );
        const s = await observer.until(
          "Flux to apply the first commit",
          (x) => x.conf === FIRST.conf && x.image === FIRST.image && x.rwApplied === rev(first),
          120_000,
        );
        return `in ${seconds(s.at - committedAt)}`;
      },
    },
    mode === "Suspend"
      ? {
          expectation: `the closed window suspended ${RW}; ${RT} was left alone`,
          run: async () => {
            opening = nextOpening(now(), OPENING_MARGIN_MS, OPEN_SECONDS, EVERY_MINUTES);
            await apply(reconciliationWindow(namespace, mode, opening));
            you(windowLine(mode, opening));
            const s = await observer.until(`fluxgate to suspend ${RW}`, (x) => x.rwSuspended && x.window?.state === "Closed", 15_000);
            expect(!s.rtSuspended, `${RT} is suspended too`);
            expect(sameInstant(s.window?.nextOpen, opening.at), `status.nextOpen is ${s.window?.nextOpen ?? "missing"}, expected ${clock(opening.at)}`);
            return `status.nextOpen ${clock(opening.at)}, in ${seconds(opening.at - s.at)}`;
          },
        }
      : {
          expectation: `the closed window pinned ${GATED_SOURCE} to what ${RW} applied, and ${RW} follows the pinned copy`,
          run: async () => {
            opening = nextOpening(now(), OPENING_MARGIN_MS, OPEN_SECONDS, EVERY_MINUTES);
            await apply(reconciliationWindow(namespace, mode, opening));
            you(windowLine(mode, opening));
            await observer.until(
              `fluxgate to create ${GATED_SOURCE}, pinned to ${shortRevision(rev(first))}`,
              (x) => x.gated === rev(first) && x.window?.state === "Closed",
              20_000,
            );
            await apply(kustomization(namespace, RW, GATED_SOURCE));
            you(`pointed ${RW}'s sourceRef at GitRepository ${GATED_SOURCE}, the copy fluxgate owns and pins`);
            const s = await observer.until(`${RW} to reconcile from ${GATED_SOURCE}`, (x) => x.rwSource === GATED_SOURCE && x.rwReady, 20_000);
            expect(!s.rwSuspended, `${RW} is suspended; Gate mode never suspends`);
            expect(sameInstant(s.window?.nextOpen, openingAt()), `status.nextOpen is ${s.window?.nextOpen ?? "missing"}, expected ${clock(openingAt())}`);
            return `pinned ${shortRevision(s.window?.pinnedRevision)}; status.nextOpen ${clock(openingAt())}, in ${seconds(openingAt() - s.at)}`;
          },
        },
    {
      expectation: `a commit changing nginx.conf and the image reached the ConfigMap at once (${RT} is real time)`,
      run: async () => {
        second = await commit(SECOND, `nginx.conf ${SECOND.conf} and image ${SECOND.image}`);
        const s = await observer.until(`the ConfigMap to take nginx.conf ${SECOND.conf}`, (x) => x.conf === SECOND.conf, AT_ONCE_MS);
        confChangedAt = s.at;
        return `${seconds(s.at - committedAt)} after the commit (Flux interval ${FLUX_INTERVAL})`;
      },
    },
    {
      expectation: `the window's status shows ${RW} waiting for that revision, and when it opens`,
      run: async () => {
        const s = await observer.until(
          `status.pending to list ${RW} at ${shortRevision(rev(second))}`,
          (x) => (x.window?.pending ?? []).some((p) => p.name === RW && p.pendingRevision === rev(second)),
          AT_ONCE_MS,
        );
        expect(sameInstant(s.window?.nextOpen, openingAt()), `status.nextOpen is ${s.window?.nextOpen ?? "missing"}`);
        return `${shortRevision(rev(second))} pending, opens ${clock(openingAt())}`;
      },
    },
    {
      expectation: `the Deployment stayed at ${FIRST.image} while the window was closed`,
      run: async () => {
        // Give Flux a few intervals after the ConfigMap changed: had it been free to, it would have changed the Deployment by now.
        const changed = await observer.holdsWithin((x) => x.image !== FIRST.image, Math.max(0, confChangedAt + 3 * FLUX_INTERVAL_MS - now()));
        expect(changed === undefined, `the Deployment changed to ${changed?.image ?? "nothing"} at ${clock(changed?.at ?? 0)}, before the window opened`);
        expect(observer.latest.rwApplied === rev(first), `${RW} applied ${shortRevision(observer.latest.rwApplied)}`);
        return `${RW} still at ${shortRevision(rev(first))}, ${seconds(now() - committedAt)} after the commit`;
      },
    },
    mode === "Suspend"
      ? {
          expectation: "deleted while the window is closed, the Deployment stays deleted (a suspended Kustomization heals no drift)",
          run: async () => {
            await apps.deleteNamespacedDeployment({ namespace, name: DEPLOYMENT });
            you(`deleted Deployment ${DEPLOYMENT} by hand (drift)`);
            const gone = await observer.until("the Deployment to be gone", (x) => x.image === undefined, 10_000);
            const back = await observer.holdsWithin((x) => x.image !== undefined, DRIFT_WATCH_MS);
            expect(back === undefined, `the Deployment came back at ${clock(back?.at ?? 0)} with ${back?.image ?? ""}`);
            expect(now() < openingAt(), `the window opened before the drift check ended: this machine was too slow for the demo's schedule`);
            ctx.note(`Suspend mode heals no drift while closed: the Deployment stays deleted until the window opens. Gate mode keeps healing.`);
            return `still deleted ${seconds(now() - gone.at)} later (${DRIFT_WATCH_MS / FLUX_INTERVAL_MS} Flux intervals)`;
          },
        }
      : {
          expectation: `deleted while the window is closed, the Deployment is recreated by Flux at the pinned revision (${FIRST.image})`,
          run: async () => {
            const before = observer.latest.deploymentUid;
            await apps.deleteNamespacedDeployment({ namespace, name: DEPLOYMENT });
            const deletedAt = now();
            you(`deleted Deployment ${DEPLOYMENT} by hand (drift)`);
            // Flux may recreate it between two looks at the cluster: a new uid tells it was deleted and is back.
            const back = await observer.until("Flux to recreate the Deployment", (x) => x.image !== undefined && x.deploymentUid !== before, AT_ONCE_MS);
            const gone = { at: deletedAt };
            expect(back.image === FIRST.image, `recreated with ${back.image ?? ""}, not the pinned ${FIRST.image}`);
            expect(now() < openingAt(), `the window opened before the drift check ended: this machine was too slow for the demo's schedule`);
            ctx.note(
              `Gate mode holds the revision, not the reconciler: Flux healed the drift at the pinned revision while ${shortRevision(rev(second))} waits.`,
            );
            return `recreated ${seconds(back.at - gone.at)} after it was deleted`;
          },
        },
    {
      expectation:
        mode === "Suspend"
          ? `the window opened on schedule and fluxgate resumed ${RW}`
          : `the window opened on schedule and fluxgate moved the pin to the waiting revision`,
      run: async () => {
        const at = openingAt();
        ctx.note(`… the window opens at ${clock(at)}, in ${seconds(Math.max(0, at - now()))}`);
        const s = await observer.until(`the window to open at ${clock(at)}`, (x) => x.window?.state === "Open", at - now() + WITHIN_SECONDS_MS);
        expect(s.at >= at, `the window was Open at ${clock(s.at)}, before ${clock(at)}`);
        const done =
          mode === "Suspend"
            ? await observer.until(`fluxgate to resume ${RW}`, (x) => !x.rwSuspended, WITHIN_SECONDS_MS)
            : await observer.until(`the pin to move to ${shortRevision(rev(second))}`, (x) => x.window?.pinnedRevision === rev(second), WITHIN_SECONDS_MS);
        return `status Open ${seconds(s.at - at)} after ${clock(at)}; ${mode === "Suspend" ? "resumed" : "pinned"} ${seconds(done.at - at)} after it`;
      },
    },
    {
      expectation: `the Deployment changed to ${SECOND.image} within seconds of the opening`,
      run: async () => {
        const at = openingAt();
        const s = await observer.until(`the Deployment to change to ${SECOND.image}`, (x) => x.image === SECOND.image, at + 2 * WITHIN_SECONDS_MS - now());
        expect(s.at - at <= WITHIN_SECONDS_MS, `it changed ${seconds(s.at - at)} after the opening, not within ${seconds(WITHIN_SECONDS_MS)}`);
        return `${seconds(s.at - at)} after the opening`;
      },
    },
    {
      expectation:
        mode === "Suspend"
          ? `the window closed ${OPEN_SECONDS}s later and fluxgate suspended ${RW} again`
          : `the window closed ${OPEN_SECONDS}s later; the pin holds and ${RW} keeps reconciling`,
      run: async () => {
        const closeAt = openingAt() + OPEN_SECONDS * 1000;
        const s = await observer.until("the window to close", (x) => x.window?.state === "Closed", closeAt - now() + WITHIN_SECONDS_MS);
        expect(s.at >= closeAt, `the window was Closed at ${clock(s.at)}, before ${clock(closeAt)}`);
        if (mode === "Suspend") await observer.until(`fluxgate to suspend ${RW}`, (x) => x.rwSuspended, WITHIN_SECONDS_MS);
        else
          expect(
            !s.rwSuspended && s.window?.pinnedRevision === rev(second),
            `pinned ${shortRevision(s.window?.pinnedRevision)}, suspended ${String(s.rwSuspended)}`,
          );
        const next = s.window?.nextOpen === undefined ? "none" : clock(Date.parse(s.window.nextOpen));
        return `closed ${seconds(s.at - closeAt)} after ${clock(closeAt)}; next opening ${next}`;
      },
    },
  ];

  const label = `[${mode}]`;
  repoUrl = await prepare(ctx, namespace);
  ctx.note(
    `Repository ${repoUrl} and namespace ${namespace}: apps/nginx-rt (ConfigMap, Kustomization ${RT}, real time), apps/nginx-rw (Deployment + Service, Kustomization ${RW}, governed by window ${WINDOW_NAME}).`,
  );
  observer.start();
  try {
    await playSteps(steps, label, ctx.expectations);
    // One more look, so that what fluxgate recorded about the last step (its event) is told too.
    await sleep(TELL_LAST_MS);
  } finally {
    await observer.stop();
  }
}

function windowLine(mode: DemoMode, opening: Opening): string {
  const gate = mode === "Gate" ? `, gate: upstream GitRepository ${UPSTREAM_SOURCE} → gated copy ${GATED_SOURCE}` : "";
  return (
    `created ReconciliationWindow ${WINDOW_NAME} (mode ${mode}${gate}) for Kustomization ${RW}: ` +
    `opens at ${clock(opening.at)} and every ${opening.everyMinutes} minutes, for ${opening.durationSeconds}s (schedule "${opening.cron}", UTC)`
  );
}
