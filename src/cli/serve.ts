// `fluxgate serve` (the Config Service: REST API and dashboard over a Git working copy) and `fluxgate serve token add`.

import { open, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { findKustomize, KustomizeRunner } from "../gitops/kustomize.ts";
import { kustomizeTargets } from "../server/model/rendered-targets.ts";
import { ROLES, addToken, type Role } from "../server/http/tokens.ts";
import { dataDir, ensureExampleFleet } from "../server/model/example-fleet.ts";
import { KubeLive, parseClusterContexts } from "../server/status/live.ts";
import { startService } from "../server/server.ts";
import { parseDuration } from "../schedule/index.ts";
import { inContext } from "../errors.ts";
import { addClusterKey } from "../server/status/keys.ts";
import { eventsAddress, providerAndAlert, secretCommand, URL_PLACEHOLDER } from "../gitops/push-manifests.ts";
import { defaultStore, storeDescription } from "../server/status/open.ts";
import { OperationalError, UsageError } from "./errors.ts";
import { jsonLogger } from "../kube/log.ts";
import { aborted, stopSignals } from "./signals.ts";
import { fluxgateVersion } from "./version.ts";
import { list, str, type CommandResult, type Values } from "./command.ts";

/** Runs `fluxgate serve` (its spec: specs.ts). */
export function runServe(v: Values): Promise<CommandResult> {
  return serve({
    repo: str(v.repo),
    host: str(v.host) ?? "127.0.0.1",
    port: portOf(str(v.port), 8080),
    tokensFile: str(v["tokens-file"]),
    anonymousRead: v["anonymous-read"] === true,
    clusterContexts: list(v["cluster-context"]),
    kubeconfig: str(v.kubeconfig),
    syncInterval: str(v["sync-interval"]) ?? "30s",
    renderTargets: v["render-targets"] === true,
    clusterKeys: str(v["cluster-keys"]),
    store: str(v.store),
    staleAfter: str(v["stale-after"]),
    env: process.env,
    now: Date.now(),
    print: (text) => process.stdout.write(text),
  });
}

/** Runs `fluxgate serve token add` (its spec: specs.ts). */
export function runTokenAdd(v: Values): Promise<CommandResult> {
  return tokenAdd({ tokensFile: str(v["tokens-file"]), name: str(v.name), role: str(v.role), email: str(v.email), now: Date.now() });
}

/** Runs `fluxgate serve cluster-key add` (its spec: specs.ts). */
export function runClusterKeyAdd(v: Values): Promise<CommandResult> {
  return clusterKeyAdd({ keysFile: str(v["keys-file"]), cluster: str(v.cluster), url: str(v.url), rotate: v.rotate === true, now: Date.now() });
}

export interface ServeOptions {
  /** The Git working copy; absent: the example fleet in the data directory. */
  repo?: string | undefined;
  host: string;
  port: number;
  tokensFile?: string | undefined;
  anonymousRead: boolean;
  /** `NAME=CONTEXT` pairs. */
  clusterContexts: readonly string[];
  kubeconfig?: string | undefined;
  /** Go duration; "0" turns periodic fetching off. */
  syncInterval: string;
  /** Render each cluster with kustomize, so that targets a kustomize base declares get per-target lanes. */
  renderTargets?: boolean;
  /** The cluster keys file: turns the event receiver on. */
  clusterKeys?: string | undefined;
  /** Where pushed status is kept: a PostgreSQL URL or a SQLite file; default status.db in the data directory. */
  store?: string | undefined;
  /** Go duration after which a silent cluster is stale. */
  staleAfter?: string | undefined;
  env: NodeJS.ProcessEnv;
  now: number;
  /** Where the URL and tokens are printed as soon as the service listens. */
  print: (text: string) => void;
  /** Stops the service when aborted; else SIGINT or SIGTERM do. */
  signal?: AbortSignal;
}

/**
 * Marks the example fleet as served by this process (`serve.pid` in the data directory). `shared` is
 * true when another live process serves it already: its tokens must then stay as they are.
 */
async function lockExample(data: string): Promise<{ shared: boolean; release: () => Promise<void> }> {
  const file = join(data, "serve.pid");
  for (;;) {
    try {
      const handle = await open(file, "wx");
      await handle.writeFile(`${process.pid}\n`);
      await handle.close();
      return { shared: false, release: () => rm(file, { force: true }) };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    }
    const pid = Number((await readFile(file, "utf8").catch(() => "")).trim());
    if (Number.isInteger(pid) && pid > 0 && alive(pid)) return { shared: true, release: () => Promise.resolve() };
    // Left by a process that is gone: take it over.
    await rm(file, { force: true });
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Parses --port. */
export function portOf(text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535) throw new UsageError(`--port ${text}: must be a number from 0 to 65535`);
  return port;
}

/** The service's log: the controller's JSON-lines format on stderr; entries with `level: "error"` are errors. */
const logger = jsonLogger("info");
function log({ msg, level, ...fields }: Record<string, unknown>): void {
  if (level === "error") logger.error(String(msg), fields);
  else logger.info(String(msg), fields);
}

/**
 * Serves until stopped; returns what to print last.
 *
 * @example await serve({ repo: "./fleet", host: "127.0.0.1", port: 8080, tokensFile: "tokens.yaml", anonymousRead: false, clusterContexts: [], syncInterval:
 * "30s", env: process.env, now: Date.now(), print: console.log })
 */
export async function serve(options: ServeOptions): Promise<string> {
  const syncIntervalMs = inContext({ field: `--sync-interval ${options.syncInterval}`, as: UsageError }, () =>
    options.syncInterval === "0" ? 0 : parseDuration(options.syncInterval),
  );
  const push =
    options.clusterKeys === undefined
      ? null
      : {
          keysFile: options.clusterKeys,
          store: options.store ?? defaultStore(dataDir(options.env)),
          staleAfterMs: durationFlag("--stale-after", options.staleAfter ?? "15m"),
        };
  if (push === null && (options.store !== undefined || options.staleAfter !== undefined))
    throw new UsageError("--store and --stale-after need --cluster-keys FILE: they configure the event receiver");
  let repo = options.repo;
  let tokensFile = options.tokensFile;
  const example = repo === undefined;
  const exampleTokens: Array<{ role: Role; token: string }> = [];
  let prepare: (() => Promise<void>) | undefined;
  let releaseLock: () => Promise<void> = () => Promise.resolve();
  try {
    if (example) {
      const data = dataDir(options.env);
      const fleetDir = join(data, "example-fleet");
      const file = tokensFile ?? join(data, "example-tokens.yaml");
      repo = fleetDir;
      tokensFile = file;
      // Runs once the port is ours: a start that fails writes nothing, and no running server's tokens are replaced.
      prepare = async () => {
        const { created } = await ensureExampleFleet(fleetDir, options.now);
        options.print(`${created ? "Created" : "Serving"} the example fleet in ${fleetDir} (a Git repository: see "git log" there).\n`);
        const lock = await lockExample(data);
        releaseLock = lock.release;
        for (const role of ["viewer", "editor"] as const) {
          // Another server running on the example fleet keeps its tokens: this one adds its own beside them.
          const name = lock.shared ? `example-${role}-${process.pid}` : `example-${role}`;
          exampleTokens.push({ role, token: await addToken(file, { name, role, replace: !lock.shared, now: options.now }) });
        }
      };
    } else if (tokensFile === undefined && !options.anonymousRead) {
      throw new UsageError('give --tokens-file FILE (add tokens with "fluxgate serve token add"), or --anonymous-read to let anyone read');
    }
    const contexts = parseClusterContexts(options.clusterContexts);
    const live = contexts.size === 0 ? null : new KubeLive(contexts, options.kubeconfig);
    const targets = options.renderTargets === true ? kustomizeTargets(new KustomizeRunner(await findKustomize(undefined, options.env))) : undefined;
    // Fleet windows are rendered as kustomize renders them; without kustomize the API says they are not known.
    const kustomize = await findKustomize(undefined, options.env).then(
      (command) => new KustomizeRunner(command),
      () => null,
    );
    const service = await startService({
      repo: repo as string,
      host: options.host,
      port: options.port,
      tokensFile: tokensFile ?? null,
      anonymousRead: options.anonymousRead,
      live,
      syncIntervalMs,
      push,
      version: fluxgateVersion(),
      log,
      ...(prepare === undefined ? {} : { prepare }),
      ...(targets === undefined ? {} : { targets }),
      kustomize,
    });
    const fleet = await service.repository.fleet();
    const unknown = [...contexts.keys()].filter((name) => !fleet.clusters.some((c) => c.entry.name === name));
    if (unknown.length > 0) {
      await service.close();
      throw new UsageError(`--cluster-context: ${unknown.join(", ")} not in fluxgate.yaml (clusters: ${fleet.clusters.map((c) => c.entry.name).join(", ")})`);
    }
    const lines = [
      `fluxgate Config Service on ${service.url}`,
      `  repository ${service.repository.dir} (branch ${service.repository.branch}${service.repository.hasRemote ? ", pushes to origin" : ", no remote"}) at ${fleet.commit.slice(0, 12)}`,
      `  dashboard  ${service.url}/`,
      `  API        ${service.url}/api/v1 (docs: ${service.url}/docs, OpenAPI: ${service.url}/openapi.json)`,
    ];
    if (push !== null)
      lines.push(
        `  events     ${eventsAddress(service.url, "CLUSTER")} (signed by the keys in ${push.keysFile}; status kept in ${storeDescription(push.store)})`,
      );
    for (const { role, token } of exampleTokens) {
      lines.push(`  ${role} token: ${token}`, `    open ${service.url}/#token=${token}`);
    }
    options.print(`${lines.join("\n")}\n`);
    await aborted(options.signal ?? stopSignals().signal);
    await service.close();
    await releaseLock();
    return "Stopped.\n";
  } catch (e) {
    await releaseLock();
    if ((e as NodeJS.ErrnoException).code === "EADDRINUSE")
      throw new OperationalError(`${options.host}:${options.port} is in use: choose another --port`, { cause: e });
    throw e;
  }
}

export interface TokenAddOptions {
  tokensFile: string | undefined;
  name: string | undefined;
  role: string | undefined;
  email?: string | undefined;
  now: number;
}

/** Adds a token and returns it, the only time it is shown; the file keeps only its hash. */
export async function tokenAdd(options: TokenAddOptions): Promise<string> {
  if (options.tokensFile === undefined) throw new UsageError("--tokens-file FILE is required");
  if (options.name === undefined) throw new UsageError("--name NAME is required: it is the author of the commits made with the token");
  if (options.role === undefined || !(ROLES as readonly string[]).includes(options.role)) {
    throw new UsageError(`--role must be one of ${ROLES.join(", ")}`);
  }
  const token = await addToken(options.tokensFile, { name: options.name, role: options.role as Role, email: options.email, now: options.now });
  return `${token}\n`;
}

/** A Go duration flag in ms; exit 2 naming the flag when it is not one. */
function durationFlag(flag: string, text: string): number {
  return inContext({ field: `${flag} ${text}`, as: UsageError }, () => parseDuration(text));
}

export interface ClusterKeyAddOptions {
  keysFile: string | undefined;
  cluster: string | undefined;
  url: string | undefined;
  rotate: boolean;
  now: number;
}

/** Adds (or rotates) a cluster's key; prints it once, the Secret command and the Provider and Alert to commit. */
export async function clusterKeyAdd(options: ClusterKeyAddOptions): Promise<string> {
  if (options.keysFile === undefined) throw new UsageError("--keys-file FILE is required");
  if (options.cluster === undefined) throw new UsageError("--cluster NAME is required: a cluster of fluxgate.yaml");
  if (options.url !== undefined && !/^https?:\/\/[^/\s]+/.test(options.url))
    throw new UsageError(`--url ${options.url}: must be the http(s) address clusters reach fluxgate serve at, e.g. https://fluxgate.example.com`);
  const key = await addClusterKey(options.keysFile, { cluster: options.cluster, replace: options.rotate, now: options.now });
  return [
    `Key of cluster ${options.cluster} (shown once; ${options.keysFile} keeps it for the service):`,
    `  ${key}`,
    "",
    "Create the Secret in the cluster (never commit the key unencrypted):",
    `  ${secretCommand(key)}`,
    "",
    `Commit the Provider and Alert under the cluster's directory (e.g. clusters/${options.cluster}/fluxgate-status.yaml):`,
    "",
    providerAndAlert(options.cluster, options.url ?? URL_PLACEHOLDER),
  ].join("\n");
}
