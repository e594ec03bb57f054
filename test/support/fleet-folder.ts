// The fleet-folder fixture (test/fixtures/gitops/fleet-folder), or files of the same layout, served with the real kustomize for a test, with what the tests
// of its writes check in Git.

import assert from "node:assert/strict";
import { cp, mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { TestContext } from "node:test";
import { startService } from "../../src/server/server.ts";
import { kustomizeRunner } from "./fleet.ts";
import { bareRemoteWithClone, git, tempDir, testServiceOptions, writeTokens, type Tokens } from "./server.ts";

export interface Served {
  /** The service's address, its tokens, and its working copy. */
  url: string;
  tokens: Tokens;
  work: string;
  call(method: string, path: string, options?: { body?: unknown; headers?: Record<string, string> }): Promise<{ status: number; body: any }>;
  head(): Promise<string>;
  /** Each file a commit changes with its lines added and removed (`git show --numstat`), checking it is one commit on top of `parent`. */
  diff(commit: string, parent: string): Promise<Array<[string, number, number]>>;
  /** Checks that HEAD is still `head` and the working copy clean. */
  untouched(head: string): Promise<void>;
  /** Stops the service and removes its repositories. */
  close(): Promise<void>;
}

/** What the served repository holds: the fleet-folder fixture when absent. */
export interface FleetFolderOptions {
  /** The repository's files by path, committed with `message`. */
  seed?: { files: ReadonlyMap<string, string>; message: string };
}

/** The fleet-folder fixture (or `options.seed`) served from a clone of a bare remote, with the real kustomize; closed after the test. */
export async function serveFleetFolder(t: TestContext, options: FleetFolderOptions = {}): Promise<Served> {
  const served = await openFleetFolder(options);
  t.after(() => served.close());
  return served;
}

/** serveFleetFolder for the tests of a file that share one service: the caller closes it (in its `after` hook). */
export async function openFleetFolder(options: FleetFolderOptions = {}): Promise<Served> {
  const temp = await tempDir("fleet-folder");
  const seed = join(temp.dir, "seed");
  if (options.seed === undefined) await cp(new URL("../fixtures/gitops/fleet-folder", import.meta.url).pathname, seed, { recursive: true });
  for (const [path, text] of options.seed?.files ?? []) {
    await mkdir(dirname(join(seed, path)), { recursive: true });
    await writeFile(join(seed, path), text);
  }
  await git(seed, "init", "--quiet", "--initial-branch=main");
  await git(seed, "add", "--all");
  await git(seed, "commit", "--quiet", "-m", options.seed?.message ?? "The fleet folder");
  const { work } = await bareRemoteWithClone(temp.dir, seed);
  const tokens = await writeTokens(temp.dir);
  const service = await startService(testServiceOptions(work, tokens.file, { kustomize: (await kustomizeRunner()).runner }));
  const head = (): Promise<string> => git(work, "rev-parse", "HEAD");
  return {
    url: service.url,
    tokens,
    work,
    head,
    async call(method, path, options = {}) {
      const response = await fetch(`${service.url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${method === "GET" ? tokens.viewer : tokens.editor}`,
          ...(options.body === undefined ? {} : { "content-type": "application/json" }),
          ...options.headers,
        },
        ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
      });
      return { status: response.status, body: await response.json() };
    },
    async diff(commit, parent) {
      assert.equal(await git(work, "rev-parse", `${commit}^`), parent, "one commit on top of the previous HEAD");
      return (await git(work, "show", "--numstat", "--format=", commit))
        .split("\n")
        .map((l) => l.split("\t"))
        .map(([added, removed, path]): [string, number, number] => [path as string, Number(added), Number(removed)])
        .sort((a, b) => (a[0] < b[0] ? -1 : 1));
    },
    async untouched(before) {
      assert.equal(await head(), before, "a refused request committed");
      assert.equal(await git(work, "status", "--porcelain", "--untracked-files=all"), "", "a refused request changed the working copy");
    },
    async close() {
      await service.close();
      await temp.cleanup();
    },
  };
}

/** Each window of a cluster: its state now, and what caused it (an override's name and reason, or a schedule). */
export async function statesOf(s: Served, cluster: string): Promise<Array<[string, string, string | null, string | null]>> {
  const r = await s.call("GET", `/api/v1/clusters/${cluster}/windows`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.fleetError, null);
  return (r.body.windows as Array<{ name: string; state: string; cause: { kind: string; label: string; reason?: string } | null }>).map((w) => [
    w.name,
    w.state,
    w.cause?.kind === "override-freeze" ? w.cause.label : null,
    w.cause?.kind === "override-freeze" ? (w.cause.reason ?? null) : null,
  ]);
}

/** The number of lines of a file at a commit of the served working copy. */
export async function lines(s: Served, commit: string, path: string): Promise<number> {
  return (await git(s.work, "show", `${commit}:${path}`)).split("\n").length;
}
