// Cluster access for the CLI: kubectl's flags and rules, reads and writes of fluxgate's objects, and errors that say what to do.

import { Connection, loadKubeConfig, PATCH } from "../kube/connection.ts";
import { apiStatusOf, isObjectNotFound } from "../kube/errors.ts";
import type { KubeConfig, KubernetesObject } from "../kube/types.ts";
import { OVERRIDES, TARGET_RESOURCES, WINDOWS, type Resource } from "../kube/resources.ts";
import { OperationalError, UsageError } from "./errors.ts";
import { CLI_FIELD_MANAGER } from "../api/constants.ts";
import { kindOfResourceName } from "../api/kinds.ts";

/** kubectl's flags: which kubeconfig, context and namespace. */
export interface ClusterFlags {
  kubeconfig?: string | undefined;
  context?: string | undefined;
  /** -n; default: the context's namespace, else "default". */
  namespace?: string | undefined;
}

/** A connection to one cluster, as the flags chose it. */
export interface Cluster {
  kubeConfig: KubeConfig;
  /** Kept-alive connections, a time bound on each request, retries of 429 and 5xx. */
  connection: Connection;
  /** The namespace to work in: -n, else the context's, else "default". */
  namespace: string;
  /** True when -n was given (not taken from the context). */
  namespaceGiven: boolean;
  server: string;
  context: string;
}

/** What a request tried to do, to name it in an error. */
export interface Attempt {
  verb: "get" | "list" | "watch" | "create" | "delete" | "patch";
  resource: Resource;
  /** Undefined: across all namespaces. */
  namespace?: string | undefined;
  name?: string | undefined;
}

/** Loads the kubeconfig the way kubectl does; a bad --kubeconfig or --context is bad input (exit 2). */
export function connect(flags: ClusterFlags, env: NodeJS.ProcessEnv = process.env): Cluster {
  let kubeConfig: KubeConfig;
  try {
    kubeConfig = loadKubeConfig({ kubeconfig: flags.kubeconfig, context: flags.context });
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    const source = flags.kubeconfig !== undefined ? `--kubeconfig ${flags.kubeconfig}` : env.KUBECONFIG ? `$KUBECONFIG (${env.KUBECONFIG})` : "the kubeconfig";
    if (err.code === "ENOENT") throw new UsageError(`${source}: no such file`, { cause: e });
    if (flags.context !== undefined && /^context /.test(err.message)) {
      throw new UsageError(`--context ${flags.context}: ${err.message.replace(/^context "[^"]*" /, "")}`, { cause: e });
    }
    throw new UsageError(`${source}: cannot be read: ${err.message}`, { cause: e });
  }
  const current = kubeConfig.getContextObject(kubeConfig.getCurrentContext());
  const server = kubeConfig.getCurrentCluster()?.server ?? "";
  // With nothing to load, the client falls back to http://localhost:8080, which it then refuses to use.
  if (flags.kubeconfig === undefined && !env.KUBECONFIG && kubeConfig.getCurrentContext() === "loaded-context" && server === "http://localhost:8080") {
    throw new OperationalError(
      "no cluster to talk to: no kubeconfig ($KUBECONFIG, ~/.kube/config) and not running in a cluster\nPass --kubeconfig FILE, or set KUBECONFIG.",
    );
  }
  return {
    kubeConfig,
    connection: new Connection(kubeConfig),
    namespace: flags.namespace ?? current?.namespace ?? "default",
    namespaceGiven: flags.namespace !== undefined,
    server,
    context: kubeConfig.getCurrentContext(),
  };
}

function resourceName(r: Resource): string {
  return r.group === "" ? r.plural : `${r.plural}.${r.group}`;
}

function rbacHint(a: Attempt): string {
  const where = a.namespace === undefined ? "" : ` in namespace ${a.namespace}`;
  if (a.resource === OVERRIDES && (a.verb === "create" || a.verb === "delete" || a.verb === "patch")) {
    return `Ask for a RoleBinding${where} to the ClusterRole fluxgate-override-editor (kubectl apply -k config/rbac/optional installs it).`;
  }
  if (a.resource === WINDOWS || a.resource === OVERRIDES) {
    const scope = a.namespace === undefined ? " Or look in one namespace you may read with -n NAMESPACE." : "";
    return `Ask for a RoleBinding${where} to the ClusterRole fluxgate-viewer (kubectl apply -k config/rbac/optional installs it).${scope}`;
  }
  return `Ask for read access${where} (the built-in ClusterRole view grants it).`;
}

/**
 * Turns a failed request into an error for people: exit 1 for a cluster that cannot be reached,
 * missing CRDs or RBAC; exit 2 for what the API server refused as invalid input.
 */
export function clusterError(e: unknown, a: Attempt, c: Cluster): Error {
  if (e instanceof UsageError || e instanceof OperationalError) return e;
  const target = `${a.verb} ${resourceName(a.resource)}${a.name !== undefined ? ` "${a.name}"` : ""}${a.namespace === undefined ? " in all namespaces" : ` in namespace ${a.namespace}`}`;
  const { code: status, message, name } = apiStatusOf(e);
  if (status !== undefined) {
    switch (status) {
      case 401:
        return new OperationalError(
          `the cluster at ${c.server} (context ${c.context}) did not accept the credentials (401 Unauthorized)\nLog in again, or check the user of context ${c.context} in the kubeconfig.`,
          { cause: e },
        );
      case 403: {
        const user = /User "([^"]+)"/.exec(message)?.[1];
        return new OperationalError(`not allowed by RBAC: ${user !== undefined ? `User "${user}"` : "you"} may not ${target}\n${rbacHint(a)}`, { cause: e });
      }
      case 404:
        if (!isObjectNotFound(e)) {
          if (a.resource === WINDOWS || a.resource === OVERRIDES) {
            return new OperationalError(
              `the fluxgate CRDs are not installed in this cluster: ${c.server} does not serve ${a.resource.group}/${a.resource.version} ${a.resource.plural}\nInstall them with: kubectl apply -k config/default\nIf fluxgate was uninstalled on purpose, give back any target it left suspended with: fluxgate release --all`,
              { cause: e },
            );
          }
          return new OperationalError(
            `${c.server} does not serve ${a.resource.group}/${a.resource.version} ${a.resource.plural}: is Flux installed, with its ${a.resource.kind} CRD?`,
            { cause: e },
          );
        }
        return new UsageError(`${a.resource.kind} "${a.name ?? name}" not found in namespace ${a.namespace ?? "?"}`, { cause: e });
      case 409:
        return new UsageError(`cannot ${target}: ${message || "it already exists"}`, { cause: e });
      case 400:
      case 422:
        return new UsageError(`the API server refused to ${target}: ${message}`, { cause: e });
      default:
        return new OperationalError(`could not ${target}: the API server answered ${status}${message ? `: ${message}` : ""}`, { cause: e });
    }
  }
  const code = (e as { code?: unknown } | null)?.code;
  if (typeof code === "string" || (e instanceof Error && e.name === "FetchError")) {
    const detail = (e as Error).message;
    return new OperationalError(
      `cannot reach the cluster at ${c.server} (context ${c.context}): ${detail}\nCheck that the cluster is up and that --kubeconfig and --context (or $KUBECONFIG) point at it.`,
      { cause: e },
    );
  }
  return new OperationalError(`could not ${target} at ${c.server} (context ${c.context}): ${e instanceof Error ? e.message : String(e)}`, { cause: e });
}

async function attempt<T>(a: Attempt, c: Cluster, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw clusterError(e, a, c);
  }
}

/** Lists objects of a fluxgate or Flux resource in one namespace, or in all (`namespace` undefined). */
export async function list<T extends KubernetesObject>(c: Cluster, resource: Resource, namespace: string | undefined): Promise<T[]> {
  const { group, version, plural } = resource;
  const out: unknown = await attempt({ verb: "list", resource, namespace }, c, () =>
    namespace === undefined
      ? c.connection.custom.listClusterCustomObject({ group, version, plural })
      : c.connection.custom.listNamespacedCustomObject({ group, version, plural, namespace }),
  );
  const items = ((out as { items?: T[] }).items ?? []).map((o) => ({ ...o, kind: o.kind ?? resource.kind }));
  return items.sort((a, b) =>
    `${a.metadata?.namespace ?? ""}/${a.metadata?.name ?? ""}`.localeCompare(`${b.metadata?.namespace ?? ""}/${b.metadata?.name ?? ""}`),
  );
}

/** Reads one object; undefined when it does not exist (a resource that is not served is an error). */
export async function get<T extends KubernetesObject>(c: Cluster, resource: Resource, namespace: string, name: string): Promise<T | undefined> {
  const { group, version, plural } = resource;
  try {
    return (await c.connection.custom.getNamespacedCustomObject({ group, version, plural, namespace, name })) as T;
  } catch (e) {
    if (isObjectNotFound(e)) return undefined;
    throw clusterError(e, { verb: "get", resource, namespace, name }, c);
  }
}

export async function create<T extends KubernetesObject>(c: Cluster, resource: Resource, namespace: string, body: KubernetesObject): Promise<T> {
  const { group, version, plural } = resource;
  return (await attempt({ verb: "create", resource, namespace, name: body.metadata?.name }, c, () =>
    c.connection.custom.createNamespacedCustomObject({ group, version, plural, namespace, body, fieldManager: CLI_FIELD_MANAGER }),
  )) as T;
}

/** Sets annotations of one object (a merge patch: the others stay), as the CLI's field manager. */
export async function annotate(c: Cluster, resource: Resource, namespace: string, name: string, annotations: Readonly<Record<string, string>>): Promise<void> {
  const { group, version, plural } = resource;
  await attempt({ verb: "patch", resource, namespace, name }, c, () =>
    c.connection.custom.patchNamespacedCustomObject(
      { group, version, plural, namespace, name, body: { metadata: { annotations } }, fieldManager: CLI_FIELD_MANAGER },
      PATCH.merge,
    ),
  );
}

/** Who the cluster says we are (SelfSubjectReview), or undefined when it will not say. */
export async function whoAmI(c: Cluster): Promise<string | undefined> {
  try {
    const review = await c.connection.authentication.createSelfSubjectReview({ body: { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" } });
    return review.status?.userInfo?.username;
  } catch {
    return undefined;
  }
}

/**
 * Reads a window; a missing one is bad input (exit 2) with a hint that lists the windows there
 * (and so also tells when the CRDs are missing).
 */
export async function getWindow<T extends KubernetesObject>(c: Cluster, namespace: string, name: string): Promise<T> {
  const window = await get<T>(c, WINDOWS, namespace, name);
  if (window !== undefined) return window;
  const names = (await list(c, WINDOWS, namespace)).map((w) => w.metadata?.name ?? "");
  const hint =
    names.length > 0
      ? `Windows in ${namespace}: ${names.slice(0, 10).join(", ")}${names.length > 10 ? ", ..." : ""}.`
      : `There are no windows in ${namespace}${c.namespaceGiven ? "" : " (the namespace of the current context)"}: choose one with -n NAMESPACE, or list them all with fluxgate status -A.`;
  throw new UsageError(`window "${name}" not found in namespace ${namespace}\n${hint}`);
}

/**
 * The resource of a kind as people write it: `Kustomization`, `kustomization`, `kustomizations`,
 * `kustomizations.kustomize.toolkit.fluxcd.io`, or a short name (`ks`, `hr`) — see api/kinds.ts.
 */
export function resourceOfKind(text: string): Resource | undefined {
  const kind = kindOfResourceName(text);
  return kind === undefined ? undefined : TARGET_RESOURCES[kind];
}
