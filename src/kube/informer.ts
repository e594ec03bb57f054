// Informers: a cache of one resource kept current by list + watch (bookmarks, a relist when the watch's version expired), restarted with backoff after errors.

import { ApiException, type KubernetesListObject, type KubernetesObject } from "@kubernetes/client-node";
import type { IncomingMessage } from "node:http";
import type { KubeConfig } from "./types.ts";
import { statusCodeOf } from "./errors.ts";
import { collectionPath, type Resource } from "./resources.ts";
import { Rest } from "./transport.ts";

export type ChangeHandler<T> = (obj: T, kind: "add" | "update" | "delete") => void;

export interface InformerOptions<T> {
  namespace?: string | undefined;
  onError?: (error: unknown) => void;
  /**
   * Told of each request the informer sends: a list with its HTTP code (undefined when none came
   * back), or a watch when it starts (a new one after each watch ends), before any answer.
   */
  onRequest?: (verb: "list" | "watch", code?: number) => void;
  /**
   * What the cache keeps of each object, as it arrives (client-go's SetTransform): the fields its
   * readers use, so that thousands of cached objects do not each hold their managed fields, status
   * and annotations nobody reads. Handlers and lookups see what it returns. Default: the whole object.
   */
  transform?: (obj: KubernetesObject) => T;
  /**
   * Objects per page of a list after the first (default 500, as client-go's informers): such a list of thousands is never one
   * answer in memory. The first list comes whole, from the API server's watch cache (relist).
   */
  pageSize?: number;
  /**
   * Told when a watch opens again after errors (the API server is back): work that failed while it
   * was away can be retried at once instead of at the end of a backoff built up during the outage.
   */
  onReconnect?: () => void;
  /**
   * A resource the cluster may not serve (a Flux kind whose controller is not installed): when the
   * first list answers 404, start() resolves false and the informer stops. Otherwise a 404 is an
   * error, retried with backoff, as any other.
   */
  optional?: boolean;
}

/**
 * Bound on one page of a list, answer included: a page of hundreds of objects is longer than a
 * single request's, yet a list from an API server that vanished must end.
 */
const LIST_TIMEOUT_MS = 5 * 60_000;

/** First wait before listing and watching again after an error; it doubles up to MAX_RESTART_MS while errors go on. */
const INITIAL_RESTART_MS = 500;
const MAX_RESTART_MS = 30_000;
/**
 * The longest wait after an error without an answer (a refused or reset connection: the API server
 * is down or restarting). Trying again costs the server nothing, and the cache must be back within
 * a second of the server: a transition due meanwhile waits for it.
 */
const MAX_UNANSWERED_RESTART_MS = 1_000;

/** A watch the API server ends sooner than this without a single event is taken for a failure (as client-go does), not watched again at once. */
const SHORT_WATCH_MS = 1_000;

const DEFAULT_PAGE_SIZE = 500;

/** One line of a watch: an event and its object (a Status for ERROR). */
interface WatchEvent {
  type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";
  object: KubernetesObject & { code?: number; message?: string; reason?: string };
}

/** The watch's resourceVersion is older than the API server keeps: list again. */
function isExpired(error: unknown): boolean {
  return statusCodeOf(error) === 410;
}

/** The last value handed out for an informer's changeCount. */
let changeSequence = 0;

/**
 * A watched cache of one resource (in all namespaces or one). It lists (in pages), then watches from
 * the list's resourceVersion with bookmarks, so that a new watch after one ends continues from the
 * latest version seen; when that version has expired (410 Gone) it lists again and tells the
 * handlers what changed meanwhile, deletions included.
 */
export class Informer<T extends KubernetesObject> {
  readonly resource: Resource;
  readonly namespace: string | undefined;
  private readonly rest: Rest;
  private readonly path: string;
  private readonly handler: ChangeHandler<T>;
  private readonly transform: (obj: KubernetesObject) => T;
  private readonly pageSize: number;
  private readonly onError: (error: unknown) => void;
  private readonly onRequest: (verb: "list" | "watch", code?: number) => void;
  private readonly onReconnect: () => void;
  private readonly optional: boolean;
  /** Errors since the last watch opened. */
  private failures = 0;
  /** By namespace ("" for cluster-scoped objects), then name. */
  private objects = new Map<string, Map<string, T>>();
  private changes = ++changeSequence;
  private resourceVersion = "";
  /** True once a list has filled the cache: the first comes whole, later ones (the watch's version expired) in pages (relist). */
  private listed = false;
  private synced = false;
  private stopped = true;
  private restartDelay = INITIAL_RESTART_MS;
  private abort = new AbortController();
  private loop: Promise<void> | undefined;
  /** Resolves start(): once listed and watching, or at stop. */
  private started: (() => void) | undefined;
  /** False when the first list answered 404: the API server does not serve the resource (its CRD is not installed). */
  private served: boolean | undefined;

  constructor(kc: KubeConfig, resource: Resource, handler: ChangeHandler<T>, options: InformerOptions<T> = {}) {
    this.resource = resource;
    this.namespace = options.namespace;
    this.handler = handler;
    this.onError = options.onError ?? (() => undefined);
    this.onRequest = options.onRequest ?? (() => undefined);
    this.onReconnect = options.onReconnect ?? (() => undefined);
    this.optional = options.optional ?? false;
    this.transform = options.transform ?? ((o) => o as T);
    this.pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
    // One attempt per request: the informer's own backoff decides when to try again.
    this.rest = new Rest(kc, { attempts: 1, timeoutMs: LIST_TIMEOUT_MS });
    this.path = collectionPath(resource, options.namespace);
  }

  /**
   * Lists and starts watching; resolves once the first list is in the cache and the watch is open (or
   * at stop). With `optional`, resolves false, stopped, when the first list answers 404: the API
   * server does not serve the resource. The first list is the question, so a start asks nothing
   * before it. A resource that goes away later is an error, retried with backoff, as any other.
   */
  async start(): Promise<boolean> {
    if (!this.stopped) return this.served !== false;
    this.stopped = false;
    this.abort = new AbortController();
    const started = new Promise<void>((resolve) => (this.started = resolve));
    this.loop = this.run();
    await started;
    return this.served !== false;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.abort.abort();
    this.started?.();
    await this.loop;
    this.rest.close();
  }

  get hasSynced(): boolean {
    return this.synced;
  }

  /**
   * Moves each time the cache changes (an object added, replaced or removed, or a list taken): what was read from it before
   * may be stale. Drawn from one sequence for every informer of the process, so a new informer never repeats an old one's.
   */
  get changeCount(): number {
    return this.changes;
  }

  get(name: string, namespace: string): T | undefined {
    return this.objects.get(namespace)?.get(name);
  }

  list(namespace?: string): readonly T[] {
    if (namespace === undefined || namespace === "") return [...this.objects.values()].flatMap((byName) => [...byName.values()]);
    return [...(this.objects.get(namespace)?.values() ?? [])];
  }

  /** Lists when there is no version to watch from, watches, and again, until stopped; errors wait a backoff. */
  private async run(): Promise<void> {
    while (!this.stopped) {
      try {
        if (this.resourceVersion === "") await this.relist();
        await this.watch();
      } catch (error) {
        if (this.stopped) break;
        if (this.optional && this.served === undefined && statusCodeOf(error) === 404) {
          this.served = false;
          this.stopped = true;
          break;
        }
        if (isExpired(error)) {
          this.resourceVersion = "";
          continue;
        }
        this.onError(error);
        this.failures++;
        await this.sleep(this.nextDelay(statusCodeOf(error) === undefined));
      }
    }
    this.started?.();
  }

  /**
   * Lists every object and replaces the cache with them: deletions, additions and changes go to the handler. The first list is one
   * request for the latest version, whole: kube-apiserver (1.31 and later) answers it from its watch cache once that has caught up
   * with etcd, as fresh as a read of etcd. Paged, its pages after the first (`continue`) took the API server 2-3 times as long at
   * 1,000 targets (docs/performance-history.md, "The first list, whole"). Not at `resourceVersion=0`, as client-go's reflector
   * starts: that is any version the watch cache holds, which on an API server behind etcd is older than what the controller last
   * acted on, and a window closed before a restart must stay closed after it. A later list (the watch's version expired) comes
   * in pages of `pageSize`.
   */
  private async relist(): Promise<void> {
    const listed = new Map<string, Map<string, T>>();
    let version: string;
    let next: string | undefined;
    let paged = this.listed;
    for (;;) {
      let page: KubernetesListObject<KubernetesObject>;
      try {
        const query = paged ? { limit: this.pageSize, continue: next } : {};
        page = await this.rest.json<KubernetesListObject<KubernetesObject>>("GET", this.path, { query, signal: this.abort.signal });
        this.onRequest("list", 200);
      } catch (error) {
        this.onRequest("list", statusCodeOf(error));
        // The snapshot the pages came from expired before the last one: one list without pages, as client-go falls back to.
        if (isExpired(error) && next !== undefined) {
          listed.clear();
          next = undefined;
          paged = false;
          continue;
        }
        throw error;
      }
      for (const item of page.items) put(listed, this.transform(item));
      version = page.metadata?.resourceVersion ?? "";
      // The JSON field is `continue` (client-node's type calls it _continue, after its deserializer, which is not used here).
      const token = (page.metadata as { continue?: string } | undefined)?.continue;
      if (!paged || token === undefined || token === "") break;
      next = token;
    }
    if (this.stopped) return;
    this.listed = true;
    const before = this.objects;
    this.objects = listed;
    this.changes = ++changeSequence;
    for (const [namespace, byName] of before) {
      for (const [name, old] of byName) if (listed.get(namespace)?.has(name) !== true) this.handler(old, "delete");
    }
    for (const [namespace, byName] of listed) {
      for (const [name, obj] of byName) {
        const old = before.get(namespace)?.get(name);
        if (old === undefined) this.handler(obj, "add");
        else if (!sameVersion(old, obj)) this.handler(obj, "update");
      }
    }
    this.resourceVersion = version;
  }

  /** One watch from the cache's resourceVersion, until the API server ends it (resolves) or it fails (throws). */
  private async watch(): Promise<void> {
    this.onRequest("watch");
    const response = await this.rest.stream(
      this.path,
      { watch: "true", resourceVersion: this.resourceVersion, allowWatchBookmarks: "true" },
      this.abort.signal,
    );
    const opened = Date.now();
    let events = 0;
    // Listed and watching: what start() waits for; the backoff starts over.
    this.synced = true;
    this.served = true;
    this.restartDelay = INITIAL_RESTART_MS;
    this.started?.();
    if (this.failures > 0) {
      this.failures = 0;
      this.onReconnect();
    }
    await readLines(response, (line) => {
      if (this.stopped) return;
      events++;
      this.apply(JSON.parse(line) as WatchEvent);
    });
    if (events === 0 && Date.now() - opened < SHORT_WATCH_MS && !this.stopped)
      throw new Error(`the API server ended the watch of ${this.path} at once, without an event`);
  }

  private apply(event: WatchEvent): void {
    const obj = event.object;
    if (event.type === "ERROR") {
      const code = typeof obj.code === "number" ? obj.code : 500;
      throw new ApiException(code, `watch ${this.path}: ${obj.message ?? obj.reason ?? "error event"}`, obj, {});
    }
    const version = obj.metadata?.resourceVersion ?? "";
    if (event.type !== "BOOKMARK") {
      const namespace = obj.metadata?.namespace ?? "";
      const name = obj.metadata?.name ?? "";
      const old = this.objects.get(namespace)?.get(name);
      if (event.type === "DELETED") {
        if (old !== undefined) {
          remove(this.objects, namespace, name);
          this.changes = ++changeSequence;
          this.handler(this.transform(obj), "delete");
        }
      } else if (old === undefined || !sameVersion(old, obj)) {
        const kept = this.transform(obj);
        put(this.objects, kept);
        this.changes = ++changeSequence;
        this.handler(kept, old === undefined ? "add" : "update");
      }
    }
    if (version !== "") this.resourceVersion = version;
  }

  /**
   * The wait before trying again: doubling while errors go on, at most a second while nothing answers
   * at all — and the backoff does not grow meanwhile, so the first answers of a server that just came
   * back (403 while its authorizer warms up, 503 while it installs its paths) are retried within a
   * second too, not after a backoff built while it was away.
   */
  private nextDelay(unanswered: boolean): number {
    const d = unanswered ? Math.min(this.restartDelay, MAX_UNANSWERED_RESTART_MS) : this.restartDelay;
    this.restartDelay = Math.min(this.restartDelay * 2, unanswered ? MAX_UNANSWERED_RESTART_MS : MAX_RESTART_MS);
    return d;
  }

  /** Waits, or less when the informer stops meanwhile. */
  private async sleep(ms: number): Promise<void> {
    const signal = this.abort.signal;
    if (signal.aborted) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        resolve();
      }
      signal.addEventListener("abort", done, { once: true });
    });
  }
}

function sameVersion(a: KubernetesObject, b: KubernetesObject): boolean {
  const v = a.metadata?.resourceVersion;
  return v !== undefined && v !== "" && v === b.metadata?.resourceVersion;
}

function put<T extends KubernetesObject>(objects: Map<string, Map<string, T>>, obj: T): void {
  const namespace = obj.metadata?.namespace ?? "";
  let byName = objects.get(namespace);
  if (byName === undefined) objects.set(namespace, (byName = new Map<string, T>()));
  byName.set(obj.metadata?.name ?? "", obj);
}

function remove<T>(objects: Map<string, Map<string, T>>, namespace: string, name: string): void {
  const byName = objects.get(namespace);
  if (byName === undefined) return;
  byName.delete(name);
  if (byName.size === 0) objects.delete(namespace);
}

/**
 * Calls `onLine` with each line of a streamed answer; resolves when the answer ends complete, rejects
 * when it is cut (a connection reset, the signal) or when `onLine` throws (the stream is then destroyed).
 */
async function readLines(response: IncomingMessage, onLine: (line: string) => void): Promise<void> {
  response.setEncoding("utf8");
  let rest = "";
  try {
    for await (const chunk of response) {
      rest += chunk as string;
      let end = rest.indexOf("\n");
      while (end >= 0) {
        const line = rest.slice(0, end).trim();
        rest = rest.slice(end + 1);
        if (line !== "") onLine(line);
        end = rest.indexOf("\n");
      }
    }
  } finally {
    if (!response.complete) response.destroy();
  }
  if (rest.trim() !== "") onLine(rest.trim());
}
