// Starts the real Flux controllers out-of-cluster against the local apiserver, and the local Git server they pull from.
import { Connection } from "../kube/connection.ts";
import type { KubeConfig } from "../kube/types.ts";
import { mkdir } from "node:fs/promises";
import { extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { StartupError } from "./errors.ts";
import { httpOk } from "./http-probe.ts";
import { freePort, spawnComponent, waitReady } from "./process.ts";
import type { ComponentProcess } from "./process.ts";
import type { Tool, ToolName } from "./tools.ts";
import type { GitServer } from "./git.ts";

/** The Git server's entry, next to this module: git-server-main.ts from source, git-server-main.js once built. */
const gitServerMain = fileURLToPath(new URL(`./git-server-main${extname(fileURLToPath(import.meta.url))}`, import.meta.url));

/** The namespace Flux runs in (its RUNTIME_NAMESPACE); created by `startControlPlane`. */
export const fluxNamespace = "flux-system";

export interface FluxStartOptions {
  readonly dir: string;
  readonly logDir: string;
  readonly kubeconfigPath: string;
  readonly kubeConfig: KubeConfig;
  readonly tools: Record<ToolName, Tool>;
  /** Also start notification-controller (its tool must be in `tools`). */
  readonly notifications: boolean;
  /** Also start helm-controller (its tool must be in `tools`). */
  readonly helm: boolean;
  /** Records a started process (pid file, kill-on-exit). */
  readonly started: (proc: ComponentProcess) => Promise<void>;
  /** With `notifications`: Flux's other controllers post their events to notification-controller too (`--events-addr`), as in a cluster. */
  readonly fluxEvents?: boolean | undefined;
  /** A Git server started elsewhere (several control planes share one); default: start one in `<dir>/git`. */
  readonly git?: GitServer | undefined;
}

export interface FluxEndpoints {
  readonly gitUrl: string;
  readonly artifactUrl: string;
  /** notification-controller's event receiver (`http://127.0.0.1:PORT/`), where controllers post events; with `notifications`. */
  readonly eventsUrl: string | undefined;
}

async function ensureNamespace(kc: KubeConfig, name: string): Promise<void> {
  const core = new Connection(kc).core;
  try {
    await core.createNamespace({ body: { metadata: { name } } });
  } catch (err) {
    if ((err as { code?: number }).code !== 409) throw err;
  }
}

/** Starts the local Git smart-HTTP server over the bare repositories in `gitRoot`; `ready` resolves once it answers. */
export async function startGitServer(gitRoot: string, logDir: string): Promise<{ proc: ComponentProcess; gitUrl: string; ready: () => Promise<void> }> {
  await mkdir(gitRoot, { recursive: true });
  const gitPort = await freePort();
  const proc = spawnComponent({
    name: "git-server",
    command: process.execPath,
    args: [gitServerMain, "--root", gitRoot, "--port", String(gitPort)],
    logDir,
  });
  const gitUrl = `http://127.0.0.1:${gitPort}`;
  return { proc, gitUrl, ready: () => waitReady(proc, () => httpOk(`${gitUrl}/healthz`), 20_000) };
}

/** Starts the Git server and source- and kustomize-controller (and helm- and notification-controller); resolves when all report ready. */
export async function startFlux(options: FluxStartOptions): Promise<FluxEndpoints> {
  const { dir, logDir, tools } = options;
  const storage = join(dir, "artifacts");
  const tmp = join(dir, "tmp");
  await mkdir(storage, { recursive: true });
  await mkdir(tmp, { recursive: true });
  await ensureNamespace(options.kubeConfig, fluxNamespace);

  const own = options.git === undefined ? await startGitServer(join(dir, "git"), logDir) : undefined;
  if (own !== undefined) await options.started(own.proc);

  const env: NodeJS.ProcessEnv = {
    ...process.env,
    KUBECONFIG: options.kubeconfigPath,
    RUNTIME_NAMESPACE: fluxNamespace,
    TMPDIR: tmp,
  };
  const storagePort = await freePort();
  const storageAddr = `127.0.0.1:${storagePort}`;
  const eventsAddr = options.notifications ? `127.0.0.1:${await freePort()}` : undefined;
  // Unless asked, the other controllers are not given --events-addr: what reaches notification-controller here is what a test posts.
  const events = options.fluxEvents === true && eventsAddr !== undefined ? [`--events-addr=http://${eventsAddr}/`] : [];
  const controllers: { name: ToolName; extra: string[] }[] = [
    {
      name: "source-controller",
      extra: [`--storage-path=${storage}`, `--storage-addr=${storageAddr}`, `--storage-adv-addr=${storageAddr}`, ...events],
    },
    // Dependencies not ready yet are looked at again every 2s, not every 30s: local objects use short intervals.
    { name: "kustomize-controller", extra: ["--requeue-dependency=2s", ...events] },
  ];
  if (options.helm) controllers.push({ name: "helm-controller", extra: ["--requeue-dependency=2s", ...events] });
  if (eventsAddr !== undefined) {
    controllers.push({
      name: "notification-controller",
      extra: [`--events-addr=${eventsAddr}`, `--receiverAddr=127.0.0.1:${await freePort()}`],
    });
  }
  const probes: { proc: ComponentProcess; url: string }[] = [];
  for (const c of controllers) {
    const health = await freePort();
    const metrics = await freePort();
    const proc = spawnComponent({
      name: c.name,
      command: tools[c.name].path,
      logDir,
      env,
      cwd: tmp,
      args: [
        `--health-addr=127.0.0.1:${health}`,
        `--metrics-addr=127.0.0.1:${metrics}`,
        "--enable-leader-election=false",
        "--watch-all-namespaces=true",
        "--log-level=info",
        "--log-encoding=json",
        ...c.extra,
      ],
    });
    await options.started(proc);
    probes.push({ proc, url: `http://127.0.0.1:${health}/readyz` });
  }

  const gitUrl = own?.gitUrl ?? options.git?.gitUrl;
  if (gitUrl === undefined) throw new StartupError("the shared Git server has no URL: start it before the Flux controllers");
  await Promise.all([...(own === undefined ? [] : [own.ready()]), ...probes.map((p) => waitReady(p.proc, () => httpOk(p.url), 60_000))]);
  return { gitUrl, artifactUrl: `http://${storageAddr}`, eventsUrl: eventsAddr === undefined ? undefined : `http://${eventsAddr}/` };
}
