// Requests to one API server: kept-alive TLS, a time bound on each attempt, retries with backoff on 429 and 5xx, and JSON requests by path.

import {
  ApiException,
  IsomorphicFetchHttpLibrary,
  KubeConfig,
  Observable,
  RequestContext,
  type HttpLibrary,
  type HttpMethod,
  type ResponseContext,
} from "@kubernetes/client-node";
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { RequestTimeoutError, sendRaw, type RawRequest } from "./request.ts";
import { jittered } from "./jitter.ts";
import { PooledAuthentication } from "./pooled.ts";
import { defaultKubeconfigFiles, honourTokenFiles } from "./token-file.ts";

/**
 * How long one attempt of a request may take, answer included: a kept-alive connection to an API
 * server that vanished without closing it would otherwise hold a request (and a queue worker)
 * until TCP gives up, about a quarter of an hour later. The informers' lists have a longer bound
 * (a list of thousands of objects is one answer); their watches have none.
 */
export const REQUEST_TIMEOUT_MS = 60_000;

/** Which kubeconfig and context, as kubectl's flags choose them. */
export interface KubeConfigOptions {
  kubeconfig?: string | undefined;
  context?: string | undefined;
}

/** Loads a kubeconfig the way kubectl does: --kubeconfig, else $KUBECONFIG, else ~/.kube/config, else in-cluster. */
export function loadKubeConfig(options: KubeConfigOptions = {}): KubeConfig {
  const kc = new KubeConfig();
  if (options.kubeconfig !== undefined) kc.loadFromFile(options.kubeconfig);
  else kc.loadFromDefault();
  honourTokenFiles(kc, options.kubeconfig !== undefined ? [options.kubeconfig] : defaultKubeconfigFiles());
  if (options.context !== undefined) {
    if (kc.getContextObject(options.context) === null) {
      throw new Error(
        `context "${options.context}" is not in the kubeconfig (contexts: ${
          kc
            .getContexts()
            .map((c) => c.name)
            .join(", ") || "none"
        })`,
      );
    }
    kc.setCurrentContext(options.context);
  }
  return kc;
}

/** One attempt of a request, as the metrics hook is told of it. */
export interface RequestRecord {
  method: string;
  /** The URL path, without the query. */
  path: string;
  /** The HTTP code; undefined when no answer came (refused, reset, timed out). */
  code: number | undefined;
  durationMs: number;
  /** 1 for the first attempt. */
  attempt: number;
  /** True when another attempt follows. */
  retried: boolean;
}

export { RequestTimeoutError } from "./request.ts";

export interface ConnectionOptions {
  /** Bound on each attempt, answer included (default REQUEST_TIMEOUT_MS). */
  timeoutMs?: number;
  /** Attempts of a request the API server answers 429 (or 5xx, see retryServerErrors); 1 retries nothing. Default 5. */
  attempts?: number;
  /**
   * Whether 500, 502, 503 and 504 are tried again too (default true). Creates (POST) never are:
   * the first may have been done. A caller with a backoff of its own (the controller's work
   * queue, which counts each failure) turns this off.
   */
  retryServerErrors?: boolean;
  /** First wait before another attempt; it doubles each time, up to maxBackoffMs (default 200). */
  backoffMs?: number;
  /** Longest wait between attempts, also for a longer Retry-After (default 2000). */
  maxBackoffMs?: number;
  /** Told of every attempt, for metrics. */
  onRequest?: (record: RequestRecord) => void;
}

const SERVER_ERRORS = new Set([500, 502, 503, 504]);

/** One attempt's answer, as the retry policy reads it. */
interface Attempted {
  code: number;
  retryAfter: string | undefined;
}

/**
 * Sends a request's attempts as the policy says: answers 429 (and 5xx but to a POST, unless the
 * caller keeps server errors for its own backoff) are tried again after a backoff, as client-go
 * does; every attempt is told to the metrics hook. `discard` reads an answer that is tried again,
 * so that its connection goes back to the pool.
 */
async function withRetries<A extends Attempted>(
  o: Required<ConnectionOptions>,
  method: string,
  path: string,
  attempt: () => Promise<A>,
  discard: (answer: A) => Promise<void>,
): Promise<A> {
  for (let n = 1; ; n++) {
    const started = performance.now();
    let answer: A;
    try {
      answer = await attempt();
    } catch (e) {
      o.onRequest({ method, path, code: undefined, durationMs: performance.now() - started, attempt: n, retried: false });
      throw e;
    }
    const code = answer.code;
    const again = n < o.attempts && (code === 429 || (o.retryServerErrors && SERVER_ERRORS.has(code) && method !== "POST"));
    o.onRequest({ method, path, code, durationMs: performance.now() - started, attempt: n, retried: again });
    if (!again) return answer;
    await discard(answer);
    await new Promise((resolve) => setTimeout(resolve, waitBefore(o, n + 1, answer.retryAfter)));
  }
}

/** Backoff doubling from backoffMs with 20 % jitter; a Retry-After in seconds wins; both capped at maxBackoffMs. */
function waitBefore(o: Required<ConnectionOptions>, attempt: number, retryAfter: string | undefined): number {
  const asked = Number(retryAfter);
  if (retryAfter !== undefined && Number.isFinite(asked) && asked > 0) return Math.min(asked * 1000, o.maxBackoffMs);
  const step = o.backoffMs * 2 ** (attempt - 2);
  return Math.min(jittered(step), o.maxBackoffMs);
}

/**
 * client-node's fetch with the policy around it, for client-node's generated API clients: each
 * attempt gets its own time bound (joined to a signal the caller set), and answers 429/5xx are tried
 * again after a backoff (withRetries).
 */
export class ResilientHttp implements HttpLibrary {
  private readonly inner = new IsomorphicFetchHttpLibrary();
  private readonly o: Required<ConnectionOptions>;

  constructor(options: Required<ConnectionOptions>) {
    this.o = options;
  }

  send(request: RequestContext): Observable<ResponseContext> {
    return new Observable(this.sendWithRetries(request));
  }

  private async sendWithRetries(request: RequestContext): Promise<ResponseContext> {
    const callerSignal = request.getSignal();
    const method = request.getHttpMethod().toString();
    const path = new URL(request.getUrl()).pathname;
    const attempt = async (): Promise<{ code: number; retryAfter: string | undefined; response: ResponseContext }> => {
      const timeout = AbortSignal.timeout(this.o.timeoutMs);
      request.setSignal(callerSignal === undefined ? timeout : AbortSignal.any([callerSignal, timeout]));
      try {
        const response = await this.inner.send(request).toPromise();
        return { code: response.httpStatusCode, retryAfter: response.headers["retry-after"], response };
      } catch (e) {
        if (timeout.aborted && callerSignal?.aborted !== true) {
          throw new RequestTimeoutError(`${method} ${path}: no answer from the API server within ${Math.round(this.o.timeoutMs / 100) / 10}s`, { cause: e });
        }
        throw e;
      }
    };
    const discard = async ({ response }: { response: ResponseContext }): Promise<void> => {
      await response.body.text().catch(() => undefined);
    };
    return (await withRetries(this.o, method, path, attempt, discard)).response;
  }
}

/** The policy of a connection: the options given, defaults for the rest. */
export function policyOf(options: ConnectionOptions): Required<ConnectionOptions> {
  return {
    timeoutMs: REQUEST_TIMEOUT_MS,
    attempts: 5,
    retryServerErrors: true,
    backoffMs: 200,
    maxBackoffMs: 2_000,
    onRequest: () => undefined,
    ...options,
  };
}

/** One request to the API server: the query and a body sent as JSON (or as YAML for server-side apply, of which JSON is a part). */
export interface RestRequest {
  query?: Readonly<Record<string, string | number | boolean | undefined>>;
  body?: unknown;
  /** Content-Type of the body (default application/json): a patch says which kind it is. */
  contentType?: string;
  /** Ends the request (an informer that stops while it lists). */
  signal?: AbortSignal;
}

/**
 * JSON requests by path, with the same authentication, kept-alive connections, time bound and retries
 * as a Connection, without client-node's generated API classes (thousands of methods and models the
 * controller never calls, about 10 MiB of a process's memory once loaded). A failed request throws
 * client-node's ApiException with the HTTP code and the decoded Status, as the generated clients do,
 * so errors are read in one way (errors.ts).
 *
 * @example
 * const rest = new Rest(kc);
 * const lease = await rest.json<Lease>("GET", "/apis/coordination.k8s.io/v1/namespaces/ns/leases/name");
 */
export class Rest {
  readonly kubeConfig: KubeConfig;
  private readonly server: string;
  private readonly serverUrl: URL;
  private readonly auth: PooledAuthentication;
  private readonly o: Required<ConnectionOptions>;

  constructor(kubeConfig: KubeConfig, options: ConnectionOptions = {}) {
    const server = kubeConfig.getCurrentCluster()?.server;
    if (server === undefined) throw new Error("the kubeconfig has no current cluster");
    this.kubeConfig = kubeConfig;
    this.server = server.replace(/\/+$/, "");
    this.serverUrl = new URL(this.server);
    this.auth = new PooledAuthentication(kubeConfig);
    this.o = policyOf(options);
  }

  /** Sends one request (plain node:http(s), see sendRaw) and returns the decoded JSON answer. */
  async json<T>(method: `${HttpMethod}`, path: string, request: RestRequest = {}): Promise<T> {
    // The kubeconfig's credentials and agent, asked for each request: a token file or an exec plugin's credential may have changed.
    const context = new RequestContext(this.server, method as HttpMethod);
    context.setHeaderParam("Accept", "application/json");
    let body: string | undefined;
    if (request.body !== undefined) {
      context.setHeaderParam("Content-Type", request.contentType ?? "application/json");
      body = JSON.stringify(request.body);
    }
    await this.auth.applySecurityAuthentication(context);
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(request.query ?? {})) if (value !== undefined) query.set(name, String(value));
    const search = query.size > 0 ? `?${query.toString()}` : "";
    const raw: RawRequest = {
      method,
      server: this.serverUrl,
      path: path + search,
      headers: context.getHeaders(),
      body,
      agent: context.getAgent(),
      timeoutMs: this.o.timeoutMs,
      signal: request.signal,
    };
    const answer = await withRetries(
      this.o,
      method,
      path,
      async () => {
        const a = await sendRaw(raw);
        return { ...a, retryAfter: a.headers["retry-after"] };
      },
      // The answer was read whole: its connection is back in the pool already.
      () => Promise.resolve(),
    );
    const decoded = parseJson(answer.text);
    if (answer.code >= 200 && answer.code < 300) return decoded as T;
    throw new ApiException(answer.code, `${method} ${path}`, decoded, headersOf(answer.headers));
  }

  /**
   * Sends a GET whose answer is a stream (a watch) and returns the answer once its headers came with
   * a 2xx code, its body unread. Only the headers are time-bound: a watch lasts as long as the API
   * server keeps it (`timeoutMs` bounds the wait for the headers). A code outside 2xx throws
   * ApiException with the decoded Status, as `json` does; `signal` ends the request, and the stream
   * once it is open.
   */
  async stream(path: string, query: Readonly<Record<string, string>>, signal: AbortSignal, timeoutMs = REQUEST_TIMEOUT_MS): Promise<IncomingMessage> {
    const context = new RequestContext(this.server + path, "GET" as HttpMethod);
    for (const [name, value] of Object.entries(query)) context.setQueryParam(name, value);
    context.setHeaderParam("Accept", "application/json");
    await this.auth.applySecurityAuthentication(context);
    const url = new URL(context.getUrl());
    const send = url.protocol === "http:" ? httpRequest : httpsRequest;
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = send(url, { method: "GET", headers: context.getHeaders(), agent: context.getAgent(), signal }, resolve);
      const timer = setTimeout(
        () => req.destroy(new RequestTimeoutError(`GET ${url.pathname}: no answer from the API server within ${Math.round(timeoutMs / 100) / 10}s`)),
        timeoutMs,
      );
      req.once("response", () => clearTimeout(timer));
      req.once("close", () => clearTimeout(timer));
      req.once("error", reject);
      // A watch is quiet for minutes: TCP keep-alive probes find a peer that vanished, as client-node's watch does.
      req.once("socket", (socket) => socket.setKeepAlive(true, 30_000));
      req.end();
    });
    const code = response.statusCode ?? 0;
    if (code >= 200 && code < 300) return response;
    const chunks: Buffer[] = [];
    for await (const chunk of response) chunks.push(chunk as Buffer);
    throw new ApiException(code, `GET ${path}`, parseJson(Buffer.concat(chunks).toString("utf8")), headersOf(response.headers));
  }

  /** Closes the idle kept-alive connections; requests in flight finish. */
  close(): void {
    this.auth.close();
  }
}

/** An answer's headers as client-node's ApiException carries them. */
function headersOf(headers: IncomingHttpHeaders): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, String(v)]));
}

/** A body as JSON, or its text when it is not JSON (a proxy's page), or undefined when empty. */
function parseJson(text: string): unknown {
  if (text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
