// A Git smart-HTTP server: a small Node HTTP server that runs the real `git http-backend` as a CGI program.
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { requireGit } from "./prereqs.ts";

/** CGI response headers end at the first blank line. */
function headerEnd(buf: Buffer): { at: number; length: number } | undefined {
  const crlf = buf.indexOf("\r\n\r\n");
  const lf = buf.indexOf("\n\n");
  if (crlf >= 0 && (lf < 0 || crlf < lf)) return { at: crlf, length: 4 };
  if (lf >= 0) return { at: lf, length: 2 };
  return undefined;
}

function cgiEnv(req: IncomingMessage, projectRoot: string): NodeJS.ProcessEnv {
  const url = new URL(req.url ?? "/", "http://git.invalid");
  const env: NodeJS.ProcessEnv = {
    PATH: process.env["PATH"],
    GIT_PROJECT_ROOT: projectRoot,
    GIT_HTTP_EXPORT_ALL: "1",
    // Pushes over HTTP are refused unless a user is authenticated or receive-pack is enabled.
    GIT_CONFIG_COUNT: "1",
    GIT_CONFIG_KEY_0: "http.receivepack",
    GIT_CONFIG_VALUE_0: "true",
    GATEWAY_INTERFACE: "CGI/1.1",
    SERVER_PROTOCOL: `HTTP/${req.httpVersion}`,
    REQUEST_METHOD: req.method ?? "GET",
    PATH_INFO: decodeURIComponent(url.pathname),
    QUERY_STRING: url.search.replace(/^\?/, ""),
    REMOTE_ADDR: req.socket.remoteAddress ?? "127.0.0.1",
    CONTENT_TYPE: req.headers["content-type"] ?? "",
  };
  const length = req.headers["content-length"];
  if (length !== undefined) env["CONTENT_LENGTH"] = length;
  const encoding = req.headers["content-encoding"];
  if (encoding !== undefined) env["HTTP_CONTENT_ENCODING"] = encoding;
  const protocol = req.headers["git-protocol"];
  if (typeof protocol === "string") env["GIT_PROTOCOL"] = protocol;
  return env;
}

function handle(req: IncomingMessage, res: ServerResponse, backend: string, projectRoot: string): void {
  if (req.url === "/healthz") {
    res.writeHead(200, { "content-type": "text/plain" }).end("ok\n");
    return;
  }
  const child = spawn(backend, [], { env: cgiEnv(req, projectRoot), stdio: ["pipe", "pipe", "pipe"] });
  req.pipe(child.stdin);
  child.stdin.on("error", () => undefined); // the backend may answer before reading the whole body
  let head: Buffer = Buffer.alloc(0);
  let headersSent = false;
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout.on("data", (chunk: Buffer) => {
    if (headersSent) {
      res.write(chunk);
      return;
    }
    head = Buffer.concat([head, chunk]);
    const end = headerEnd(head);
    if (end === undefined) return;
    let status = 200;
    const headers: Record<string, string> = {};
    for (const line of head.subarray(0, end.at).toString("latin1").split(/\r?\n/)) {
      const colon = line.indexOf(":");
      if (colon <= 0) continue;
      const name = line.slice(0, colon).trim();
      const value = line.slice(colon + 1).trim();
      if (name.toLowerCase() === "status") status = Number.parseInt(value, 10);
      else headers[name] = value;
    }
    res.writeHead(status, headers);
    headersSent = true;
    res.write(head.subarray(end.at + end.length));
  });
  child.on("close", (code) => {
    if (!headersSent) {
      res.writeHead(500, { "content-type": "text/plain" }).end(`git http-backend failed (exit ${String(code)}): ${stderr}`);
      return;
    }
    if (stderr !== "") process.stderr.write(`git http-backend ${req.method ?? ""} ${req.url ?? ""}: ${stderr}`);
    res.end();
  });
}

/** Creates (does not start) a server exposing the bare repositories under `projectRoot` at `/<name>.git`. */
export function createGitServer(projectRoot: string): Server {
  const backend = requireGit();
  return createServer((req, res) => handle(req, res, backend, projectRoot));
}
