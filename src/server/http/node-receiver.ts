// The event receiver served straight from Node's HTTP request: the body read from the socket, bounded, without the app's web streams and router.

import type { IncomingMessage, ServerResponse } from "node:http";
import { errorBody, HttpError, httpErrorOf } from "./errors.ts";
import type { ServeMetrics } from "../metrics.ts";
import type { Log } from "../service.ts";
import { EVENTS_ROUTE, type EventReceiver, type Received } from "./event-receiver.ts";

/**
 * The posts served here: a cluster name of plain characters (nothing to decode) and no query. Any
 * other request, `?pretty` or a percent-encoded name included, goes to the app, whose route does
 * the same through the same receiver (routes/status.ts).
 */
const PLAIN_EVENTS_PATH = /^\/api\/v1\/clusters\/([A-Za-z0-9._~-]+)\/events$/;

/** What serving a post needs of the service. */
export interface NodeEvents {
  receiver: EventReceiver;
  metrics: ServeMetrics;
  log: Log;
  /** The app's body limit: the same 413 past it. */
  maxBodyBytes: number;
}

/**
 * Serves `req` when it is a post to the receiver (true) and leaves it to the app otherwise (false).
 * Answers as the app's route does: 202 with the outcome once the event is durable; 413, 404, 401,
 * 429 and 400 with the app's error body, in the app's order (body limit, cluster, signature, rate,
 * event).
 *
 * @example createServer((req, res) => { if (!serveEvent(events, req, res)) appListener(req, res); });
 */
export function serveEvent(events: NodeEvents, req: IncomingMessage, res: ServerResponse): boolean {
  if (req.method !== "POST" || !events.receiver.on) return false;
  const cluster = PLAIN_EVENTS_PATH.exec(req.url ?? "")?.[1];
  if (cluster === undefined) return false;
  const started = performance.now();
  void received(events, req, cluster)
    .then(
      (answer) => send(events, res, started, 202, answer, {}),
      (e: unknown) => {
        // The sender went away before its body arrived: nothing to answer.
        if (!req.complete && !(e instanceof HttpError)) return void res.destroy();
        const error = httpErrorOf(e);
        if (error.status >= 500)
          events.log({
            msg: "Request failed",
            level: "error",
            method: "POST",
            path: req.url,
            status: error.status,
            error: e instanceof Error ? (e.stack ?? e.message) : String(e),
          });
        if (error.status === 401) events.metrics.authFailures.inc({ status: "401" });
        if (error.status === 413) discardRest(req);
        send(events, res, started, error.status, errorBody(error), error.headers);
      },
    )
    // Writing the answer failed (the socket broke): the sender sees the connection end and retries.
    .catch(() => void res.destroy());
  return true;
}

async function received(events: NodeEvents, req: IncomingMessage, cluster: string): Promise<Received> {
  const body = await boundedBody(req, events.maxBodyBytes);
  await events.receiver.known(cluster);
  const signature = req.headers["x-signature"];
  return await events.receiver.receive(cluster, body, Array.isArray(signature) ? signature.join(", ") : signature);
}

function tooLarge(max: number): HttpError {
  return new HttpError(413, `the request body is larger than ${max} bytes`);
}

/** The request's body, at most `max` bytes: 413 from Content-Length before reading, or as soon as more arrives. */
function boundedBody(req: IncomingMessage, max: number): Promise<Uint8Array> {
  const declared = req.headers["content-length"];
  if (declared !== undefined && req.headers["transfer-encoding"] === undefined && Number.parseInt(declared, 10) > max) return Promise.reject(tooLarge(max));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > max) {
        req.off("data", onData);
        req.pause();
        reject(tooLarge(max));
        return;
      }
      chunks.push(chunk);
    };
    req.on("data", onData);
    req.once("end", () => resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size)));
    req.once("error", reject);
    // A sender that goes away mid-body: nothing to record or answer.
    req.once("close", () => {
      if (!req.complete) reject(new Error("the sender closed the connection before its body arrived"));
    });
  });
}

/**
 * Past the limit, a refused body's rest is read and dropped, so that the sender reads the answer (a socket closed on unread data is reset); a sender that goes
 * on is cut off.
 */
const DISCARD = { bytes: 1024 * 1024, ms: 500 };

function discardRest(req: IncomingMessage): void {
  if (req.complete) return;
  let read = 0;
  const cut = (): void => void req.socket.destroy();
  const timer = setTimeout(cut, DISCARD.ms);
  timer.unref();
  req.on("data", (chunk: Buffer) => {
    read += chunk.length;
    if (read > DISCARD.bytes) cut();
  });
  req.once("close", () => clearTimeout(timer));
  req.resume();
}

function send(events: NodeEvents, res: ServerResponse, started: number, status: number, body: unknown, headers: Readonly<Record<string, string>>): void {
  const text = JSON.stringify(body);
  if (res.destroyed) return;
  res.writeHead(status, { ...headers, "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
  events.metrics.requests.inc({ method: "POST", route: EVENTS_ROUTE, status: String(status) });
  events.metrics.duration.observe({ method: "POST", route: EVENTS_ROUTE }, (performance.now() - started) / 1000);
}
