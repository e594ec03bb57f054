// One HTTP request to an API server on node:http(s), its answer read whole: what the controller's REST client sends its JSON through.

import { request as httpRequest, type Agent, type IncomingHttpHeaders, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { gunzip } from "node:zlib";
import { Failure } from "../errors.ts";

/** A request that got no answer within its time bound. */
export class RequestTimeoutError extends Failure {
  readonly code = "ETIMEDOUT";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, { reason: "Timeout", cause: options?.cause });
  }
}

/** Where one request goes and what it carries. */
export interface RawRequest {
  method: string;
  /** The API server's URL, whose path (a proxy's prefix) comes before `path`. */
  server: URL;
  /** The path under the server, with its query. */
  path: string;
  headers: Readonly<Record<string, string>>;
  body: string | undefined;
  agent: Agent | undefined;
  /** Bound on the attempt, answer included. */
  timeoutMs: number;
  /** Ends the request early (the caller stops); the promise rejects with the signal's reason. */
  signal: AbortSignal | undefined;
}

/** An answer read whole. */
export interface RawAnswer {
  code: number;
  headers: IncomingHttpHeaders;
  /** The body as text (gunzipped when the server compressed it). */
  text: string;
}

/**
 * Sends one request and reads its answer. Plain node:http(s) with the caller's agent (kept-alive
 * connections, a proxy's agent): client-node's fetch makes a Request, Headers, a body stream and an
 * AbortSignal pair per request, which made each of a transition's writes cost the controller about
 * half as much CPU again (docs/performance-history.md). A list large enough for the API server to
 * compress (over 128 KiB) comes gzipped, as client-go asks for it.
 */
export function sendRaw(r: RawRequest): Promise<RawAnswer> {
  const prefix = r.server.pathname.replace(/\/+$/, "");
  // An IPv6 address is bracketed in a URL ("[::1]"), not in a host to connect to.
  const hostname = r.server.hostname.replace(/^\[(.*)\]$/, "$1");
  const send = r.server.protocol === "http:" ? httpRequest : httpsRequest;
  // Named in the API server's audit log and metrics, as client-go names its callers.
  const headers: Record<string, string | number> = { "User-Agent": "fluxgate", ...r.headers, "Accept-Encoding": "gzip" };
  if (r.body !== undefined) headers["Content-Length"] = Buffer.byteLength(r.body);
  return new Promise<RawAnswer>((resolve, reject) => {
    let settled = false;
    const settle = (error: unknown, answer?: RawAnswer): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      r.signal?.removeEventListener("abort", onAbort);
      // The request outlives its answer: a kept-alive TLS socket holds, through the listener Node's agent gives it for
      // sessions, the first request it carried, and so that request's listeners. An informer's list and then its watch go
      // over one socket for as long as the watch lasts, and this listener would keep the list's whole answer (850 KiB
      // for a page of 500 Kustomizations) alive with it.
      req.off("error", onError);
      req.on("error", ignore);
      if (answer !== undefined) resolve(answer);
      else reject(error instanceof Error ? error : new Error(String(error)));
    };
    const req = send(
      { protocol: r.server.protocol, hostname, port: r.server.port, path: prefix + r.path, method: r.method, headers, agent: r.agent },
      (res) => void read(res).then((answer) => settle(undefined, answer), settle),
    );
    // A connection refused or reset says which request it ended, as client-node's fetch said.
    const onError = (error: Error & { code?: string }): void =>
      settle(
        Object.assign(new Error(`${r.method} ${r.server.origin}${prefix}${r.path.split("?", 1)[0]}: ${error.message}`, { cause: error }), { code: error.code }),
      );
    req.on("error", onError);
    const timer = setTimeout(() => {
      const seconds = Math.round(r.timeoutMs / 100) / 10;
      const error = new RequestTimeoutError(`${r.method} ${prefix}${r.path.split("?", 1)[0]}: no answer from the API server within ${seconds}s`);
      settle(error);
      req.destroy(error);
    }, r.timeoutMs);
    const onAbort = (): void => {
      settle(r.signal?.reason ?? new Error("aborted"));
      req.destroy();
    };
    if (r.signal?.aborted === true) onAbort();
    else r.signal?.addEventListener("abort", onAbort, { once: true });
    req.end(r.body);
  });
}

/** Stands for a settled request's error listener: an error after the answer changes nothing, and must not be thrown. */
function ignore(): void {}

/** The answer's body, whole; rejects when the connection ends before it (a reset, the request destroyed). */
async function read(res: IncomingMessage): Promise<RawAnswer> {
  const chunks: Buffer[] = [];
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer): void => void chunks.push(chunk);
    // Its listeners go once it is read: the answer, as its request (sendRaw), may outlive it on a kept-alive socket.
    const done = (error?: Error): void => {
      res.off("data", onData);
      res.off("end", onEnd);
      res.off("error", done);
      res.on("error", ignore);
      if (error === undefined) resolve();
      else reject(error);
    };
    const onEnd = (): void => done();
    res.on("data", onData);
    res.once("end", onEnd);
    res.once("error", done);
  });
  let body = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
  const encoding = res.headers["content-encoding"]?.toLowerCase();
  // An empty answer (a 204) may still say gzip: nothing to inflate.
  if ((encoding === "gzip" || encoding === "x-gzip") && body.length > 0) {
    const compressed = body;
    body = await new Promise<Buffer>((resolve, reject) => gunzip(compressed, (error, out) => (error === null ? resolve(out) : reject(error))));
  }
  return { code: res.statusCode ?? 0, headers: res.headers, text: body.toString("utf8") };
}
