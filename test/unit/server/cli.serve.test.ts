// `fluxgate serve` and `fluxgate serve token add` through the CLI's entry point.

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { createServer } from "node:net";
import { join } from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";
import { fluxgate as run } from "../../support/cli.ts";
import { serve } from "../../../src/cli/serve.ts";
import { addClusterKey } from "../../../src/server/status/keys.ts";
import { NOW, tempDir, writeFleet } from "../../support/server.ts";
import { mkdir } from "node:fs/promises";

test("serve token add prints the token once and stores its hash", async (t) => {
  const { dir, cleanup } = await tempDir("cli");
  t.after(cleanup);
  const file = join(dir, "tokens.yaml");
  const r = await run("serve", "token", "add", "--tokens-file", file, "--name", "alice", "--role", "editor");
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^fgt_\S+\n$/);
  assert.ok(!(await readFile(file, "utf8")).includes(r.stdout.trim()));
  const bad = await run("serve", "token", "add", "--tokens-file", file, "--name", "bob", "--role", "admin");
  assert.equal(bad.code, 2);
  assert.equal(bad.stderr, "error: --role must be one of viewer, editor, breakglass\n");
  const twice = await run("serve", "token", "add", "--tokens-file", file, "--name", "alice", "--role", "viewer");
  assert.equal(twice.code, 2);
  assert.match(twice.stderr, /already has a token named "alice"/);
});

test("serve refuses to run without a way to authenticate, and names a bad flag", async () => {
  const r = await run("serve", "--repo", ".");
  assert.equal(r.code, 2);
  assert.match(r.stderr, /give --tokens-file FILE .* or --anonymous-read/);
  assert.equal((await run("serve", "--port", "http")).code, 2);
  const notRepo = await run("serve", "--repo", "/", "--anonymous-read", "--port", "0");
  assert.equal(notRepo.code, 2);
  assert.match(notRepo.stderr, /not a Git working copy/);
});

test("bare serve makes the example fleet, prints the URL and tokens, and serves until stopped", async (t) => {
  const { dir, cleanup } = await tempDir("bare");
  t.after(cleanup);
  const stop = new AbortController();
  let printed = "";
  let resolveListening: () => void = () => undefined;
  const listening = new Promise<void>((resolve) => (resolveListening = resolve));
  const done = serve({
    host: "127.0.0.1",
    port: 0,
    anonymousRead: false,
    clusterContexts: [],
    syncInterval: "30s",
    env: { XDG_DATA_HOME: dir },
    now: Date.now(),
    signal: stop.signal,
    print: (text) => {
      printed += text;
      if (text.includes("viewer token")) resolveListening();
    },
  });
  await listening;
  assert.match(printed, /^Created the example fleet in .*\/fluxgate\/example-fleet/);
  const url = /on (http:\/\/127\.0\.0\.1:\d+)/.exec(printed)?.[1] as string;
  const viewer = /viewer token: (fgt_\S+)/.exec(printed)?.[1] as string;
  assert.match(printed, new RegExp(`open ${url.replace(/[.]/g, "\\.")}/#token=${viewer}`));
  const clusters = await (await fetch(`${url}/api/v1/clusters`, { headers: { authorization: `Bearer ${viewer}` } })).json();
  assert.equal(clusters.clusters.length, 3);
  stop.abort();
  assert.equal(await done, "Stopped.\n");
});

/** Starts a bare `serve` in `dir`; resolves once it printed its tokens. */
async function bare(dir: string, port: number): Promise<{ printed: () => string; url: string; viewer: string; stop: () => Promise<string> }> {
  const stop = new AbortController();
  let printed = "";
  let resolveListening: () => void = () => undefined;
  const listening = new Promise<void>((resolve) => (resolveListening = resolve));
  const done = serve({
    host: "127.0.0.1",
    port,
    anonymousRead: false,
    clusterContexts: [],
    syncInterval: "0",
    env: { XDG_DATA_HOME: dir },
    now: Date.now(),
    signal: stop.signal,
    print: (text) => {
      printed += text;
      if (text.includes("viewer token")) resolveListening();
    },
  });
  await Promise.race([listening, done]);
  return {
    printed: () => printed,
    url: /on (http:\/\/127\.0\.0\.1:\d+)/.exec(printed)?.[1] as string,
    viewer: /viewer token: (fgt_\S+)/.exec(printed)?.[1] as string,
    stop: () => (stop.abort(), done),
  };
}

/** Every file under `dir` (the example fleet's Git objects too) with a hash of its content. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    out[path] = createHash("sha256")
      .update(await readFile(path))
      .digest("hex");
  }
  return out;
}

test("a first serve that cannot listen writes nothing: no example fleet, no tokens file", async (t) => {
  const { dir, cleanup } = await tempDir("taken");
  t.after(cleanup);
  const other = createServer();
  await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
  t.after(() => new Promise<void>((resolve) => other.close(() => resolve())));
  const port = (other.address() as { port: number }).port;
  let printed = "";
  const start = serve({
    host: "127.0.0.1",
    port,
    anonymousRead: false,
    clusterContexts: [],
    syncInterval: "0",
    env: { XDG_DATA_HOME: dir },
    now: Date.now(),
    print: (text) => (printed += text),
    signal: new AbortController().signal,
  });
  await assert.rejects(start, new RegExp(`127\\.0\\.0\\.1:${port} is in use: choose another --port`));
  assert.deepEqual(await readdir(dir), [], "the data directory stays empty");
  assert.equal(printed, "", "no token was printed, since none was made");
});

test("a second serve that cannot listen writes nothing: the running server's tokens keep working", async (t) => {
  const { dir, cleanup } = await tempDir("twice");
  t.after(cleanup);
  const first = await bare(dir, 0);
  t.after(() => first.stop().then(() => undefined));
  const tokensFile = join(dir, "fluxgate", "example-tokens.yaml");
  const before = await readFile(tokensFile, "utf8");
  const files = await snapshot(dir);
  const port = Number(new URL(first.url).port);
  const second = serve({
    host: "127.0.0.1",
    port,
    anonymousRead: false,
    clusterContexts: [],
    syncInterval: "0",
    env: { XDG_DATA_HOME: dir },
    now: Date.now(),
    print: () => undefined,
    signal: new AbortController().signal,
  });
  await assert.rejects(second, /127\.0\.0\.1:\d+ is in use: choose another --port/);
  assert.equal(await readFile(tokensFile, "utf8"), before, "the tokens file is untouched");
  assert.deepEqual(await snapshot(dir), files, "no file of the data directory (fleet, tokens, serve.pid) was written or added");
  const r = await fetch(`${first.url}/api/v1/clusters`, { headers: { authorization: `Bearer ${first.viewer}` } });
  assert.equal(r.status, 200);
});

test("a second serve of the example fleet on another port adds its own tokens and replaces none", async (t) => {
  const { dir, cleanup } = await tempDir("shared");
  t.after(cleanup);
  const first = await bare(dir, 0);
  t.after(() => first.stop().then(() => undefined));
  const second = await bare(dir, 0);
  t.after(() => second.stop().then(() => undefined));
  assert.notEqual(second.viewer, first.viewer);
  // Tokens are re-read at most once a second.
  await new Promise((resolve) => setTimeout(resolve, 1100));
  for (const url of [first.url, second.url]) {
    for (const token of [first.viewer, second.viewer]) {
      assert.equal((await fetch(`${url}/api/v1/clusters`, { headers: { authorization: `Bearer ${token}` } })).status, 200, `${url} with ${token.slice(0, 8)}`);
    }
  }
});

test("serve sizes its heap for a long-running service, unless the user sized it", async () => {
  const module = new URL("../../../src/cli/heap.ts", import.meta.url).href;
  const script = `
    import { getHeapSpaceStatistics } from "node:v8";
    const { serverHeapFlags } = await import(${JSON.stringify(module)});
    const set = serverHeapFlags(process.execArgv, process.env.NODE_OPTIONS);
    // Many new objects that live on, as reading a fleet's commit makes: V8 would grow the young generation for them.
    const kept = [];
    for (let i = 0; i < 2e6; i++) { kept.push({ i, s: "x" + i }); if (kept.length > 2e5) kept.splice(0, 1e5); }
    const young = getHeapSpaceStatistics().find((s) => s.space_name === "new_space").space_size;
    console.log(JSON.stringify({ set, youngMiB: young / 1048576 }));`;
  const child = async (nodeArgs: string[], nodeOptions?: string): Promise<{ set: string[]; youngMiB: number }> => {
    const env = { ...process.env, NODE_OPTIONS: nodeOptions ?? "" };
    const { stdout } = await promisify(execFile)(process.execPath, [...nodeArgs, "--input-type=module", "-e", script], { env });
    return JSON.parse(stdout) as { set: string[]; youngMiB: number };
  };
  const byDefault = await child([]);
  assert.deepEqual(byDefault.set, ["--semi-space-growth-factor=1", "--heap-growing-percent=50"]);
  // Kept at its first size: 2 MiB here, 6 once under CI's load; V8 grows it to 64-128 MiB without the flag.
  assert.ok(byDefault.youngMiB <= 16, `the young generation stays small: ${byDefault.youngMiB} MiB`);
  const sized = await child(["--heap-growing-percent=100"], "--max-semi-space-size=32");
  assert.deepEqual(sized.set, [], "the user's sizes are kept");
  assert.ok(sized.youngMiB > 16, `the user's young generation grows: ${sized.youngMiB} MiB`);
});

test("serve of a folder that does not exist says so and how to make a repository, not that git is missing", async (t) => {
  const { dir, cleanup } = await tempDir("no-repo");
  t.after(cleanup);
  const missing = join(dir, "nonexistent");
  const r = await run("serve", "--repo", missing, "--anonymous-read", "--port", "0");
  assert.equal(r.code, 2, r.stderr);
  assert.doesNotMatch(r.stderr, /git program was not found/);
  assert.match(r.stderr, new RegExp(`${missing.replace(/[.]/g, "\\.")}: no such folder`));
  assert.match(r.stderr, /git clone/);
  assert.match(r.stderr, /git init/);
  const empty = join(dir, "empty");
  await mkdir(empty);
  const notRepo = await run("serve", "--repo", empty, "--anonymous-read", "--port", "0");
  assert.equal(notRepo.code, 2, notRepo.stderr);
  assert.match(notRepo.stderr, /not a Git working copy/);
  assert.match(notRepo.stderr, /git init/, "fluxgate init alone makes no Git repository: the message says how to make one");
});

test("serve with --cluster-keys and the default status store names the SQLite file the status is kept in", async (t) => {
  const { dir, cleanup } = await tempDir("serve-store");
  t.after(cleanup);
  const repo = join(dir, "fleet");
  await mkdir(repo);
  await writeFleet(repo);
  const keysFile = join(dir, "cluster-keys.yaml");
  await addClusterKey(keysFile, { cluster: "edge-berlin", now: NOW });
  const stop = new AbortController();
  let printed = "";
  let resolveListening: () => void = () => undefined;
  const listening = new Promise<void>((resolve) => (resolveListening = resolve));
  const done = serve({
    repo,
    host: "127.0.0.1",
    port: 0,
    anonymousRead: true,
    clusterContexts: [],
    clusterKeys: keysFile,
    syncInterval: "0",
    env: { XDG_DATA_HOME: dir },
    now: Date.now(),
    signal: stop.signal,
    print: (text) => {
      printed += text;
      if (text.includes("events")) resolveListening();
    },
  });
  await Promise.race([listening, done]);
  stop.abort();
  await done;
  assert.doesNotMatch(printed, /unparsable/);
  assert.match(printed, new RegExp(`status kept in the SQLite file ${join(dir, "fluxgate", "status.db").replace(/[.]/g, "\\.")}\\)`));
});
