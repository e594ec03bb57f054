// The Git working copy behind the service: reads the fleet at HEAD, and writes each change as one commit, serialized, pushed, retried.

import { lstat, mkdir, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { REPOSITORY_FILE } from "../gitops/layout.ts";
import { ConfigError, HttpError } from "./errors.ts";
import { Git, GitError, type Person } from "./git.ts";
import { buildFleet, parseRepositoryFile, type FileAt, type Fleet } from "./model.ts";
import type { FileChanges } from "./edits.ts";
import { MAX_YAML_BYTES } from "../gitops/yaml-read.ts";

/** What a write wants: computed afresh from the fleet at each attempt, so a replay never loses a concurrent change. */
export interface PlannedWrite<R> {
  changes: FileChanges;
  /** Start of the commit's subject: "<cluster>: <verb> window <name>". */
  subject: string;
  /** The caller's reason: the rest of the subject (its first line), and the body when it has more lines. */
  reason: string;
  /** Returned to the caller with the commit. */
  result: R;
}

/** The outcome of a write. */
export interface WriteResult<R> {
  /** The commit holding the change; the current HEAD when nothing changed. */
  commit: string;
  /** False when the files already held the change: no commit was made. */
  changed: boolean;
  /** True when the commit is on the remote. */
  pushed: boolean;
  /** How many times the change was committed before a push went through (1 unless the remote moved). */
  attempts: number;
  result: R;
}

/** What a reset to origin dropped: the commits origin no longer has, kept under `backupRef`. */
export interface ResetRecord {
  at: string;
  /** The local head before the reset. */
  from: string;
  /** Origin's head, the working copy's head after it. */
  to: string;
  /** The commits dropped, newest first. */
  dropped: string[];
  backupRef: string;
}

/** `20261123T100000Z` for a ref name. */
function rfc3339Stamp(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z").replace(/[-:]/g, "");
}

/**
 * The message of a commit: the subject, then the reason's first line, so `git log --oneline` shows
 * why; a reason of several lines is also the body.
 *
 * @example commitMessage("edge-berlin: change window apps-rw", "The plant starts at 07:00") // "edge-berlin: change window apps-rw: The plant starts at 07:00\n"
 */
export function commitMessage(subject: string, reason: string): string {
  const lines = reason.trim().split(/\r?\n/);
  const first = (lines[0] as string).trim();
  return lines.length === 1 ? `${subject}: ${first}\n` : `${subject}: ${first}\n\n${reason.trim()}\n`;
}

/** Events for metrics and logs. */
export interface RepositoryObserver {
  reset?(record: ResetRecord): void;
  commit?(): void;
  retry?(): void;
  failure?(what: string, error: unknown): void;
  queue?(length: number): void;
}

export interface RepositoryOptions {
  /** How often a write is replayed when the remote keeps moving ahead. */
  maxAttempts?: number;
  observer?: RepositoryObserver;
  /** Clock for commit dates and the "opens within 366 days" check of windows read from Git. */
  now?: () => number;
}

const REJECTED = /\[rejected\].*\((non-fast-forward|fetch first|stale info)\)/;
/**
 * Another push moved the branch while origin checked this one (two replicas pushing at once): the
 * ref was not where this push found it. The remote moved ahead, as with a rejected push.
 */
const LOST_RACE = /cannot lock ref '[^']+': is at [0-9a-f]+ but expected [0-9a-f]+/;

/**
 * One Git working copy, read at HEAD and written through a queue.
 *
 * @example const repo = await Repository.open("/srv/fleet"); const fleet = await repo.fleet();
 */
export class Repository {
  readonly git: Git;
  readonly dir: string;
  readonly branch: string;
  /** True when the working copy has an `origin` to push to. */
  readonly hasRemote: boolean;
  private readonly maxAttempts: number;
  private readonly observer: RepositoryObserver;
  private readonly now: () => number;
  private cached: Fleet | null = null;
  private checkedAt = 0;
  /** HEAD's commit when its files could not be read, and why. */
  private unreadable: { commit: string; error: ConfigError } | null = null;
  private tail: Promise<unknown> = Promise.resolve();
  private queued = 0;
  /** The last sync with the remote failed with this, or null. */
  lastSyncError: string | null = null;
  /** The last time origin no longer held the local head and the working copy was reset to it, or null. */
  lastReset: ResetRecord | null = null;

  private constructor(dir: string, branch: string, hasRemote: boolean, options: RepositoryOptions) {
    this.dir = dir;
    this.git = new Git(dir);
    this.branch = branch;
    this.hasRemote = hasRemote;
    this.maxAttempts = options.maxAttempts ?? 10;
    this.observer = options.observer ?? {};
    this.now = options.now ?? Date.now;
  }

  /** Opens a working copy: it must be on a branch and have `fluxgate.yaml` committed. */
  static async open(dir: string, options: RepositoryOptions = {}): Promise<Repository> {
    const git = new Git(dir);
    let top: string;
    try {
      top = await git.text(["rev-parse", "--show-toplevel"]);
    } catch (e) {
      throw new ConfigError(`${dir}: not a Git working copy (${e instanceof GitError ? e.stderr.trim() : String(e)}); create one with "fluxgate init"`, { cause: e });
    }
    const branch = await git.text(["symbolic-ref", "--quiet", "--short", "HEAD"]).catch(() => "");
    if (branch === "") throw new ConfigError(`${top}: HEAD is detached; check out the branch the service should commit to`);
    const remotes = (await git.text(["remote"])).split("\n");
    const repo = new Repository(top, branch, remotes.includes("origin"), options);
    if (repo.hasRemote) {
      await repo.sync().catch((e: unknown) => {
        repo.lastSyncError = e instanceof Error ? e.message : String(e);
      });
    }
    await repo.fleet();
    return repo;
  }

  /**
   * The fleet at HEAD; re-read when HEAD moved (checked at most once a second). A commit whose
   * repository file cannot be read fails every call until HEAD moves on, instead of failing once
   * and then serving the previous commit for a second.
   */
  async fleet(): Promise<Fleet> {
    const now = Date.now();
    if ((this.cached === null && this.unreadable === null) || now - this.checkedAt >= 1000) {
      this.checkedAt = now;
      const head = await this.head();
      if (this.cached?.commit === head) this.unreadable = null;
      else if (this.unreadable?.commit !== head) {
        try {
          this.cached = await this.load(head);
          this.unreadable = null;
        } catch (e) {
          // Only what is wrong with the commit's files is remembered; anything else (a failing git) is tried again.
          if (!(e instanceof ConfigError)) throw e;
          this.unreadable = { commit: head, error: e };
        }
      }
    }
    if (this.unreadable !== null) throw this.unreadable.error;
    return this.cached as Fleet;
  }

  /** Makes the next fleet() look at HEAD again. */
  private invalidate(): void {
    this.cached = null;
    this.checkedAt = 0;
  }

  /** HEAD's commit id. */
  async head(): Promise<string> {
    try {
      return await this.git.text(["rev-parse", "--verify", "HEAD^{commit}"]);
    } catch (e) {
      throw new ConfigError(`${this.dir}: the branch ${this.branch} has no commit yet; commit ${REPOSITORY_FILE} first`, { cause: e });
    }
  }

  private async load(commit: string): Promise<Fleet> {
    const [repositoryFile] = await this.readFiles(commit, [REPOSITORY_FILE]);
    if (repositoryFile === undefined || repositoryFile.path !== REPOSITORY_FILE) {
      throw new ConfigError(`${this.dir}: commit ${commit.slice(0, 12)} has no ${REPOSITORY_FILE}; lay the repository out with "fluxgate init"`);
    }
    const repository = parseRepositoryFile(repositoryFile.text);
    // The whole cluster directory: its windows and overrides, and the Flux objects declared there (per-target timelines).
    const dirs = repository.clusters.map((c) => c.path);
    const files = dirs.length === 0 ? [] : await this.readFiles(commit, dirs);
    return buildFleet(commit, repository, files, this.now());
  }

  /** The YAML files under `paths` at `commit`, with their blob ids. */
  private async readFiles(commit: string, paths: readonly string[]): Promise<FileAt[]> {
    // -l gives each blob's size: a blob too large to be a manifest is listed but never read (readYaml refuses it).
    const listing = await this.git.run(["ls-tree", "-r", "-z", "-l", "--full-tree", commit, "--", ...paths]);
    const entries = listing.stdout
      .split("\0")
      .filter((line) => line !== "")
      .map((line) => {
        const tab = line.indexOf("\t");
        const [, type, blob, size] = line.slice(0, tab).trim().split(/\s+/);
        return { type, blob: blob as string, size: Number(size), path: line.slice(tab + 1) };
      })
      .filter((e) => e.type === "blob" && e.path.endsWith(".yaml"));
    const small = entries.filter((e) => e.size <= MAX_YAML_BYTES);
    const texts = new Map<string, string>();
    if (small.length > 0) {
      // The batch output is "<id> blob <size>\n<content>\n" per object; sizes are in bytes, so it is read as bytes.
      const bytes = await this.git.bytes(["cat-file", "--batch"], { input: small.map((e) => `${e.blob}\n`).join("") });
      let at = 0;
      for (const entry of small) {
        const eol = bytes.indexOf(10, at);
        const size = Number(bytes.subarray(at, eol).toString("utf8").split(" ")[2]);
        const start = eol + 1;
        texts.set(entry.path, bytes.subarray(start, start + size).toString("utf8"));
        at = start + size + 1;
      }
    }
    return entries.map((e) => ({ path: e.path, blob: e.blob, size: e.size, text: texts.get(e.path) ?? "" }));
  }

  /** Runs `job` after every write queued before it. */
  private enqueue<T>(job: () => Promise<T>): Promise<T> {
    this.queued++;
    this.observer.queue?.(this.queued);
    const run = this.tail.then(job);
    this.tail = run.then(
      () => undefined,
      () => undefined,
    );
    return run.finally(() => {
      this.queued--;
      this.observer.queue?.(this.queued);
    });
  }

  /** Writes queued and running. */
  get queueLength(): number {
    return this.queued;
  }

  /**
   * Commits one change by `author`, then pushes it when there is a remote. `plan` is called with the
   * fleet at HEAD; when the remote moved ahead, the commit is dropped, the working copy fast-forwarded
   * and `plan` called again on the new fleet, so nobody's change is ever overwritten by a stale one.
   */
  write<R>(author: Person, plan: (fleet: Fleet) => PlannedWrite<R>): Promise<WriteResult<R>> {
    return this.enqueue(async () => {
      for (let attempt = 1; ; attempt++) {
        this.invalidate();
        const fleet = await this.fleet();
        const planned = plan(fleet);
        const paths = Object.keys(planned.changes);
        if (paths.length === 0) return { commit: fleet.commit, changed: false, pushed: this.hasRemote, attempts: attempt, result: planned.result };
        await this.checkClean(paths);
        await this.checkNoLinks(paths);
        const commit = await this.commit(fleet.commit, planned, author);
        this.invalidate();
        this.observer.commit?.();
        if (!this.hasRemote) return { commit, changed: true, pushed: false, attempts: attempt, result: planned.result };
        const pushed = await this.push();
        if (pushed === "ok") {
          // A push that went through proves origin is reachable again.
          this.lastSyncError = null;
          return { commit, changed: true, pushed: true, attempts: attempt, result: planned.result };
        }
        // Take the commit back out, catch up with the remote, and plan again.
        await this.git.run(["reset", "--quiet", "--keep", fleet.commit]);
        this.invalidate();
        if (pushed !== "behind") {
          throw new HttpError(502, `the change was not pushed, so it was not kept: ${pushed}`);
        }
        this.observer.retry?.();
        if (attempt >= this.maxAttempts) {
          throw new HttpError(503, `the remote moved ahead ${attempt} times in a row; nothing was written, try again`);
        }
        await sleep(Math.random() * 20 * attempt);
        await this.fastForward();
      }
    });
  }

  /** Refuses to write over uncommitted edits of the same files in the working copy. */
  private async checkClean(paths: readonly string[]): Promise<void> {
    const { stdout } = await this.git.run(["status", "--porcelain", "--untracked-files=all", "--", ...paths]);
    const files = stdout
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => line.slice(3));
    if (files.length > 0) {
      throw new HttpError(409, `the working copy has uncommitted changes in ${files.join(", ")}; commit or discard them there first`);
    }
  }

  /**
   * Refuses to write through a symbolic link: a link committed to the repository (a window file, or a
   * directory on its path) could otherwise make the service write or delete a file outside it.
   */
  private async checkNoLinks(paths: readonly string[]): Promise<void> {
    for (const path of paths) {
      const segments = path.split("/");
      for (let i = 1; i <= segments.length; i++) {
        const prefix = segments.slice(0, i).join("/");
        let link: boolean;
        try {
          link = (await lstat(join(this.dir, prefix))).isSymbolicLink();
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code === "ENOENT") break;
          throw e;
        }
        if (link) throw new HttpError(409, `${prefix} is a symbolic link in the working copy; the service writes only files inside the repository, never through a link`);
      }
    }
  }

  private async commit(base: string, planned: PlannedWrite<unknown>, author: Person): Promise<string> {
    const paths = Object.keys(planned.changes);
    try {
      for (const [path, text] of Object.entries(planned.changes)) {
        const file = join(this.dir, path);
        if (text === null) await rm(file, { force: true });
        else {
          await mkdir(dirname(file), { recursive: true });
          await writeFile(file, text);
        }
      }
      await this.git.run(["add", "--all", "--", ...paths]);
      const message = commitMessage(planned.subject, planned.reason);
      await this.git.run(["commit", "--quiet", "--no-verify", "--file=-", "--only", "--", ...paths], { input: message, env: Git.identity(author, this.now()) });
      return await this.head();
    } catch (e) {
      // Leave the working copy as it was: no half-written change survives a failed commit.
      await this.git.run(["reset", "--quiet", "--", ...paths]).catch(() => undefined);
      await this.git.run(["checkout", "--quiet", base, "--", ...paths]).catch(() => undefined);
      await this.git.run(["clean", "--quiet", "--force", "--", ...paths]).catch(() => undefined);
      throw e;
    }
  }

  /** Pushes HEAD to the branch on origin: "ok", "behind" when the remote moved ahead, or why it failed (with the remote's own lines, e.g. a hook's). */
  private async push(): Promise<string> {
    const { stdout, stderr, code } = await this.git.run(["push", "--porcelain", "origin", `HEAD:refs/heads/${this.branch}`], { okCodes: [1] }).catch((e: unknown) => {
      if (e instanceof GitError) return { stdout: "", stderr: e.stderr, code: e.exitCode ?? 128 };
      throw e;
    });
    if (code === 0) return "ok";
    if (REJECTED.test(stdout) || (/\[remote rejected\]/.test(stdout) && LOST_RACE.test(stderr))) return "behind";
    this.observer.failure?.("push", `${stderr}${stdout}`);
    const remoteLines = stderr.split("\n").filter((line) => line.startsWith("remote:") && line.trim() !== "remote:");
    const rejected = stdout.split("\n").filter((line) => line.startsWith("!"));
    const other = remoteLines.length === 0 ? stderr.trim().split("\n").slice(-3) : [];
    return [...remoteLines, ...rejected, ...other].map((l) => l.trim()).filter((l) => l !== "").join("\n") || "git push failed";
  }

  /**
   * Fetches the branch from origin and brings the working copy up to it. Every commit the service
   * makes is pushed or taken back out, so a local head that origin's history does not contain means
   * origin dropped it (a force-push): the working copy is reset to origin, what it held is kept under
   * a backup ref, and the drop is recorded, never pushed back.
   */
  private async fastForward(): Promise<void> {
    try {
      await this.git.run(["fetch", "--quiet", "origin", `+refs/heads/${this.branch}:refs/remotes/origin/${this.branch}`]);
    } catch (e) {
      if (e instanceof GitError && /couldn't find remote ref/i.test(e.stderr)) return;
      throw e;
    }
    const remote = `refs/remotes/origin/${this.branch}`;
    const head = await this.head();
    const theirs = await this.git.text(["rev-parse", remote]);
    if (head === theirs) return;
    const behind = (await this.git.run(["merge-base", "--is-ancestor", head, theirs], { okCodes: [1] })).code === 0;
    if (behind) {
      await this.git.run(["merge", "--quiet", "--ff-only", theirs]);
    } else {
      const at = this.now();
      const backupRef = `refs/fluxgate/dropped/${rfc3339Stamp(at)}-${head.slice(0, 12)}`;
      const dropped = (await this.git.text(["rev-list", head, `^${theirs}`])).split("\n").filter((l) => l !== "");
      await this.git.run(["update-ref", backupRef, head]);
      await this.git.run(["reset", "--quiet", "--keep", theirs]);
      this.lastReset = { at: new Date(at).toISOString(), from: head, to: theirs, dropped, backupRef };
      this.observer.reset?.(this.lastReset);
    }
    this.invalidate();
  }

  /** Catches up with the remote now, through the write queue. */
  sync(): Promise<void> {
    if (!this.hasRemote) return Promise.resolve();
    return this.enqueue(async () => {
      try {
        await this.fastForward();
        this.lastSyncError = null;
      } catch (e) {
        this.lastSyncError = e instanceof Error ? e.message : String(e);
        this.observer.failure?.("sync", e);
        throw e;
      }
    });
  }
}
