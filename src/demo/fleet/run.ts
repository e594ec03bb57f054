// Runs `fluxgate demo --fleet`: three local clusters in three zones, one Git server, one Config Service receiving their pushed status, then the fleet's story.

import { createWriteStream, type WriteStream } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { setTimeout as sleep } from "node:timers/promises";
import { Controller } from "../../controller/controller.ts";
import { Metrics } from "../../controller/metrics.ts";
import type { ControlPlane } from "../../devenv/control-plane.ts";
import { installCrds } from "../../devenv/crds.ts";
import { startFleetPlane, type FleetPlane } from "../../devenv/fleet-plane.ts";
import { commitFiles, createRepository, pushCommit } from "../../devenv/git.ts";
import { repoRoot } from "../../devenv/paths.ts";
import { freePort } from "../../devenv/process.ts";
import { findKustomize, KustomizeRunner } from "../../gitops/kustomize.ts";
import { Connection, PatchStrategy } from "../../kube/connection.ts";
import { jsonLogger } from "../../kube/log.ts";
import type { KubeConfig, KubernetesObject } from "../../kube/types.ts";
import { addToken } from "../../server/http/tokens.ts";
import { startService, type RunningService } from "../../server/server.ts";
import { addClusterKey } from "../../server/status/keys.ts";
import { DEMO_FIELD_MANAGER } from "../../api/constants.ts";
import { CLUSTER_IDENTITY_NAME, CLUSTER_IDENTITY_NAMESPACE } from "../../api/index.ts";
import { DemoTimeoutError, orUndefined } from "../poll.ts";
import { ExpectationError, Expectations, type Result } from "../expectations.ts";
import { seconds } from "../snapshot.ts";
import { FLEET_FOLDER_FILE } from "../../gitops/fleet/folder.ts";
import { FLEET, FLEET_REPOSITORY, bootstrapObjects, layOut, statusSecret, type ApiRequest } from "./layout.ts";
import { FleetObserver, formatFleetEntry } from "./observe.ts";
import { noteIdentity, playFleetStory, type ControllerIdentity, type FleetFigures, type IdentityNotes } from "./story.ts";
import type { FleetWaiting } from "./waiting.ts";

const exec = promisify(execFile);

/** What the fleet demo starts, said before it starts it. */
export const FLEET_STARTS =
  "one etcd (a key prefix per cluster), three kube-apiservers, three times source-, kustomize- and notification-controller, a Git server; " +
  "in this process three fluxgate controllers and the Config Service";
/** What it needs, measured (docs/demo.md): said up front so nobody starts it on a machine that cannot hold it. */
export const FLEET_MEMORY = "about 2.2 GiB of memory";

/** Where the fleet runs, for a look at it after the story (the e2e test opens the dashboard). */
export interface RunningFleet {
  readonly serviceUrl: string;
  /** A viewer's token for the Config Service and its dashboard. */
  readonly viewerToken: string;
  readonly plane: FleetPlane;
}

export interface FleetDemoOptions {
  readonly keep: boolean;
  readonly out: (line: string) => void;
  readonly results: (line: string) => void;
  readonly progress: (line: string) => void;
  readonly stopRequested: Promise<void>;
  /** A look at the running fleet at a point of the story: once changes wait, and at the end (before everything stops). */
  readonly inspect?: (fleet: RunningFleet, stage: "waiting" | "end") => Promise<void>;
  readonly now?: () => number;
}

export interface FleetDemoOutcome {
  readonly results: readonly Result[];
  readonly elapsedMs: number;
  readonly figures: FleetFigures | undefined;
  /** Resident memory of everything the demo started, this process included, at its highest look (bytes). */
  readonly peakMemoryBytes: number;
}

async function fluxgateCrdFiles(): Promise<string[]> {
  const bases = join(repoRoot, "config", "crd", "bases");
  return (await readdir(bases)).filter((f) => f.endsWith(".yaml")).map((f) => join(bases, f));
}

/** Every file below `dir`, by path relative to it (not .git). */
async function filesOf(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    out[relative(dir, path)] = await readFile(path, "utf8");
  }
  return out;
}

/** How long the demo waits for Flux to apply each cluster's identity from the first commit before it starts the controllers. */
const IDENTITY_WAIT_MS = 180_000;

/** Waits until ConfigMap flux-system/fluxgate-cluster exists in the cluster (Flux applied it from Git); throws after `timeoutMs`. */
async function identityApplied(kc: KubeConfig, timeoutMs: number): Promise<void> {
  const core = new Connection(kc).core;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await orUndefined(() => core.readNamespacedConfigMap({ namespace: CLUSTER_IDENTITY_NAMESPACE, name: CLUSTER_IDENTITY_NAME })).catch(
      () => undefined,
    );
    if (found !== undefined) return;
    if (Date.now() > deadline)
      throw new DemoTimeoutError(`Flux did not apply ConfigMap ${CLUSTER_IDENTITY_NAMESPACE}/${CLUSTER_IDENTITY_NAME} in ${seconds(timeoutMs)}`);
    await sleep(500);
  }
}

function mib(bytes: number): string {
  return `${Math.round(bytes / 2 ** 20)} MiB`;
}

/** Plays the fleet demo; everything it started is stopped and removed before it returns (also when it throws). */
export async function runFleetDemo(options: FleetDemoOptions): Promise<FleetDemoOutcome> {
  const now = options.now ?? Date.now;
  const started = now();
  const out = options.out;
  out(
    "fluxgate demo --fleet: reconciliation windows on a fleet of three clusters in three zones (Berlin, New York, Tokyo), each pushing its status to one Config Service.",
  );
  out(`It starts ${FLEET_STARTS}: ${FLEET_MEMORY}.`);
  out("The story (about 3 minutes):");
  out(
    "  1. One commit lays the fleet out in the fleet folder layout (fleet/, which every cluster includes once; fluxgate init for each cluster, with --status-url, writes its identity); every cluster applies it, each controller confirms its identity, and every cluster reports.",
  );
  out("  2. A fleet window is added through the Config Service's API, in one commit to fleet/ alone (its files and lines shown); every cluster enforces it.");
  out("  3. New York and Tokyo patch it to their own zone and local time: each cluster opens at its own local time.");
  out("  4. A commit changes the application: the real-time part goes everywhere at once, the windowed part waits; the fleet view says where and until when.");
  out("  5. A freeze of ring=canary, one commit to fleet/, holds New York while Berlin and Tokyo take the change at their openings.");
  out("  6. The freeze ends (one commit): New York takes it. The fleet status shows each cluster's observed state, from its pushes.");
  let plane: FleetPlane | undefined;
  let service: RunningService | undefined;
  let observer: FleetObserver | undefined;
  let work: string | undefined;
  const controllers: Controller[] = [];
  const identities = new Map<string, ControllerIdentity>();
  const logs: WriteStream[] = [];
  const expectations = new Expectations(options.results);
  let peak = 0;
  let figures: FleetFigures | undefined;
  const measure = async (): Promise<{ total: number; lines: string[] }> => {
    const procs = (await plane?.processes()) ?? [];
    const self = process.memoryUsage().rss;
    const total = procs.reduce((sum, p) => sum + p.rss, self);
    peak = Math.max(peak, total);
    const by = new Map<string, number>();
    for (const p of procs) {
      const kind = p.name.includes("/") ? p.name.slice(p.name.indexOf("/") + 1) : p.name;
      by.set(kind, (by.get(kind) ?? 0) + p.rss);
    }
    return { total, lines: [...[...by].map(([k, v]) => `${k} ${mib(v)}`), `this process (3 controllers, Config Service) ${mib(self)}`] };
  };
  try {
    plane = await startFleetPlane({ clusters: FLEET.map((c) => c.name), log: options.progress });
    const clusters = plane.clusters;
    const fleetPlane = plane;
    out(`Three clusters ready in ${seconds(now() - started)} (${plane.dir}).`);
    work = await mkdtemp(join(tmpdir(), "fluxgate-fleet-demo-"));
    const crds = await fluxgateCrdFiles();
    await Promise.all([...clusters.values()].map((cp) => installCrds(cp.kubeConfig, crds)));

    // The Config Service: an editor's and a viewer's token, a key per cluster, status in SQLite.
    const tokensFile = join(work, "tokens.yaml");
    const editor = await addToken(tokensFile, { name: "demo editor", role: "editor", email: "editor@fluxgate.invalid", now: now() });
    const viewer = await addToken(tokensFile, { name: "demo viewer", role: "viewer", now: now() });
    const keysFile = join(work, "cluster-keys.yaml");
    const keys = new Map<string, string>();
    for (const c of FLEET) keys.set(c.name, await addClusterKey(keysFile, { cluster: c.name, now: now() }));
    const port = await freePort();
    const serviceUrl = `http://127.0.0.1:${port}`;

    // The first commit: the fleet laid out by fluxgate init, with the application at v1.
    const layout = join(work, "layout");
    await mkdir(layout);
    await layOut(layout, serviceUrl, "v1");
    const repoUrl = await createRepository(plane.git, FLEET_REPOSITORY);
    const firstCommit = await pushCommit(
      repoUrl,
      await filesOf(layout),
      "fleet: the fleet folder, and three clusters laid out by fluxgate init --status-url; shop v1",
    );
    const firstCommittedAt = now();
    await exec("git", ["clone", "--quiet", repoUrl, join(work, "service")]);
    service = await startService({
      repo: join(work, "service"),
      host: "127.0.0.1",
      port,
      tokensFile,
      anonymousRead: false,
      live: null,
      syncIntervalMs: 1_000,
      version: "demo",
      log: () => undefined,
      push: { keysFile, store: join(work, "status.db"), staleAfterMs: 60_000 },
      kustomize: new KustomizeRunner(await findKustomize(undefined, process.env)),
    });
    const running = service;

    // Each cluster: its key and what flux bootstrap would apply; then, once Flux has applied the cluster's identity from the first commit,
    // fluxgate's controller (events to its notification-controller, a heartbeat every 5 s), which scopes fleet windows and freezes by it.
    for (const c of FLEET) {
      const cp = clusters.get(c.name) as ControlPlane;
      const objects = new Connection(cp.kubeConfig).objects;
      const apply = (obj: KubernetesObject): Promise<unknown> =>
        objects.patch(obj, undefined, undefined, DEMO_FIELD_MANAGER, true, PatchStrategy.ServerSideApply);
      await apply(statusSecret(keys.get(c.name) as string));
      for (const obj of bootstrapObjects(c, repoUrl)) await apply(obj);
    }
    await Promise.all([...clusters.values()].map((cp) => identityApplied(cp.kubeConfig, IDENTITY_WAIT_MS)));
    for (const c of FLEET) {
      const cp = clusters.get(c.name) as ControlPlane;
      const stream = createWriteStream(join(cp.dir, "logs", "fluxgate-controller.log"), { flags: "a" });
      logs.push(stream);
      const identity: IdentityNotes = { confirmed: undefined, unconfirmed: [] };
      identities.set(c.name, identity);
      const controller = new Controller({
        kubeConfig: cp.kubeConfig,
        namespaces: [],
        targetKinds: ["Kustomization"],
        resyncPeriodMs: 600_000,
        eventsAddress: cp.eventsUrl,
        heartbeatMs: 5_000,
        log: jsonLogger("info", (line) => {
          stream.write(line);
          noteIdentity(identity, line);
        }),
        metrics: new Metrics(),
      });
      await controller.start();
      controllers.push(controller);
    }
    out(
      `The fleet repository: ${FLEET_FOLDER_FILE} (no fleet window yet), which each clusters/<cluster>/windows/kustomization.yaml includes once, beside the cluster's identity fluxgate-cluster.yaml; each controller started once Flux had applied its cluster's identity.`,
    );
    const memory = await measure();
    out(`Everything started in ${seconds(now() - started)}; resident memory ${mib(memory.total)}: ${memory.lines.join(", ")}.`);
    out(`Config Service: ${serviceUrl} (dashboard: ${serviceUrl}/#token=${viewer}); fleet repository ${repoUrl}. Times are UTC.`);
    out("");

    const api = async (request: ApiRequest): Promise<Record<string, unknown>> => {
      const r = await fetch(`${running.url}${request.path}`, {
        method: request.method,
        headers: { authorization: `Bearer ${editor}`, ...(request.body === undefined ? {} : { "content-type": "application/json" }) },
        ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
      });
      const text = await r.text();
      if (!r.ok) throw new ExpectationError(`${request.method} ${request.path}: ${r.status} ${text}`);
      return JSON.parse(text) as Record<string, unknown>;
    };
    const kubeConfigs = new Map<string, KubeConfig>([...clusters].map(([name, cp]) => [name, cp.kubeConfig]));
    observer = new FleetObserver(kubeConfigs, { url: running.url, token: viewer }, (entries) => entries.forEach((e) => out(formatFleetEntry(e))), now);
    const waiting = async (): Promise<FleetWaiting> => {
      const r = await fetch(`${running.url}/api/v1/fleet/waiting`, { headers: { authorization: `Bearer ${viewer}` } });
      if (!r.ok) throw new Error(`GET /api/v1/fleet/waiting: ${r.status} ${await r.text()}`);
      return (await r.json()) as FleetWaiting;
    };
    observer.start();
    const sampler = setInterval(() => void measure(), 5_000);
    try {
      figures = await playFleetStory({
        repoUrl,
        firstCommit,
        firstCommittedAt,
        observer,
        api,
        waiting,
        timeline: (e) => out(formatFleetEntry(e)),
        note: (text) => out(`${" ".repeat(10)}${text}`),
        expectations,
        now,
        commitFiles: (sha) => commitFiles(fleetPlane.git, FLEET_REPOSITORY, sha),
        identities: () => identities,
        inspect:
          options.inspect === undefined
            ? undefined
            : (stage) => (options.inspect as NonNullable<typeof options.inspect>)({ serviceUrl: running.url, viewerToken: viewer, plane: fleetPlane }, stage),
      });
    } finally {
      clearInterval(sampler);
    }
    await measure();
    out("");
    const failed = expectations.failed;
    const total = expectations.results.length;
    const f = figures;
    out(
      `figures: API write → every cluster enforcing ${f.apiToEnforcingMs === undefined ? "-" : seconds(f.apiToEnforcingMs)}, → fleet status ${f.apiToFleetStatusMs === undefined ? "-" : seconds(f.apiToFleetStatusMs)}; ` +
        `transition → fleet status ${Object.entries(f.transitionToFleetStatusMs)
          .map(([n, ms]) => `${n} ${seconds(ms)}`)
          .join(", ")}; peak resident memory ${mib(peak)}; ` +
        `commits (git diff --numstat): ${Object.entries(f.commits)
          .map(([op, c]) => `${op} ${c.files} files ${c.lines} lines`)
          .join(", ")}`,
    );
    out(
      failed === 0
        ? `demo --fleet: all ${total} expectations held in ${seconds(now() - started)}`
        : `demo --fleet: ${failed} of ${total} expectations failed; run it with --keep to look at the clusters and the logs in ${plane.dir}`,
    );
    if (options.keep) {
      out("");
      out("Everything keeps running (--keep). Try:");
      for (const [name, cp] of clusters)
        out(`  KUBECONFIG=${cp.kubeconfigPath} kubectl get reconciliationwindows,windowoverrides,kustomizations -n flux-system   # ${name}`);
      out(`  open ${serviceUrl}/#token=${viewer}`);
      out(`  git clone ${repoUrl}`);
      out("Press Ctrl-C to stop everything and remove it.");
      await options.stopRequested;
    }
    return { results: expectations.results, elapsedMs: now() - started, figures, peakMemoryBytes: peak };
  } finally {
    await observer?.stop();
    for (const c of controllers) await c.stop();
    for (const s of logs) s.end();
    await service?.close();
    await plane?.stop();
    if (work !== undefined) await rm(work, { recursive: true, force: true });
  }
}
