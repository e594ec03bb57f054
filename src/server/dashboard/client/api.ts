/// <reference lib="dom" />
// The dashboard's client of the REST API: the bearer token from the page's storage, typed errors with field problems.

import type { FieldProblem } from "../../../api/index.ts";
import type { CompactFleetTimeline } from "../../views/timeline-format.ts";
import { expandClusterTimeline } from "./timeline-format.ts";

const TOKEN_KEY = "fluxgate.token";

/**
 * A token in the URL fragment (`#token=...`, as `fluxgate serve` prints it), stored and taken out of
 * the address; null when there is none. Called at load and whenever the fragment changes, so a
 * sign-in link pasted into a tab that already shows the dashboard signs it in.
 */
export function tokenFromHash(): string | null {
  const match = /(?:^#|&)token=([^&]+)/.exec(location.hash);
  if (match === null) return null;
  const token = decodeURIComponent(match[1] as string);
  localStorage.setItem(TOKEN_KEY, token);
  history.replaceState(null, "", `${location.pathname}${location.search}#/`);
  return token;
}

/** The stored token, after taking one from the URL fragment. */
export function initialToken(): string | null {
  return tokenFromHash() ?? localStorage.getItem(TOKEN_KEY);
}

export function storeToken(token: string | null): void {
  if (token === null) localStorage.removeItem(TOKEN_KEY);
  else localStorage.setItem(TOKEN_KEY, token);
}

/** A failed API call: its status, message and field problems. */
export class ApiError extends Error {
  readonly status: number;
  readonly problems: FieldProblem[];
  /** Seconds to wait before asking again, from a 429's Retry-After; null when there is none. */
  readonly retryAfter: number | null;
  constructor(status: number, message: string, problems: FieldProblem[], retryAfter: number | null = null) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.problems = problems;
    this.retryAfter = retryAfter;
  }
}

/** Who is told of the repository's commit as the dashboard learns it. */
const commitListeners = new Set<(commit: string) => void>();
let lastCommit: string | null = null;

/**
 * Tells the page of the repository's commit, as a write's answer or a read of GET /repository gave
 * it: the header shows the new one at once, not at the next look at the repository. Listeners hear
 * a commit once, when it differs from the last one they heard.
 */
export function commitSeen(commit: string): void {
  if (commit === lastCommit) return;
  lastCommit = commit;
  for (const listener of [...commitListeners]) listener(commit);
}

/** Calls `listener` with each new commit of the repository the page learns of; returns what stops it. */
export function onCommit(listener: (commit: string) => void): () => void {
  commitListeners.add(listener);
  return () => void commitListeners.delete(listener);
}

/** The response of a call, with its ETag header. */
export interface Answer<T> {
  body: T;
  etag: string | null;
}

/**
 * Calls the API with the stored token; throws ApiError on an error status. `read` makes the body of a successful answer from its text (JSON.parse without
 * it), for reads: the commit a write answers with is not looked for in what it makes.
 */
export async function call<T>(
  method: string,
  path: string,
  options: { body?: unknown; headers?: Record<string, string>; read?: (text: string) => Promise<T> } = {},
): Promise<Answer<T>> {
  const headers: Record<string, string> = { Accept: "application/json", ...options.headers };
  const token = localStorage.getItem(TOKEN_KEY);
  if (token !== null) headers.Authorization = `Bearer ${token}`;
  if (options.body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(path, { method, headers, body: options.body === undefined ? null : JSON.stringify(options.body) });
  const text = await response.text();
  if (response.ok && options.read !== undefined) return { body: await options.read(text), etag: response.headers.get("ETag")?.replace(/^"|"$/g, "") ?? null };
  let parsed: unknown;
  try {
    parsed = text === "" ? null : JSON.parse(text);
  } catch {
    parsed = text;
  }
  if (!response.ok) {
    const error = (parsed as { error?: { message?: string; problems?: FieldProblem[] } } | null)?.error;
    const retryAfter = Number(response.headers.get("Retry-After") ?? "");
    throw new ApiError(
      response.status,
      error?.message ?? `${response.status} ${response.statusText}`,
      error?.problems ?? [],
      Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : null,
    );
  }
  // Every write answers with the commit it made (or the one the repository is at, when nothing changed).
  const commit = method !== "GET" && typeof parsed === "object" && parsed !== null ? (parsed as { commit?: unknown }).commit : undefined;
  if (typeof commit === "string" && commit !== "") commitSeen(commit);
  return { body: parsed as T, etag: response.headers.get("ETag")?.replace(/^"|"$/g, "") ?? null };
}

/** Times a read answered 429 is sent again (after the Retry-After the service gave) before the error is shown. */
const READ_RETRIES = 3;

/**
 * Reads `path` (its body made by `read`, as call makes it); a 429 is waited out (Retry-After) and the read sent again, so a reload in a busy minute does not
 * show an error.
 */
export async function get<T>(path: string, read?: (text: string) => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return (await call<T>("GET", path, read === undefined ? {} : { read })).body;
    } catch (e) {
      if (!(e instanceof ApiError) || e.status !== 429 || attempt >= READ_RETRIES) throw e;
      await new Promise((resolve) => setTimeout(resolve, Math.max(1, e.retryAfter ?? 1) * 1000));
    }
  }
}

/** A cluster of fluxgate.yaml as GET /clusters lists it. */
export interface ClusterItem {
  name: string;
  path: string;
  timeZone: string;
  labels: Record<string, string>;
}

/** A task's end: what comes after runs in a task of its own, so the browser may draw and take input between. */
export const nextTask = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

/**
 * Runs `run` in a task of its own, soon (a message to a channel of the page's: not a timer, which the browser may put off by 4 ms once nested).
 */
export function postTask(run: () => void): void {
  if (taskChannel === null) {
    taskChannel = new MessageChannel();
    taskChannel.port1.onmessage = (): void => {
      const next = postedTasks.shift();
      if (next !== undefined) next();
    };
  }
  postedTasks.push(run);
  taskChannel.port2.postMessage(null);
}
let taskChannel: MessageChannel | null = null;
const postedTasks: Array<() => void> = [];

/** A task of its own, soon, as a message (postTask): a chain of them is not put off by 4 ms each, as a chain of timers is after the fifth. */
export const nextMessage = (): Promise<void> => new Promise((resolve) => postTask(resolve));

/** The listing on its way, shared by whoever asks while it is. */
let listing: Promise<readonly ClusterItem[]> | null = null;

/**
 * Every cluster of the fleet (a short list even at 10,000 clusters: names, zones and labels), following `continue` where the service answers in pages.
 * Callers at the same time share one request (the header's zones and the fleet page, as the page opens): at 10,000 clusters the list is a megabyte for the
 * service to write and the page to parse. The list is shared, so it is read-only; each call after it has come asks again.
 */
export function listClusters(): Promise<readonly ClusterItem[]> {
  if (listing === null) {
    const asked = readClusters();
    listing = asked;
    const done = (): void => {
      if (listing === asked) listing = null;
    };
    asked.then(done, done);
  }
  return listing;
}

async function readClusters(): Promise<ClusterItem[]> {
  const out: ClusterItem[] = [];
  let next: string | null = null;
  do {
    const path: string = next === null ? "/api/v1/clusters" : `/api/v1/clusters?continue=${encodeURIComponent(next)}`;
    next = (await get(path, (text) => parseClusterList(text, out))).continue;
  } while (next !== null);
  return out;
}

/** The most clusters parsed in one task (parseClusterList): some 135 kB of the list, about a millisecond of JSON.parse. */
export const LIST_SLICE = 1_000;

/** A GET /clusters answer as JSON gives it. */
type ClusterListBody = { clusters: Array<Omit<ClusterItem, "labels"> & { labels?: Record<string, string> }>; continue?: string | null };

/**
 * Parses a GET /clusters answer into `out` (each cluster with its labels, `{}` when it has none), LIST_SLICE clusters a task, and returns its continue
 * token: the service writes one cluster a line (routes/clusters.ts, clusterListJson), and the 1.35 MB of a list of 10,000 clusters parsed at once were one
 * task of 8–16 ms of CPU (traced), its garbage collection with it. Each slice waits for a task of its own (`yieldTask`, a message: nextMessage), the first
 * too: the answer's text came in a task of the browser's. An answer whose first line does not end with `"clusters":[` or whose last does not begin with `]`
 * is parsed whole; one that does is taken to be the service's, a cluster a line.
 */
export async function parseClusterList(text: string, out: ClusterItem[], yieldTask: () => Promise<void> = nextMessage): Promise<{ continue: string | null }> {
  const first = text.indexOf("\n");
  const last = text.lastIndexOf("\n");
  const add = (clusters: ClusterListBody["clusters"]): void => {
    for (const k of clusters) out.push({ ...k, labels: k.labels ?? {} });
  };
  const token = (body: ClusterListBody): { continue: string | null } => ({
    continue: typeof body.continue === "string" && body.continue !== "" ? body.continue : null,
  });
  if (first < 0 || first === last || !text.slice(0, first).endsWith('"clusters":[') || text[last + 1] !== "]") {
    await yieldTask();
    const whole = JSON.parse(text) as ClusterListBody;
    add(whole.clusters);
    return token(whole);
  }
  // The first line ends with the list's "[", the last begins with its "]".
  const rest = JSON.parse(text.slice(0, first) + text.slice(last + 1)) as ClusterListBody;
  for (let at = first + 1; at < last;) {
    let end = at;
    for (let n = 0; n < LIST_SLICE && end < last; n++) end = text.indexOf("\n", end + 1);
    await yieldTask();
    const lines = text.slice(at, end);
    add(JSON.parse(`[${lines.endsWith(",") ? lines.slice(0, -1) : lines}]`) as ClusterListBody["clusters"]);
    at = end + 1;
  }
  return token(rest);
}

/** What the fleet page knows of one cluster's timeline or status: not asked yet, on its way, there, or failed (with why). */
export type Loaded<T> = { state: "loading" } | { state: "done"; value: T } | { state: "failed"; message: string };

/** The one "not there yet" value, so a cluster that is still loading gives the same object every time (its rows are not drawn again). */
export const LOADING: Loaded<never> = { state: "loading" };

/** How many requests the fleet page has in flight at once: few, so a fleet never meets the rate limit in one burst. */
export const FLEET_CONCURRENCY = 4;

/** The most clusters one request of the fleet page asks for (the service takes up to 500 names). */
export const FLEET_BATCH = 100;

interface Job {
  /** The results it brings (`timeline|CLUSTER|FROM|TO`, `status|CLUSTER`). */
  keys: string[];
  path: string;
  /** Each key's value, from the answer: made when it is published, one at a time (expanding a cluster's timeline is the page's dearest step). */
  read: (body: unknown) => Map<string, () => unknown>;
}

/**
 * The most main-thread time, in milliseconds, spent publishing an answer before the browser may draw it and take input: under the 50 ms of a long task with the
 * drawing that follows.
 */
const SLICE_MS = 8;

/**
 * The most clusters published between two frames: drawing a cluster's lanes (some 350 bands a week) costs more than making them, and a frame draws every
 * cluster published since the last; two a frame made frames of 20 to 30 ms of CPU, one of 15 to 20.
 */
const SLICE_CLUSTERS = 1;

/**
 * Lets the browser draw what was published and take input before more is: resolves a task after
 * the next frame (so the clusters published so far are drawn in it, a few at a time), or a task
 * later when the page is hidden and draws no frames.
 */
function afterFrame(): Promise<void> {
  return new Promise((resolve) => {
    if (document.hidden) setTimeout(resolve, 0);
    else requestAnimationFrame(() => setTimeout(resolve, 0));
  });
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** The names of a request's clusters as `?names=`. */
function namesParameter(clusters: readonly string[]): string {
  return `names=${clusters.map(encodeURIComponent).join(",")}`;
}

/**
 * Fetches the timelines and status of the clusters on screen, and nothing else: the fleet page says
 * which clusters it shows (`want`), and asks for what it has (`timeline`, `status`). The clusters
 * still missing are asked for together: one GET /timeline?names= for their timelines (compact,
 * expanded here) and one GET /fleet/clusters?names= for their status, whatever their number (up to
 * FLEET_BATCH a request). A 429 pauses every request for the Retry-After the service gave, then the
 * same request is sent again: none is dropped. Each answer calls `onChange` with each of its
 * clusters; a cluster whose results did not change keeps the very same values, so its rows are not
 * drawn again.
 *
 * All of the fleet page's reads go through here.
 */
export class FleetFetcher {
  private readonly results = new Map<string, Loaded<unknown>>();
  /** The timelines of `results` by range (`FROM|TO`), then by cluster: laying out 10,000 clusters looks each up by its name, without making a key. */
  private readonly ranges = new Map<string, Map<string, Loaded<unknown>>>();
  /** Results from before the repository's last commit: still shown, asked for again as their clusters come on screen. */
  private readonly stale = new Set<string>();
  /** Stale results asked for again and not answered yet. */
  private readonly asking = new Set<string>();
  private queue: Job[] = [];
  private running = 0;
  private pausedUntil = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private readonly onChange: (cluster: string) => void;
  private readonly onWait: (seconds: number) => void;
  /** Requests answered 429 and sent again, for the page to say so. */
  retried = 0;

  constructor(onChange: (cluster: string) => void, onWait: (seconds: number) => void = () => undefined) {
    this.onChange = onChange;
    this.onWait = onWait;
  }

  /** The timeline of `cluster` over `[from, to)`. */
  timeline<T>(cluster: string, from: number, to: number): Loaded<T> {
    return (this.results.get(timelineKey(cluster, from, to)) ?? LOADING) as Loaded<T>;
  }

  /** The timelines known over `[from, to)`, by cluster: a cluster not there is still loading (LOADING). */
  timelines<T>(from: number, to: number): ReadonlyMap<string, Loaded<T>> {
    return (this.ranges.get(`${from}|${to}`) ?? new Map<string, Loaded<T>>()) as ReadonlyMap<string, Loaded<T>>;
  }

  /** Sets a result, and its cluster's entry by range for a timeline. */
  private put(key: string, value: Loaded<unknown>): void {
    this.results.set(key, value);
    const [kind, cluster, from, to] = key.split("|");
    if (kind !== "timeline") return;
    const range = `${from}|${to}`;
    let byCluster = this.ranges.get(range);
    if (byCluster === undefined) {
      byCluster = new Map();
      this.ranges.set(range, byCluster);
    }
    byCluster.set(cluster as string, value);
  }

  /** Forgets a result. */
  private drop(key: string): void {
    this.results.delete(key);
    const [kind, cluster, from, to] = key.split("|");
    if (kind === "timeline") this.ranges.get(`${from}|${to}`)?.delete(cluster as string);
  }

  /** The status of `cluster`: its entry of GET /fleet/clusters. */
  status<T>(cluster: string): Loaded<T> {
    return (this.results.get(`status|${cluster}`) ?? LOADING) as Loaded<T>;
  }

  /**
   * The repository has a new commit: every result is asked for again when its cluster is (or comes)
   * on screen, and shown as it is until then; an answer equal to the one shown keeps the very same
   * value, so only the rows that changed are drawn again.
   */
  refresh(): void {
    for (const [key, value] of this.results) if (value !== LOADING) this.stale.add(key);
  }

  /**
   * Whether `key` is to be asked for: not known, or stale and not asked again yet. Requests already sent have a result ("loading"), so they are not asked for
   * twice.
   */
  private needs(key: string): boolean {
    return !this.results.has(key) || (this.stale.has(key) && !this.asking.has(key));
  }

  /**
   * The clusters on screen, first first: what is not known yet is asked for, in one request of each kind; queued requests for clusters no longer on screen are
   * not sent.
   */
  want(clusters: readonly string[], from: number, to: number): void {
    const jobs: Job[] = [];
    const timelines = clusters.filter((c) => this.needs(timelineKey(c, from, to)));
    for (const part of chunks(timelines, FLEET_BATCH)) {
      jobs.push({
        keys: part.map((c) => timelineKey(c, from, to)),
        path: `/api/v1/timeline?${namesParameter(part)}&from=${iso(from)}&to=${iso(to)}`,
        read: (body) => {
          const answer = body as CompactFleetTimeline;
          return new Map(answer.clusters.map((c) => [timelineKey(c.cluster, from, to), () => expandClusterTimeline(c, from, to)]));
        },
      });
    }
    const statuses = clusters.filter((c) => this.needs(`status|${c}`));
    for (const part of chunks(statuses, FLEET_BATCH)) {
      jobs.push({
        keys: part.map((c) => `status|${c}`),
        path: `/api/v1/fleet/clusters?${namesParameter(part)}`,
        read: (body) => new Map((body as { clusters: Array<{ name: string }> }).clusters.map((c) => [`status|${c.name}`, () => c])),
      });
    }
    this.queue = jobs;
    this.pump();
  }

  private pump(): void {
    // performance.now, not Date.now: a monotonic clock, which a changed (or, in tests, frozen) wall clock does not stop.
    const wait = this.pausedUntil - performance.now();
    if (wait > 0) {
      if (this.timer === null) {
        this.timer = setTimeout(() => {
          this.timer = null;
          this.pump();
        }, wait);
      }
      return;
    }
    while (this.running < FLEET_CONCURRENCY && this.queue.length > 0) {
      const job = this.queue.shift() as Job;
      if (job.keys.some((k) => !this.needs(k))) {
        // Some of its results came meanwhile (or are on their way): ask only for the others.
        const keys = job.keys.filter((k) => this.needs(k));
        if (keys.length === 0) continue;
        const clusters = keys.map((k) => k.split("|")[1] as string);
        const names = namesParameter(clusters);
        this.queue.unshift({ ...job, keys, path: job.path.replace(/names=[^&]*/, () => names) });
        continue;
      }
      // A stale result stays on screen while it is asked for again.
      for (const key of job.keys)
        if (this.stale.has(key)) this.asking.add(key);
        else this.put(key, LOADING);
      this.running++;
      void this.run(job);
    }
  }

  private async run(job: Job): Promise<void> {
    const clusters = job.keys.map((k) => k.split("|")[1] as string);
    // Results published so far: a failure after them leaves them as they are.
    let published = 0;
    try {
      // Not get(): a 429 here pauses every request of the page, not this one alone.
      const values = job.read((await call<unknown>("GET", job.path)).body);
      // Published a slice at a time, each cluster as soon as it is made: the first ones are drawn while the others are made, and no task holds the page for
      // long.
      let slice = performance.now();
      let inSlice = 0;
      for (; published < job.keys.length; published++) {
        const key = job.keys[published] as string;
        if (inSlice >= SLICE_CLUSTERS || performance.now() - slice >= SLICE_MS) {
          await afterFrame();
          slice = performance.now();
          inSlice = 0;
        }
        const value = values.get(key)?.();
        const old = this.results.get(key);
        this.stale.delete(key);
        this.asking.delete(key);
        // The same answer as before keeps the same value: its rows are not drawn again.
        if (old?.state === "done" && value !== undefined && JSON.stringify(old.value) === JSON.stringify(value)) continue;
        this.put(key, value === undefined ? { state: "failed", message: "the service's answer left this cluster out" } : { state: "done", value });
        this.onChange(clusters[published] as string);
        inSlice++;
      }
    } catch (e) {
      // A stale result asked for again stays shown, and stale: it is asked for again with its cluster.
      for (const key of job.keys.slice(published)) this.asking.delete(key);
      if (e instanceof ApiError && e.status === 429) {
        // Asked to slow down: wait as long as the service says, then send the same request again.
        for (const key of job.keys) if (!this.stale.has(key)) this.drop(key);
        this.retried++;
        const seconds = Math.max(1, e.retryAfter ?? 1);
        this.pausedUntil = Math.max(this.pausedUntil, performance.now() + seconds * 1000);
        this.queue.unshift(job);
        this.onWait(seconds);
      } else {
        const message = e instanceof Error ? e.message : String(e);
        for (const key of job.keys.slice(published)) if (!this.stale.has(key)) this.put(key, { state: "failed", message });
        for (const cluster of clusters.slice(published)) this.onChange(cluster);
      }
    } finally {
      this.running--;
      this.pump();
    }
  }

  /** Forgets a failed answer for `cluster`, so the next `want` asks again. */
  retry(cluster: string): void {
    for (const [key, value] of [...this.results]) if (key.split("|")[1] === cluster && value.state === "failed") this.drop(key);
  }
}

function timelineKey(cluster: string, from: number, to: number): string {
  return `timeline|${cluster}|${from}|${to}`;
}

function iso(t: number): string {
  return new Date(t).toISOString().replace(/\.\d{3}Z$/, "Z");
}
