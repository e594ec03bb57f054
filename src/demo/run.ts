// Runs the demo: a local control plane with Flux, fluxgate's CRDs and controller, then the story of each mode.

import { createWriteStream, type WriteStream } from "node:fs";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { Controller } from "../controller/controller.ts";
import { jsonLogger } from "../kube/log.ts";
import { Metrics } from "../controller/metrics.ts";
import { startControlPlane, type ControlPlane } from "../devenv/control-plane.ts";
import { installCrds } from "../devenv/crds.ts";
import { repoRoot } from "../devenv/paths.ts";
import type { Result } from "./expectations.ts";
import { playAtOnce } from "./together.ts";
import { EVERY_MINUTES, OPEN_SECONDS, OPENING_MARGIN_MS, playStory } from "./story.ts";
import { RT, RW, namespaceOf, type DemoMode } from "./scenario.ts";
import { formatEntry, seconds } from "./snapshot.ts";

export interface DemoRunOptions {
  /** The modes to play, in order. */
  readonly modes: readonly DemoMode[];
  /** After the story, keep everything running until `stopRequested` resolves. */
  readonly keep: boolean;
  /** The timeline and narration. */
  readonly out: (line: string) => void;
  /** One line per expectation. */
  readonly results: (line: string) => void;
  /** Progress of the tools build and of the control plane. */
  readonly progress: (line: string) => void;
  /** Resolves when the user asks to stop (Ctrl-C); only awaited with `keep`. */
  readonly stopRequested: Promise<void>;
  readonly now?: () => number;
}

export interface DemoOutcome {
  readonly results: readonly Result[];
  readonly elapsedMs: number;
}

const HEADINGS: Record<DemoMode, string> = {
  Suspend: `Suspend mode: fluxgate sets spec.suspend of ${RW} while its window is closed`,
  Gate: `Gate mode: fluxgate pins the revision ${RW} may apply; Flux keeps reconciling it`,
};

/** The story in brief, printed first: something to read while a first run builds the tools. */
const OUTLINE: readonly string[] = [
  `1. A first commit: Flux applies ${RT} (ConfigMap nginx-conf, real time) and ${RW} (Deployment nginx).`,
  `2. A window selecting ${RW} is created, closed until the next whole minute at least ${OPENING_MARGIN_MS / 1000} s away.`,
  "3. One commit changes both parts: the ConfigMap follows at once, the Deployment waits.",
  "4. The window's status says what waits, since when, and when the window opens.",
  "5. The Deployment is deleted by hand: Suspend mode leaves it deleted while closed; Gate mode heals it at the pinned revision.",
  "6. The window opens on time: the Deployment takes the new image within seconds.",
  `7. The window closes ${OPEN_SECONDS} s later.`,
];

/** fluxgate's CRDs, as generated into config/crd/bases. */
async function fluxgateCrdFiles(): Promise<string[]> {
  const bases = join(repoRoot, "config", "crd", "bases");
  return (await readdir(bases)).filter((f) => f.endsWith(".yaml")).map((f) => join(bases, f));
}

/** Plays the demo; the control plane is stopped and removed before it returns (also when it throws). */
export async function runDemo(options: DemoRunOptions): Promise<DemoOutcome> {
  const now = options.now ?? Date.now;
  const started = now();
  const out = options.out;
  out("fluxgate demo: reconciliation windows for Flux, on a local Kubernetes control plane with the real Flux controllers.");
  out(
    options.modes.length === 1
      ? `The story, played in ${options.modes.join("")} mode (about 2 minutes):`
      : `The story, played in ${options.modes.join(" and ")} mode at the same time, each in its own namespace, and told one mode after the other (about 2 minutes):`,
  );
  for (const line of OUTLINE) out(`  ${line}`);
  out("Starting etcd, kube-apiserver, source- and kustomize-controller and a Git server (the first run builds them from Go modules).");
  let cp: ControlPlane | undefined;
  let controller: Controller | undefined;
  let logStream: WriteStream | undefined;
  try {
    cp = await startControlPlane({ flux: true, notifications: false, helm: false, log: options.progress });
    const plane = cp;
    out(`Local cluster ready in ${seconds(now() - started)}; kubeconfig: ${cp.kubeconfigPath}`);
    await installCrds(cp.kubeConfig, await fluxgateCrdFiles());
    const logFile = join(cp.dir, "logs", "fluxgate-controller.log");
    const stream = createWriteStream(logFile, { flags: "a" });
    logStream = stream;
    controller = new Controller({
      kubeConfig: cp.kubeConfig,
      namespaces: [],
      targetKinds: ["Kustomization"],
      resyncPeriodMs: 600_000,
      log: jsonLogger("info", (line) => stream.write(line)),
      metrics: new Metrics(),
    });
    await controller.start();
    out(`fluxgate: CRDs installed from config/crd; the controller runs in this process (logs: ${logFile}).`);
    out("Times are UTC.");
    // The modes play at the same time, each in its own namespace: the first is told as it happens,
    // the others' lines are held until the story before them is told, then go on as they happen.
    const first = options.modes[0];
    const played = await playAtOnce(
      options.modes,
      (mode, sink) =>
        playStory({
          mode,
          kubeConfig: plane.kubeConfig,
          git: plane,
          timeline: (e) => sink.out(formatEntry(e)),
          note: (text) => sink.out(`          ${text}`),
          expectations: sink.expectations,
          now,
        }),
      (mode, i) => [
        "",
        `== ${HEADINGS[mode]} ==`,
        ...(i === 0
          ? []
          : [`          Played at the same time as ${String(first)} mode, in namespace ${namespaceOf(mode)}; its timeline from the start, as it happened:`]),
      ],
      { out, results: options.results },
    );
    const results = played.flat();
    out("");
    const failed = results.filter((r) => !r.ok).length;
    const total = results.length;
    out(
      failed === 0
        ? `demo: all ${total} expectations held (${options.modes.join(", ")}) in ${seconds(now() - started)}`
        : `demo: ${failed} of ${total} expectations failed (${options.modes.join(", ")}); run it with --keep to look at the cluster and the logs in ${join(cp.dir, "logs")}`,
    );
    if (options.keep) {
      out("");
      out(`Everything keeps running (--keep); the windows open again every ${EVERY_MINUTES} minutes. Try:`);
      out(`  export KUBECONFIG=${cp.kubeconfigPath}`);
      out("  kubectl get reconciliationwindows -A -o wide");
      for (const mode of options.modes) {
        const namespace = namespaceOf(mode);
        out(`  kubectl get kustomizations,gitrepositories,deployments,configmaps -n ${namespace}`);
        out(`  kubectl get events -n ${namespace} --sort-by=.lastTimestamp`);
        out(`  git clone ${cp.gitUrl ?? ""}/${namespace}.git`);
      }
      out("Press Ctrl-C to stop everything and remove it.");
      await options.stopRequested;
    }
    return { results, elapsedMs: now() - started };
  } finally {
    await controller?.stop();
    logStream?.end();
    await cp?.stop();
  }
}
