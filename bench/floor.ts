// The floor of a Node.js controller's memory: a Node program with no fluxgate code that lists and watches the bench's Kustomizations and keeps them.

import type { KubeConfig } from "@kubernetes/client-node";
import { spawn, type ChildProcess } from "node:child_process";
import type { RequestOptions } from "node:https";
import { createInterface } from "node:readline";
import { KUSTOMIZATIONS } from "./fleet.ts";

/**
 * The program, plain JavaScript run by `node -e` (a .ts file would make Node load its type stripper):
 * node:https with one kept-alive agent, a list in pages of 500 and a watch from its
 * resourceVersion with bookmarks, every object kept whole in a Map, as an informer without a
 * transform keeps them. It prints "synced N" once it listed and the watch is open.
 */
const FLOOR_PROGRAM = `
const https = require("node:https");
const c = JSON.parse(process.env.FLOOR_CONNECTION);
const agent = new https.Agent({ keepAlive: true, ca: c.ca, cert: c.cert, key: c.key });
const headers = { Accept: "application/json", ...(c.authorization ? { Authorization: c.authorization } : {}) };
const objects = new Map();
const keyOf = (o) => o.metadata.namespace + "/" + o.metadata.name;
let synced = false;
function open(path) {
  return new Promise((resolve, reject) => {
    https.get(new URL(path, c.server), { agent, headers }, (res) => {
      if (res.statusCode !== 200) reject(new Error(path + ": HTTP " + res.statusCode));
      else resolve(res);
    }).on("error", reject);
  });
}
async function list() {
  let next = "";
  let version = "";
  do {
    const res = await open(c.path + "?limit=500" + (next ? "&continue=" + encodeURIComponent(next) : ""));
    let body = "";
    res.setEncoding("utf8");
    for await (const chunk of res) body += chunk;
    const page = JSON.parse(body);
    for (const o of page.items) objects.set(keyOf(o), o);
    version = page.metadata.resourceVersion;
    next = page.metadata.continue || "";
  } while (next !== "");
  return version;
}
async function watch(version) {
  for (;;) {
    const res = await open(c.path + "?watch=true&allowWatchBookmarks=true&resourceVersion=" + version);
    if (!synced) {
      synced = true;
      process.stdout.write("synced " + objects.size + "\\n");
    }
    let rest = "";
    res.setEncoding("utf8");
    for await (const chunk of res) {
      rest += chunk;
      for (let end = rest.indexOf("\\n"); end >= 0; end = rest.indexOf("\\n")) {
        const line = rest.slice(0, end).trim();
        rest = rest.slice(end + 1);
        if (line === "") continue;
        const event = JSON.parse(line);
        version = event.object.metadata.resourceVersion || version;
        if (event.type === "DELETED") objects.delete(keyOf(event.object));
        else if (event.type === "ADDED" || event.type === "MODIFIED") objects.set(keyOf(event.object), event.object);
      }
    }
  }
}
list().then(watch).catch((err) => {
  process.stderr.write(String(err.stack || err) + "\\n");
  process.exit(1);
});
`;

export interface Floor {
  child: ChildProcess;
  /** Resolves with the number of objects once it listed them and its watch is open. */
  synced: Promise<number>;
  stop(): Promise<void>;
}

/**
 * Starts the floor program with the credentials of `kc` (its current context) and the given
 * environment (the Deployment's, so that V8 and malloc are set as for the controller).
 */
export async function startFloor(kc: KubeConfig, env: Record<string, string>): Promise<Floor> {
  const server = kc.getCurrentCluster()?.server;
  if (server === undefined) throw new Error("the kubeconfig has no current cluster");
  const options: RequestOptions = {};
  await kc.applyToHTTPSOptions(options);
  const text = (v: unknown): string | undefined => (Buffer.isBuffer(v) ? v.toString("utf8") : typeof v === "string" ? v : undefined);
  const authorization = (options.headers as Record<string, string> | undefined)?.Authorization;
  const connection = {
    server,
    path: `/apis/${KUSTOMIZATIONS.group}/${KUSTOMIZATIONS.version}/${KUSTOMIZATIONS.plural}`,
    ca: text(options.ca),
    cert: text(options.cert),
    key: text(options.key),
    authorization,
  };
  const child = spawn(process.execPath, ["-e", FLOOR_PROGRAM], {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, ...env, FLOOR_CONNECTION: JSON.stringify(connection) },
  });
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  const synced = new Promise<number>((resolve, reject) => {
    createInterface({ input: child.stdout }).on("line", (line) => {
      const m = /^synced (\d+)$/.exec(line);
      if (m !== null) resolve(Number(m[1]));
    });
    void exited.then(() => reject(new Error("the floor program exited before it synced")));
  });
  return {
    child,
    synced,
    async stop() {
      child.kill("SIGTERM");
      await exited;
    },
  };
}
