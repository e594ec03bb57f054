// The thin layer the controller writes through: server-side apply, status, events, reads — requests by path, without client-node's generated API classes.

import { PatchStrategy, type CoreV1Event, type KubeConfig, type KubernetesObject } from "@kubernetes/client-node";
import { statusCodeOf } from "./errors.ts";
import { apiVersionOf, collectionPath, type Resource } from "./resources.ts";
import { Rest, type ConnectionOptions } from "./transport.ts";

/** Observes every request the client makes, for metrics. */
export type RequestObserver = (verb: string, resource: string, code: number | undefined) => void;

/** Reads and writes of custom resources with server-side apply. */
export class KubeClient {
  readonly kubeConfig: KubeConfig;
  private readonly observe: RequestObserver;
  private readonly rest: Rest;

  /** `connection` sets the time bound and retries of each request (see Connection). */
  constructor(kc: KubeConfig, observe: RequestObserver = () => undefined, connection: ConnectionOptions = {}) {
    this.kubeConfig = kc;
    this.rest = new Rest(kc, connection);
    this.observe = observe;
  }

  /** Closes the connections kept open for the next requests. */
  close(): void {
    this.rest.close();
  }

  /** True when the API server serves `resource` (its CRD is installed): one list of at most one object. */
  async served(resource: Resource, namespace: string | undefined): Promise<boolean> {
    try {
      await this.rest.json("GET", collectionPath(resource, namespace), { query: { limit: 1 } });
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
    const path = objectPath(resource, body.metadata?.namespace ?? "", body.metadata?.name ?? "");
    return await this.call("apply", resource.plural, () =>
      this.rest.json<T>("PATCH", path, {
        query: { fieldManager, force },
        body: { apiVersion: apiVersionOf(resource), kind: resource.kind, ...body },
        contentType: PatchStrategy.ServerSideApply,
      }),
    );
  }

  /** Server-side applies the status subresource. */
  async applyStatus(resource: Resource, namespace: string, name: string, status: unknown, fieldManager: string): Promise<void> {
    const body = { apiVersion: apiVersionOf(resource), kind: resource.kind, metadata: { name, namespace }, status };
    await this.call("apply-status", resource.plural, () =>
      this.rest.json("PATCH", `${objectPath(resource, namespace, name)}/status`, {
        query: { fieldManager, force: true },
        body,
        contentType: PatchStrategy.ServerSideApply,
      }),
    );
  }

  async get<T extends KubernetesObject>(resource: Resource, namespace: string, name: string): Promise<T | undefined> {
    try {
      return await this.call("get", resource.plural, () => this.rest.json<T>("GET", objectPath(resource, namespace, name)));
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
    await this.call("patch", resource.plural, () =>
      this.rest.json("PATCH", objectPath(resource, namespace, name), { query: { fieldManager }, body: patch, contentType: PatchStrategy.MergePatch }),
    );
  }

  /** Deletes a namespaced custom object; one that is already gone is not an error. */
  async delete(resource: Resource, namespace: string, name: string): Promise<void> {
    try {
      await this.call("delete", resource.plural, () => this.rest.json("DELETE", objectPath(resource, namespace, name)));
    } catch (e) {
      if (statusCodeOf(e) !== 404) throw e;
    }
  }

  async createEvent(namespace: string, event: CoreV1Event): Promise<void> {
    await this.call("create", "events", () => this.rest.json("POST", `/api/v1/namespaces/${encodeURIComponent(namespace)}/events`, { body: event }));
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

/** URL path of one namespaced object. */
function objectPath(resource: Resource, namespace: string, name: string): string {
  return `${collectionPath(resource, encodeURIComponent(namespace))}/${encodeURIComponent(name)}`;
}
