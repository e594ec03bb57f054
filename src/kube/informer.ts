// Informers: a cache of one resource kept current by list + watch, restarted with backoff after errors.

import { makeInformer, type KubeConfig, type KubernetesListObject, type KubernetesObject } from "@kubernetes/client-node";
import { statusCodeOf } from "./errors.ts";
import { collectionPath, type Resource } from "./resources.ts";
import { Rest } from "./transport.ts";

export type ChangeHandler<T> = (obj: T, kind: "add" | "update" | "delete") => void;

export interface InformerOptions {
  namespace?: string | undefined;
  onError?: (error: unknown) => void;
  /**
   * Told of each request the informer sends: a list with its HTTP code (undefined when none came
   * back), or a watch when it starts (a new one after each watch ends), before any answer.
   */
  onRequest?: (verb: "list" | "watch", code?: number) => void;
}

/**
 * Bound on one list, answer included: a list of thousands of objects is one answer, so longer than
 * a single request's, yet a list from an API server that vanished must end.
 */
const LIST_TIMEOUT_MS = 5 * 60_000;

/** First wait before listing and watching again after an error; it doubles up to MAX_RESTART_MS while errors go on. */
const INITIAL_RESTART_MS = 500;
const MAX_RESTART_MS = 30_000;

/** A watched cache of one resource (in all namespaces or one). */
export class Informer<T extends KubernetesObject> {
  readonly resource: Resource;
  readonly namespace: string | undefined;
  private readonly inner: ReturnType<typeof makeInformer<T>>;
  private readonly rest: Rest;
  private synced = false;
  private failed = false;
  private stopped = false;
  private restartDelay = INITIAL_RESTART_MS;
  private restartTimer: NodeJS.Timeout | undefined;
  private readonly onError: (error: unknown) => void;

  constructor(kc: KubeConfig, resource: Resource, handler: ChangeHandler<T>, options: InformerOptions = {}) {
    this.resource = resource;
    this.namespace = options.namespace;
    this.onError = options.onError ?? (() => undefined);
    // One attempt per list: the informer's own backoff decides when to list again.
    const rest = new Rest(kc, { attempts: 1, timeoutMs: LIST_TIMEOUT_MS });
    this.rest = rest;
    const path = collectionPath(resource, options.namespace);
    const onRequest = options.onRequest ?? (() => undefined);
    const list = async (): Promise<KubernetesListObject<T>> => {
      try {
        const got = await rest.json<KubernetesListObject<T>>("GET", path);
        onRequest("list", 200);
        return got;
      } catch (error) {
        onRequest("list", statusCodeOf(error));
        throw error;
      }
    };
    this.inner = makeInformer<T>(kc, path, list);
    this.inner.on("connect", () => onRequest("watch"));
    this.inner.on("add", (o) => handler(o, "add"));
    this.inner.on("update", (o) => handler(o, "update"));
    this.inner.on("delete", (o) => handler(o, "delete"));
    this.inner.on("error", (err) => {
      this.failed = true;
      // Stopping aborts the watch, which reports an error nobody needs to see.
      if (this.stopped) return;
      this.onError(err);
      if (this.synced) this.scheduleRestart();
    });
  }

  /** Lists and starts watching; resolves once the first list is in the cache. */
  async start(): Promise<void> {
    this.stopped = false;
    while (!this.stopped) {
      this.failed = false;
      try {
        await this.startInner();
      } catch (error) {
        this.failed = true;
        this.onError(error);
      }
      if (!this.failed) {
        this.synced = true;
        this.restartDelay = INITIAL_RESTART_MS;
        return;
      }
      await new Promise((r) => setTimeout(r, this.nextDelay()));
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.restartTimer);
    await this.inner.stop();
    this.rest.close();
  }

  /**
   * Lists (when needed) and watches. A stop while the list or the watch request is on its way
   * does not reach the watch it then opens, which would keep the process alive: stop that one too.
   */
  private async startInner(): Promise<void> {
    try {
      await this.inner.start();
    } finally {
      if (this.stopped) await this.inner.stop();
    }
  }

  get hasSynced(): boolean {
    return this.synced;
  }

  get(name: string, namespace: string): T | undefined {
    return this.inner.get(name, namespace);
  }

  list(namespace?: string): readonly T[] {
    return this.inner.list(namespace);
  }

  private nextDelay(): number {
    const d = this.restartDelay;
    this.restartDelay = Math.min(this.restartDelay * 2, MAX_RESTART_MS);
    return d;
  }

  private scheduleRestart(): void {
    if (this.stopped || this.restartTimer !== undefined) return;
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      if (this.stopped) return;
      this.failed = false;
      this.startInner().then(
        () => {
          // The backoff resets only once a watch is established again, so a server that keeps failing is retried ever more slowly.
          if (this.failed) this.scheduleRestart();
          else this.restartDelay = INITIAL_RESTART_MS;
        },
        () => this.scheduleRestart(),
      );
    }, this.nextDelay());
    this.restartTimer.unref();
  }
}
