// Connections to one cluster: kept-alive TLS, a time bound on each request, retries with backoff on 429 and 5xx, and a hook for metrics.

import {
  ApiextensionsV1Api,
  AppsV1Api,
  AuthenticationV1Api,
  CoordinationV1Api,
  CoreV1Api,
  createConfiguration,
  CustomObjectsApi,
  KubernetesObjectApi,
  RbacAuthorizationV1Api,
  PatchStrategy,
  ServerConfiguration,
  setHeaderOptions,
  type Configuration,
  type KubeConfig,
} from "@kubernetes/client-node";
import { PooledAuthentication } from "./pooled.ts";
import { policyOf, ResilientHttp, type ConnectionOptions } from "./transport.ts";

export { loadKubeConfig, REQUEST_TIMEOUT_MS, RequestTimeoutError, type ConnectionOptions, type KubeConfigOptions, type RequestRecord } from "./transport.ts";

/**
 * Everything that talks to one cluster goes through a Connection: API clients made by `api()`
 * share its kept-alive connections, time bound, retry policy and metrics hook.
 *
 * @example
 * const cluster = new Connection(loadKubeConfig({ context: "kind-berlin" }));
 * const custom = cluster.api(CustomObjectsApi);
 */
export class Connection {
  readonly kubeConfig: KubeConfig;
  private readonly auth: PooledAuthentication;
  private readonly configuration: Configuration;
  private readonly apis = new Map<unknown, unknown>();

  constructor(kubeConfig: KubeConfig, options: ConnectionOptions = {}) {
    this.kubeConfig = kubeConfig;
    this.auth = new PooledAuthentication(kubeConfig);
    const server = kubeConfig.getCurrentCluster()?.server;
    if (server === undefined) throw new Error("the kubeconfig has no current cluster");
    this.configuration = createConfiguration({
      baseServer: new ServerConfiguration(server, {}),
      authMethods: { default: this.auth },
      httpApi: new ResilientHttp(policyOf(options)),
    });
  }

  /** The URL of the API server. */
  get server(): string {
    return this.kubeConfig.getCurrentCluster()?.server ?? "";
  }

  /** An API client of this connection (one per class), like `kubeConfig.makeApiClient(Api)`. */
  api<T>(Api: new (config: Configuration) => T): T {
    let client = this.apis.get(Api) as T | undefined;
    if (client === undefined) {
      client = new Api(this.configuration);
      this.apis.set(Api, client);
    }
    return client;
  }

  get core(): CoreV1Api {
    return this.api(CoreV1Api);
  }

  get apps(): AppsV1Api {
    return this.api(AppsV1Api);
  }

  /** Custom resources: fluxgate's and Flux's. */
  get custom(): CustomObjectsApi {
    return this.api(CustomObjectsApi);
  }

  /** Any object by its apiVersion and kind (server-side apply of manifests). */
  get objects(): KubernetesObjectApi {
    return this.api(KubernetesObjectApi);
  }

  get apiextensions(): ApiextensionsV1Api {
    return this.api(ApiextensionsV1Api);
  }

  get authentication(): AuthenticationV1Api {
    return this.api(AuthenticationV1Api);
  }

  get coordination(): CoordinationV1Api {
    return this.api(CoordinationV1Api);
  }

  get rbac(): RbacAuthorizationV1Api {
    return this.api(RbacAuthorizationV1Api);
  }

  /** Closes the idle kept-alive connections; requests in flight finish. */
  close(): void {
    this.auth.close();
  }
}

/** Request options that choose how a patch is read: server-side apply, JSON merge patch or JSON patch. */
export const PATCH = {
  apply: setHeaderOptions("Content-Type", PatchStrategy.ServerSideApply),
  merge: setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
  json: setHeaderOptions("Content-Type", PatchStrategy.JsonPatch),
} as const;

export { PatchStrategy };
