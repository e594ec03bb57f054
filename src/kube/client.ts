// The thin layer over @kubernetes/client-node the controller writes through: server-side apply, status, events, reads.

import { CoreV1Api, CustomObjectsApi, PatchStrategy, setHeaderOptions, type CoreV1Event, type KubeConfig, type KubernetesObject } from "@kubernetes/client-node";
import { Connection, type ConnectionOptions } from "./connection.ts";
import { statusCodeOf } from "./errors.ts";
import { apiVersionOf, type Resource } from "./resources.ts";

/** Observes every request the client makes, for metrics. */
export type RequestObserver = (verb: string, resource: string, code: number | undefined) => void;

/** Reads and writes of custom resources with server-side apply. */
export class KubeClient {
  readonly kubeConfig: KubeConfig;
  private readonly custom: CustomObjectsApi;
  private readonly core: CoreV1Api;
  private readonly observe: RequestObserver;
  private readonly connection: Connection;

  /** `connection` sets the time bound and retries of each request (see Connection). */
  constructor(kc: KubeConfig, observe: RequestObserver = () => undefined, connection: ConnectionOptions = {}) {
    this.kubeConfig = kc;
    this.connection = new Connection(kc, connection);
    this.custom = this.connection.api(CustomObjectsApi);
    this.core = this.connection.api(CoreV1Api);
    this.observe = observe;
  }

  /** Closes the connections kept open for the next requests. */
  close(): void {
    this.connection.close();
  }

  /** True when the API server serves `resource` (its CRD is installed): one list of at most one object. */
  async served(resource: Resource, namespace: string | undefined): Promise<boolean> {
    const { group, version, plural } = resource;
    try {
      if (namespace === undefined) await this.custom.listClusterCustomObject({ group, version, plural, limit: 1 });
      else await this.custom.listNamespacedCustomObject({ group, version, plural, namespace, limit: 1 });
      return true;
    } catch (e) {
      if (statusCodeOf(e) === 404) return false;
      throw e;
    }
  }

  /**
   * Server-side applies `body` (only the fields this manager owns) to a namespaced custom object.
   * Fields the manager owned before and leaves out are removed from its ownership.
   */
  async apply<T extends KubernetesObject>(resource: Resource, body: KubernetesObject, fieldManager: string, force = true): Promise<T> {
    const { group, version, plural } = resource;
    const namespace = body.metadata?.namespace ?? "";
    const name = body.metadata?.name ?? "";
    return (await this.call("apply", resource.plural, () =>
      this.custom.patchNamespacedCustomObject(
        { group, version, plural, namespace, name, body: { apiVersion: apiVersionOf(resource), kind: resource.kind, ...body }, fieldManager, force },
        setHeaderOptions("Content-Type", PatchStrategy.ServerSideApply),
      ),
    )) as T;
  }

  /** Server-side applies the status subresource. */
  async applyStatus(resource: Resource, namespace: string, name: string, status: unknown, fieldManager: string): Promise<void> {
    const { group, version, plural } = resource;
    const body = { apiVersion: apiVersionOf(resource), kind: resource.kind, metadata: { name, namespace }, status };
    await this.call("apply-status", resource.plural, () =>
      this.custom.patchNamespacedCustomObjectStatus(
        { group, version, plural, namespace, name, body, fieldManager, force: true },
        setHeaderOptions("Content-Type", PatchStrategy.ServerSideApply),
      ),
    );
  }

  async get<T extends KubernetesObject>(resource: Resource, namespace: string, name: string): Promise<T | undefined> {
    const { group, version, plural } = resource;
    try {
      return (await this.call("get", resource.plural, () => this.custom.getNamespacedCustomObject({ group, version, plural, namespace, name }))) as T;
    } catch (e) {
      if (statusCodeOf(e) === 404) return undefined;
      throw e;
    }
  }

  /**
   * JSON-merge-patches a namespaced custom object: a one-off change (e.g. an annotation asking
   * Flux to reconcile) that the manager should not own as server-side apply fields.
   */
  async mergePatch(resource: Resource, namespace: string, name: string, patch: object, fieldManager: string): Promise<void> {
    const { group, version, plural } = resource;
    await this.call("patch", resource.plural, () =>
      this.custom.patchNamespacedCustomObject({ group, version, plural, namespace, name, body: patch, fieldManager }, setHeaderOptions("Content-Type", PatchStrategy.MergePatch)),
    );
  }

  /** Deletes a namespaced custom object; one that is already gone is not an error. */
  async delete(resource: Resource, namespace: string, name: string): Promise<void> {
    const { group, version, plural } = resource;
    try {
      await this.call("delete", resource.plural, () => this.custom.deleteNamespacedCustomObject({ group, version, plural, namespace, name }));
    } catch (e) {
      if (statusCodeOf(e) !== 404) throw e;
    }
  }

  async createEvent(namespace: string, event: CoreV1Event): Promise<void> {
    await this.call("create", "events", () => this.core.createNamespacedEvent({ namespace, body: event }));
  }

  private async call<T>(verb: string, resource: string, fn: () => Promise<T>): Promise<T> {
    try {
      const out = await fn();
      this.observe(verb, resource, 200);
      return out;
    } catch (e) {
      this.observe(verb, resource, statusCodeOf(e));
      throw e;
    }
  }
}
