// Fixtures for the Config Service tests: the example fleet in a real Git repository, tokens of every role, and the app in-process.

import type { Push } from "../../src/server/service.ts";
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { createApp } from "../../src/server/app.ts";
import { exampleFleetFiles } from "../../src/server/model/example-fleet.ts";
import type { LiveSource } from "../../src/server/status/live.ts";
import type { RateLimitOptions } from "../../src/server/http/ratelimit.ts";
import { Repository } from "../../src/server/git/repository.ts";
import type { StartOptions } from "../../src/server/server.ts";
import { addToken, TokenStore } from "../../src/server/http/tokens.ts";

const exec = promisify(execFile);

/** Monday 23 November 2026, 10:00 UTC (11:00 in Berlin, inside its Monday-to-Thursday window). */
export const NOW = Date.parse("2026-11-23T10:00:00Z");

const DATE = `${NOW / 1000} +0000`;
const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: "fixture",
  GIT_AUTHOR_EMAIL: "fixture@fluxgate.invalid",
  GIT_COMMITTER_NAME: "fixture",
  GIT_COMMITTER_EMAIL: "fixture@fluxgate.invalid",
  GIT_AUTHOR_DATE: DATE,
  GIT_COMMITTER_DATE: DATE,
  GIT_CONFIG_NOSYSTEM: "1",
};

/** Runs git in `cwd` with fixed identities and dates; returns trimmed stdout. */
export async function git(cwd: string, ...args: string[]): Promise<string> {
  const { stdout } = await exec("git", ["-c", "commit.gpgSign=false", ...args], { cwd, env: GIT_ENV });
  return stdout.trim();
}

/** A comment the fixture puts in a window file, to check that edits keep it. */
export const COMMENT = "# Agreed with the plant: Monday 08:00 to Thursday 17:00.";

/** A temporary directory removed by `cleanup`. */
export async function tempDir(prefix: string): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), `fluxgate-${prefix}-`));
  // Retried: a process the test started (a git that packs in the background, SQLite's journal as its store closes) may still be writing in it.
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }) };
}

/** Writes the example fleet (with COMMENT in edge-berlin's apps-rw) into `dir` and commits it. */
export async function writeFleet(dir: string): Promise<void> {
  const files = exampleFleetFiles(NOW);
  const berlin = "clusters/edge-berlin/windows/apps-rw.yaml";
  files[berlin] = (files[berlin] as string).replace("  schedules:\n", `  ${COMMENT}\n  schedules:\n`);
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  await git(dir, "init", "--quiet", "--initial-branch=main");
  await git(dir, "add", "--all");
  await git(dir, "commit", "--quiet", "-m", "Example fleet");
}

export interface Tokens {
  file: string;
  viewer: string;
  editor: string;
  breakglass: string;
}

export async function writeTokens(dir: string): Promise<Tokens> {
  const file = join(dir, "tokens.yaml");
  return {
    file,
    viewer: await addToken(file, { name: "vera viewer", role: "viewer", now: NOW }),
    editor: await addToken(file, { name: "eddie editor", role: "editor", email: "eddie@example.com", now: NOW }),
    breakglass: await addToken(file, { name: "bree oncall", role: "breakglass", now: NOW }),
  };
}

export interface Fixture {
  dir: string;
  repository: Repository;
  tokens: Tokens;
  app: ReturnType<typeof createApp>;
  /** Calls the app in-process. */
  call: (
    method: string,
    path: string,
    options?: { token?: string | null; body?: unknown; headers?: Record<string, string> },
  ) => Promise<{ status: number; body: any; text: string; headers: Headers }>;
  cleanup: () => Promise<void>;
}

export interface FixtureOptions {
  anonymousRead?: boolean;
  live?: LiveSource | null;
  push?: Push | null;
  rateLimit?: RateLimitOptions;
  maxBodyBytes?: number;
  /** The service's clock; NOW when absent. */
  now?: () => number;
}

/** The example fleet in a fresh repository, served in-process with the clock at NOW (or options.now). */
export async function fixture(options: FixtureOptions = {}): Promise<Fixture> {
  const { dir: root, cleanup } = await tempDir("serve");
  const dir = join(root, "fleet");
  await mkdir(dir);
  await writeFleet(dir);
  const tokens = await writeTokens(root);
  const now = options.now ?? ((): number => NOW);
  const repository = await Repository.open(dir, { now });
  const app = createApp({
    repository,
    tokens: await TokenStore.open(tokens.file),
    anonymousRead: options.anonymousRead ?? false,
    live: options.live ?? null,
    push: options.push ?? null,
    now,
    version: "0.0.0-test",
    ...(options.rateLimit === undefined ? {} : { rateLimit: options.rateLimit }),
    ...(options.maxBodyBytes === undefined ? {} : { maxBodyBytes: options.maxBodyBytes }),
  });
  const call: Fixture["call"] = async (method, path, o = {}) => {
    const headers: Record<string, string> = { ...o.headers };
    const token = o.token === undefined ? tokens.editor : o.token;
    if (token !== null) headers.authorization = `Bearer ${token}`;
    let body: string | undefined;
    if (o.body !== undefined) {
      body = typeof o.body === "string" ? o.body : JSON.stringify(o.body);
      headers["content-type"] ??= "application/json";
    }
    const response = await app.request(path, { method, headers, ...(body === undefined ? {} : { body }) });
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = null;
    }
    return { status: response.status, body: parsed, text, headers: response.headers };
  };
  return { dir, repository, tokens, app, call, cleanup };
}

/** Checks that a refused request left HEAD at `head` and the work tree as `tree` (`git status --porcelain`; clean by default). */
export async function assertUntouched(f: Fixture, head: string, tree = ""): Promise<void> {
  if ((await f.repository.head()) !== head) throw new Error(`a refused request committed: HEAD moved from ${head}`);
  const status = await git(f.dir, "status", "--porcelain", "--untracked-files=all");
  if (status !== tree) throw new Error(`a refused request changed the work tree:\n${status}`);
}

/** The spec of edge-berlin's apps-rw as the fixture commits it, to change in tests. */
export function berlinSpec(): Record<string, unknown> {
  return {
    timeZone: "Europe/Berlin",
    schedules: [{ start: "0 8 * * MON", end: "0 17 * * THU" }],
    freezes: [
      { start: "0 0 * * FRI", duration: "24h", reason: "No deploys on Fridays" },
      { from: "2026-12-20T00:00", to: "2027-01-05T00:00", reason: "Holiday freeze" },
    ],
    targets: [{ kind: "Kustomization", name: "apps-rw" }],
  };
}

/**
 * startService's options as the tests serve a repository: loopback on any port, the tokens file,
 * no anonymous reads, no live status, no sync timer, quiet, at NOW; `options` adds or replaces.
 */
export function testServiceOptions(repo: string, tokensFile: string | null, options: Partial<StartOptions> = {}): StartOptions {
  return {
    repo,
    host: "127.0.0.1",
    port: 0,
    tokensFile,
    anonymousRead: false,
    live: null,
    syncIntervalMs: 0,
    version: "test",
    log: () => undefined,
    now: () => NOW,
    ...options,
  };
}

/** testServiceOptions with no tokens file and anonymous reads: the service that clusters push their status to in the push tests. */
export function anonymousServiceOptions(repo: string, options: Partial<StartOptions> = {}): StartOptions {
  return testServiceOptions(repo, null, { anonymousRead: true, ...options });
}

/** A bare remote `<root>/fleet.git` holding `seed`'s main, and a clone of it at `<root>/<work>`. */
export async function bareRemoteWithClone(root: string, seed: string, work = "work"): Promise<{ remote: string; work: string }> {
  const remote = join(root, "fleet.git");
  await git(root, "init", "--quiet", "--bare", "--initial-branch=main", remote);
  await git(seed, "push", "--quiet", remote, "main");
  const clone = join(root, work);
  await git(root, "clone", "--quiet", remote, clone);
  return { remote, work: clone };
}
