// Starts and stops a real control plane (etcd + kube-apiserver, Flux CRDs; optionally Flux controllers and a Git server).
import type { KubeConfig } from "../kube/types.ts";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { join, resolve } from "node:path";
import { installCrds } from "./crds.ts";
import { StartupError } from "./errors.ts";
import { startFlux } from "./flux.ts";
import { httpOk, httpsOk } from "./http-probe.ts";
import { apiserverCaData, tokenKubeConfig, writeApiserverCredentials, writeKubeConfig } from "./kubeconfig.ts";
import { freePort, isRunning, spawnComponent, stopComponents, waitReady } from "./process.ts";
import type { ComponentProcess, SpawnOptions } from "./process.ts";
import { requireGit } from "./prereqs.ts";
import { readState, stateFileName, writeState } from "./state.ts";
import type { GitServer } from "./git.ts";
import type { ControlPlaneState } from "./state.ts";
import { controlPlaneTools, ensureFluxCrds, ensureTools, fluxTools } from "./tools.ts";

export interface ControlPlaneOptions {
  /** Directory for data, logs and credentials; a fresh temporary directory when omitted. */
  readonly dir?: string;
  /** Also start the Flux controllers and the local Git server. */
  readonly flux?: boolean;
  /**
   * With `flux`, also start notification-controller (default true). `fluxgate demo` turns it off:
   * it has no use for it, and it would be one more tool to build on a first run.
   */
  readonly notifications?: boolean;
  /**
   * With `flux`, also start helm-controller (default true). `fluxgate demo` turns it off: its story
   * has no HelmRelease, and on a first run that is one build fewer.
   */
  readonly helm?: boolean;
  /** With `notifications`: source- and kustomize-controller post their events to notification-controller, as in a cluster (default false). */
  readonly fluxEvents?: boolean;
  /**
   * Keep the processes running after this Node process exits (the CLI). When false (tests), they
   * are killed when this process exits, even if `stop()` was never called.
   */
  readonly detached?: boolean;
  /**
   * A PEM file of certificate authorities whose client certificates kube-apiserver accepts
   * (`--client-ca-file`): the user is the certificate's CN, its groups the O fields. Without it, only
   * tokens authenticate.
   */
  readonly clientCaFile?: string;
  /**
   * An etcd started elsewhere (startFleetPlane), shared with other control planes: this one keeps its
   * objects under `prefix` (`--etcd-prefix`) and starts no etcd of its own.
   */
  readonly etcd?: SharedEtcd;
  /** With `flux`: a Git server started elsewhere, which the Flux controllers pull from; default: start one. */
  readonly git?: GitServer;
  readonly log?: (line: string) => void;
}

/** An etcd several control planes share, each under its own key prefix. */
export interface SharedEtcd {
  /** The client URL, `http://127.0.0.1:PORT`. */
  readonly url: string;
  /** Where this control plane keeps its objects, e.g. `/edge-berlin/registry`. */
  readonly prefix: string;
}

/** A running control plane. */
export interface ControlPlane {
  readonly dir: string;
  /** The kube-apiserver URL (https://127.0.0.1:PORT). */
  readonly server: string;
  /** Admin kubeconfig (user in system:masters) at `<dir>/kubeconfig`. */
  readonly kubeconfigPath: string;
  readonly kubeConfig: KubeConfig;
  /** Base URL of the Git smart-HTTP server (with `flux`): a repository `x` is at `<gitUrl>/x.git`. */
  readonly gitUrl: string | undefined;
  /** Where the Git server's bare repositories live (`<dir>/git`). */
  readonly gitRoot: string;
  /** Base URL of source-controller's artifact server (with `flux`). */
  readonly artifactUrl: string | undefined;
  /** notification-controller's event receiver, `http://127.0.0.1:PORT/` (with `flux` and `notifications`). */
  readonly eventsUrl: string | undefined;
  /**
   * Stops etcd or kube-apiserver as a crash would (SIGKILL; SIGTERM for a graceful stop), keeping its
   * data directory, port and certificates, so that fault tests can take the API away and bring it back.
   */
  stopComponent(name: RestartableComponent, signal?: "SIGKILL" | "SIGTERM"): Promise<void>;
  /** Starts a component stopped by `stopComponent` again, with the same arguments; resolves once it answers its health check. */
  startComponent(name: RestartableComponent): Promise<void>;
  /** Stops exactly the processes this control plane started and removes what it created. */
  stop(): Promise<void>;
}

/** The components a fault test may stop and start again. */
export type RestartableComponent = "etcd" | "kube-apiserver";

/** Entries of the directory the control plane creates; `stop` removes exactly these. */
const baseEntries = [stateFileName, "etcd", "pki", "logs", "kubeconfig", "kubeconfigs"];
const fluxEntries = ["git", "git-url", "artifacts", "tmp"];

/** Control planes started by this process (not detached), by directory: cleaned up when it exits. */
const attached = new Map<string, ControlPlaneState>();
let exitHookInstalled = false;

/** Tests must not leave processes or directories behind even when they crash before calling stop(). */
export function cleanUpOnExit(dir: string, state: ControlPlaneState): void {
  attached.set(dir, state);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  const cleanUp = (): void => {
    for (const [planeDir, planeState] of attached) {
      for (const p of planeState.processes) {
        if (!isRunning(p)) continue;
        try {
          process.kill(p.pid, "SIGKILL");
        } catch {
          // already gone
        }
      }
      const targets = planeState.createdDir ? [planeDir] : planeState.created.map((e) => join(planeDir, e));
      for (const target of targets) rmSync(target, { recursive: true, force: true });
    }
  };
  process.on("exit", cleanUp);
  // 'exit' does not run when a signal ends the process, so take the usual termination signals over.
  for (const [signal, code] of [
    ["SIGINT", 130],
    ["SIGTERM", 143],
    ["SIGHUP", 129],
  ] as const) {
    process.once(signal, () => {
      cleanUp();
      process.exit(code);
    });
  }
}

function defaultLog(line: string): void {
  process.stderr.write(`[fluxgate control-plane] ${line}\n`);
}

/**
 * Starts etcd and kube-apiserver on free loopback ports (RBAC, service-account tokens), installs the
 * Flux CRDs and waits for `/readyz`; with `flux`, also source- and kustomize-controller, (unless
 * `helm` is false) helm-controller, (unless `notifications` is false) notification-controller and a
 * Git server. Builds missing tools first.
 *
 * @example
 * const cp = await startControlPlane({ flux: true });
 * try { ... cp.kubeConfig ... } finally { await cp.stop(); }
 */
export async function startControlPlane(options: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const log = options.log ?? defaultLog;
  const flux = options.flux ?? false;
  const notifications = flux && (options.notifications ?? true);
  const helm = flux && (options.helm ?? true);
  if (flux) requireGit();
  const wanted = flux ? fluxTools.filter((t) => (notifications || t !== "notification-controller") && (helm || t !== "helm-controller")) : [];
  const tools = await ensureTools([...controlPlaneTools, ...wanted], log);
  const crdFiles = await ensureFluxCrds(log);

  const dir = options.dir === undefined ? await mkdtemp(join(tmpdir(), "fluxgate-cp-")) : resolve(options.dir);
  const createdDir = options.dir === undefined || !existsSync(dir);
  const previous = createdDir ? undefined : await readState(dir);
  if (previous !== undefined) {
    if (previous.processes.some(isRunning)) {
      throw new StartupError(`a control plane is already running in ${dir}; stop it first (control-plane stop --dir ${dir})`);
    }
    await removeCreated(dir, previous);
  }
  await mkdir(dir, { recursive: true });
  const entries = flux ? [...baseEntries, ...fluxEntries] : baseEntries;
  const clash = createdDir ? [] : (await readdir(dir)).filter((e) => entries.includes(e));
  if (clash.length > 0) {
    throw new StartupError(`${dir} already contains ${clash.join(", ")}; use an empty or new directory`);
  }
  const state: ControlPlaneState = { createdDir, created: entries, processes: [] };
  const logDir = join(dir, "logs");
  const pkiDir = join(dir, "pki");
  await mkdir(logDir);
  await mkdir(pkiDir);
  await mkdir(join(dir, "kubeconfigs"));
  await writeState(dir, state);

  const started = (proc: ComponentProcess): Promise<void> => {
    state.processes.push(proc);
    if (options.detached !== true) cleanUpOnExit(dir, state);
    return writeState(dir, state);
  };

  try {
    const t0 = Date.now();
    const apiPort = await freePort();
    const own = options.etcd === undefined ? await etcdSpawnOptions(tools.etcd.path, join(dir, "etcd"), logDir) : undefined;
    const etcdUrl = own?.url ?? (options.etcd as SharedEtcd).url;
    const etcdSpawn = own?.spawn;
    const etcd = etcdSpawn === undefined ? undefined : spawnComponent(etcdSpawn);
    if (etcd !== undefined) await started(etcd);

    const creds = await writeApiserverCredentials(pkiDir);
    const server = `https://127.0.0.1:${apiPort}`;
    const apiserverSpawn: SpawnOptions = {
      name: "kube-apiserver",
      command: tools["kube-apiserver"].path,
      logDir,
      args: [
        `--etcd-servers=${etcdUrl}`,
        ...(options.etcd === undefined ? [] : [`--etcd-prefix=${options.etcd.prefix}`]),
        "--bind-address=127.0.0.1",
        "--advertise-address=127.0.0.1",
        `--secure-port=${apiPort}`,
        `--cert-dir=${pkiDir}`,
        `--token-auth-file=${creds.tokenFile}`,
        ...(options.clientCaFile !== undefined ? [`--client-ca-file=${resolve(options.clientCaFile)}`] : []),
        "--authorization-mode=RBAC",
        `--service-account-key-file=${creds.serviceAccountPublicKey}`,
        `--service-account-signing-key-file=${creds.serviceAccountSigningKey}`,
        "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
        "--service-cluster-ip-range=10.96.0.0/16",
        // No kubelets, no endpoints controller: keep the apiserver from managing the kubernetes Service endpoints.
        "--endpoint-reconciler-type=none",
        "--profiling=false",
        "--v=1",
      ],
    };
    const apiserver = spawnComponent(apiserverSpawn);
    await started(apiserver);
    const etcdReady = (): Promise<boolean> => httpOk(`${etcdUrl}/health`);
    if (etcd !== undefined) await waitReady(etcd, etcdReady, 30_000);
    const certFile = join(pkiDir, "apiserver.crt");
    // The apiserver writes its self-signed serving certificate (with its CA) to the cert dir at startup.
    const apiserverReady = async (): Promise<boolean> => existsSync(certFile) && (await httpsOk(`${server}/readyz`, readFileSync(certFile), creds.adminToken));
    await waitReady(apiserver, apiserverReady, 60_000);
    state.server = server;

    const kubeConfig = tokenKubeConfig(server, await apiserverCaData(pkiDir), "fluxgate-admin", creds.adminToken);
    const kubeconfigPath = join(dir, "kubeconfig");
    await writeKubeConfig(kubeconfigPath, kubeConfig);
    await installCrds(kubeConfig, crdFiles);
    log(`kube-apiserver ready at ${server} in ${((Date.now() - t0) / 1000).toFixed(1)}s; kubeconfig: ${kubeconfigPath}`);

    const gitRoot = options.git?.gitRoot ?? join(dir, "git");
    let gitUrl: string | undefined;
    let artifactUrl: string | undefined;
    let eventsUrl: string | undefined;
    if (flux) {
      const fluxStarted = await startFlux({
        dir,
        logDir,
        kubeconfigPath,
        kubeConfig,
        tools,
        notifications,
        helm,
        started,
        git: options.git,
        fluxEvents: options.fluxEvents,
      });
      gitUrl = fluxStarted.gitUrl;
      artifactUrl = fluxStarted.artifactUrl;
      eventsUrl = fluxStarted.eventsUrl;
      state.gitUrl = gitUrl;
      state.artifactUrl = artifactUrl;
      if (eventsUrl !== undefined) state.eventsUrl = eventsUrl;
      await writeFile(join(dir, "git-url"), gitUrl + "\n");
      await writeState(dir, state);
      log(`Flux controllers and Git server (${gitUrl}) ready in ${((Date.now() - t0) / 1000).toFixed(1)}s`);
    }
    return {
      dir,
      server,
      kubeconfigPath,
      kubeConfig,
      gitUrl,
      gitRoot,
      artifactUrl,
      eventsUrl,
      ...restarts(dir, state, {
        ...(etcdSpawn === undefined ? {} : { etcd: { spawn: etcdSpawn, ready: etcdReady, timeoutMs: 30_000 } }),
        "kube-apiserver": { spawn: apiserverSpawn, ready: apiserverReady, timeoutMs: 60_000 },
      }),
      stop: () => stopControlPlane(dir),
    };
  } catch (err) {
    await stopControlPlane(dir).catch(() => undefined);
    throw err;
  }
}

/**
 * How to start an etcd for tests and demos on free loopback ports, with its data in `dataDir`; its
 * client URL. One control plane's own, or one that several share (startFleetPlane).
 */
export async function etcdSpawnOptions(command: string, dataDir: string, logDir: string): Promise<{ spawn: SpawnOptions; url: string }> {
  const [etcdClient, etcdPeer] = [await freePort(), await freePort()];
  const url = `http://127.0.0.1:${etcdClient}`;
  return {
    url,
    spawn: {
      name: "etcd",
      command,
      logDir,
      args: [
        "--name=fluxgate",
        `--data-dir=${dataDir}`,
        `--listen-client-urls=${url}`,
        `--advertise-client-urls=${url}`,
        `--listen-peer-urls=http://127.0.0.1:${etcdPeer}`,
        `--initial-advertise-peer-urls=http://127.0.0.1:${etcdPeer}`,
        `--initial-cluster=fluxgate=http://127.0.0.1:${etcdPeer}`,
        // Test data is disposable: skip fsync, which dominates etcd latency on small VMs.
        "--unsafe-no-fsync",
        "--log-level=warn",
      ],
    },
  };
}

/**
 * Stop and start of single components for fault tests. A restarted component replaces its entry in
 * the state file, so `stop` and the exit hook still find exactly the processes that run.
 */
function restarts(
  dir: string,
  state: ControlPlaneState,
  specs: Partial<Record<RestartableComponent, { spawn: SpawnOptions; ready: () => Promise<boolean>; timeoutMs: number }>>,
): Pick<ControlPlane, "stopComponent" | "startComponent"> {
  const current = (name: RestartableComponent): ComponentProcess | undefined => state.processes.find((p) => p.name === name);
  return {
    async stopComponent(name, signal = "SIGKILL") {
      const proc = current(name);
      if (proc === undefined || !isRunning(proc)) throw new StartupError(`${name} is not running`);
      process.kill(proc.pid, signal);
      const deadline = Date.now() + 30_000;
      while (isRunning(proc)) {
        if (Date.now() > deadline) throw new StartupError(`${name} (pid ${proc.pid}) did not stop after ${signal}`);
        await sleep(20);
      }
    },
    async startComponent(name) {
      const before = current(name);
      if (before !== undefined && isRunning(before)) throw new StartupError(`${name} is already running (pid ${before.pid})`);
      const spec = specs[name];
      if (spec === undefined) throw new StartupError(`${name} is shared with other control planes; this one did not start it`);
      const proc = spawnComponent(spec.spawn);
      // Same place in the list, so `stop` still stops in reverse start order.
      const at = before === undefined ? -1 : state.processes.indexOf(before);
      if (at >= 0) state.processes.splice(at, 1, proc);
      else state.processes.push(proc);
      await writeState(dir, state);
      await waitReady(proc, spec.ready, spec.timeoutMs);
    },
  };
}

async function removeCreated(dir: string, state: ControlPlaneState): Promise<void> {
  if (state.createdDir) {
    await rm(dir, { recursive: true, force: true });
    return;
  }
  for (const entry of state.created) await rm(join(dir, entry), { recursive: true, force: true });
}

/**
 * Stops the processes recorded in `<dir>/control-plane.json` (only those pids, only if they still run
 * the program we started) and removes what `start` created. Does nothing when nothing was started there.
 */
export async function stopControlPlane(dir: string): Promise<void> {
  const abs = resolve(dir);
  const state = await readState(abs);
  if (state === undefined) return;
  // Reverse start order: controllers before the apiserver, the apiserver before etcd.
  await stopComponents([...state.processes].reverse());
  attached.delete(abs);
  await removeCreated(abs, state);
}
