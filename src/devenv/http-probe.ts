// Readiness probes: plain HTTP GETs and an authenticated HTTPS GET that trusts a given CA.
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";

/** Whether GET `url` answers 200 within 2 seconds. */
export function httpOk(url: string): Promise<boolean> {
  return new Promise((resolvePromise) => {
    const req = httpRequest(url, { timeout: 2000 }, (res) => {
      res.resume();
      resolvePromise(res.statusCode === 200);
    });
    req.on("timeout", () => req.destroy());
    req.on("error", () => resolvePromise(false));
    req.end();
  });
}

/** Whether GET `url` over TLS (verified against `ca`, with a bearer token) answers 200. */
export function httpsOk(url: string, ca: Buffer, token: string): Promise<boolean> {
  return new Promise((resolvePromise) => {
    const req = httpsRequest(url, { ca, timeout: 2000, headers: { authorization: `Bearer ${token}` } }, (res) => {
      res.resume();
      resolvePromise(res.statusCode === 200);
    });
    req.on("timeout", () => req.destroy());
    req.on("error", () => resolvePromise(false));
    req.end();
  });
}
