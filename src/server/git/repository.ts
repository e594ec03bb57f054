// The Git working copy behind the service: reads the fleet at HEAD, and writes each change as one commit, serialized, pushed, retried.

import type { Dirent } from "node:fs";
import { lstat, mkdir, readdir, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { REPOSITORY_FILE } from "../../gitops/layout.ts";
import { BusyFailure, ConfigError, ConflictError, RemoteFailure } from "../model/errors.ts";
import { HeadFiles } from "./refs.ts";
import { Git, GitError, type Person } from "./git.ts";
import { commitMessage, pushAnswer, refStamp } from "./push.ts";
import type { Fleet } from "../model/model.ts";
import type { FleetRenderStats } from "../model/fleet-model.ts";
import { FleetReader, type ReadStats } from "../model/fleet-reader.ts";
import type { KustomizeRunner } from "../../gitops/kustomize.ts";
import type { TargetRenderer } from "../model/rendered-targets.ts";
import type { FileChanges } from "./edits.ts";

/** Past this many paths, a write stages and checks them without pathspecs (see commit()). */
const MANY_PATHS = 200;

/** Files written at once by a write. */
const WRITE_CONCURRENCY = 16;

/** Runs `fn` on every item, at most `limit` at a time. */
async function inPool<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await fn(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

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
  /**
   * "force-push": origin had the dropped commits (the service pushed them) and no longer has them.
   * "unpushed": origin never had them (commits left in the working copy, e.g. by a crash before a push).
   */
  cause: "force-push" | "unpushed";
  at: string;
  /** The local head before the reset. */
  from: string;
  /** Origin's head, the working copy's head after it. */
  to: string;
  /** The commits dropped, newest first. */
  dropped: string[];
  backupRef: string;
}

/** Events for metrics and logs. */
export interface RepositoryObserver {
  reset?(record: ResetRecord): void;
  commit?(): void;
  retry?(): void;
  failure?(what: string, error: unknown): void;
  /** Rendering the clusters' targets failed: their lanes are those of the targets their directories declare. */
  renderFailed?(error: unknown): void;
  queue?(length: number): void;
  /** A commit was read into the model, in `ms` milliseconds: how (`read`), and the kustomize builds of fleet windows it took (`render`, null without kustomize). */
  loaded?(fleet: Fleet, ms: number, read: ReadStats, render: FleetRenderStats | null): void;
}

export interface RepositoryOptions {
  /** How often a write is replayed when the remote keeps moving ahead. */
  maxAttempts?: number;
  observer?: RepositoryObserver;
  /** Clock for commit dates and the "opens within 366 days" check of windows read from Git. */
  now?: () => number;
  /**
   * Lists the targets each cluster's Kustomizations render (rendered-targets.ts), so that a target a
   * kustomize base declares gets its lane; without it, the targets are those declared in the clusters' directories.
   */
  targets?: TargetRenderer;
  /**
   * Renders the clusters' fleet windows (fleet/windows/ bases with the clusters' patches) with the
   * real kustomize; without it, a cluster that includes fleet windows says they are not known.
   */
  kustomize?: KustomizeRunner | null;
}

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
  private readonly reader: FleetReader;
  private readonly headFiles: HeadFiles;
  private cached: Fleet | null = null;
  private checkedAt = 0;
  /** Counts the changes of HEAD this process made (commits, resets): a reader wants a look at HEAD taken after the last one. */
  private generation = 0;
  /** The generation the fleet in `cached` (or `unreadable`) was read at. */
  private readGeneration = -1;
  /** The look at HEAD under way, and the generation it started at: readers wait for it instead of reading HEAD again. */
  private checking: { generation: number; done: Promise<void> } | null = null;
  /** HEAD's commit when its files could not be read, and why. */
  private unreadable: { commit: string; error: ConfigError } | null = null;
  private tail: Promise<unknown> = Promise.resolve();
  private queued = 0;
  /** The last sync with the remote failed with this, or null. */
  lastSyncError: string | null = null;
  /** The last time origin no longer held the local head and the working copy was reset to it, or null. */
  lastReset: ResetRecord | null = null;

  private constructor(dir: string, branch: string, hasRemote: boolean, headFiles: HeadFiles, options: RepositoryOptions) {
    this.dir = dir;
    this.git = new Git(dir);
    this.headFiles = headFiles;
    this.branch = branch;
    this.hasRemote = hasRemote;
    this.maxAttempts = options.maxAttempts ?? 10;
    this.observer = options.observer ?? {};
    this.now = options.now ?? Date.now;
    this.reader = new FleetReader(this.git, {
      targets: options.targets,
      kustomize: options.kustomize ?? null,
      renderFailed: (e) => this.observer.renderFailed?.(e),
    });
  }

  /** What the last read of a commit rendered of fleet windows (null without kustomize). */
  get fleetRenderStats(): FleetRenderStats | null {
    return this.reader.fleetRenderStats;
  }

  /** How the last commit was read: in full, or from the fleet before it and what changed. */
  get readStats(): ReadStats {
    return this.reader.stats;
  }

  /** Opens a working copy: it must be on a branch and have `fluxgate.yaml` committed. */
  static async open(dir: string, options: RepositoryOptions = {}): Promise<Repository> {
    // fluxgate init lays a repository out but makes no Git repository: the message says how to get one.
    const makeOne = `clone the fleet's repository (git clone URL ${dir}), or make one: git init ${dir}, then fluxgate init ${dir} --cluster NAME and a first commit`;
    const folder = await stat(dir).catch(() => null);
    if (folder === null) throw new ConfigError(`${dir}: no such folder; ${makeOne}`);
    if (!folder.isDirectory()) throw new ConfigError(`${dir}: not a folder; give the folder of a Git working copy`);
    const git = new Git(dir);
    let top: string;
    try {
      top = await git.text(["rev-parse", "--show-toplevel"]);
    } catch (e) {
      throw new ConfigError(`${dir}: not a Git working copy (${e instanceof GitError ? e.stderr.trim() : String(e)}); ${makeOne}`, { cause: e });
    }
    const branch = await git.text(["symbolic-ref", "--quiet", "--short", "HEAD"]).catch(() => "");
    if (branch === "") throw new ConfigError(`${top}: HEAD is detached; check out the branch the service should commit to`);
    const remotes = (await git.text(["remote"])).split("\n");
    const repo = new Repository(top, branch, remotes.includes("origin"), await HeadFiles.of(git), options);
    if (repo.hasRemote) {
      await repo.sync().catch((e: unknown) => {
        repo.lastSyncError = e instanceof Error ? e.message : String(e);
      });
    }
    await repo.fleet();
    return repo;
  }

  /**
   * The fleet at HEAD; re-read when HEAD moved (checked at most once a second, and at once after a
   * commit or reset of this process). A commit whose repository file cannot be read fails every call
   * until HEAD moves on, instead of failing once and then serving the previous commit for a second.
   * Reads never see a fleet older than the last change this process made: a look at HEAD that
   * started before that change is waited for, then another is taken.
   */
  async fleet(): Promise<Fleet> {
    if (this.readGeneration < this.generation || Date.now() - this.checkedAt >= 1000) await this.check();
    if (this.unreadable !== null) throw this.unreadable.error;
    return this.cached as Fleet;
  }

  /** Looks at HEAD once for every reader that wants a look taken at the current generation or later. */
  private async check(): Promise<void> {
    const wanted = this.generation;
    const running = this.checking;
    if (running !== null && running.generation >= wanted) return await running.done;
    const look = { generation: wanted, done: (running?.done ?? Promise.resolve()).catch(() => undefined).then(() => this.look()) };
    this.checking = look;
    try {
      await look.done;
    } finally {
      if (this.checking === look) this.checking = null;
    }
  }

  private async look(): Promise<void> {
    // Every change counted so far is in HEAD now (a change is counted after it is made).
    const generation = this.generation;
    this.checkedAt = Date.now();
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
    this.readGeneration = generation;
  }

  /** Makes the next fleet() look at HEAD again (and read it only when it moved). */
  private invalidate(): void {
    this.generation++;
  }

  /** HEAD's commit id: from the ref files when they say it plainly, else from git. */
  async head(): Promise<string> {
    const fromFiles = await this.headFiles.commit();
    if (fromFiles !== null) return fromFiles;
    try {
      return await this.git.text(["rev-parse", "--verify", "HEAD^{commit}"]);
    } catch (e) {
      throw new ConfigError(`${this.dir}: the branch ${this.branch} has no commit yet; commit ${REPOSITORY_FILE} first`, { cause: e });
    }
  }

  private async load(commit: string): Promise<Fleet> {
    const started = performance.now();
    const fleet = await this.read(commit);
    this.observer.loaded?.(fleet, performance.now() - started, this.reader.stats, this.reader.fleetRenderStats);
    return fleet;
  }

  private read(commit: string): Promise<Fleet> {
    return this.reader.read(commit, this.cached, this.now());
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
  write<R>(author: Person, plan: (fleet: Fleet) => PlannedWrite<R> | Promise<PlannedWrite<R>>): Promise<WriteResult<R>> {
    return this.enqueue(async () => {
      for (let attempt = 1; ; attempt++) {
        this.invalidate();
        const fleet = await this.fleet();
        // A long plan may take turns of the event loop: the writes are serialized, so the fleet stays HEAD's meanwhile.
        const planned = await plan(fleet);
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
          throw new RemoteFailure(`the change was not pushed, so it was not kept: ${pushed}`);
        }
        this.observer.retry?.();
        if (attempt >= this.maxAttempts) {
          throw new BusyFailure(`the remote moved ahead ${attempt} times in a row; nothing was written, try again`);
        }
        await sleep(Math.random() * 20 * attempt);
        await this.fastForward();
      }
    });
  }

  /** Refuses to write over uncommitted edits of the same files in the working copy. */
  private async checkClean(paths: readonly string[]): Promise<void> {
    // Many paths: the whole working copy's status, filtered here (git would match each path against every file).
    const many = paths.length > MANY_PATHS;
    const { stdout } = await this.git.run(["status", "--porcelain", "--untracked-files=all", ...(many ? [] : ["--", ...paths])]);
    const wanted = many ? new Set(paths) : null;
    const files = stdout
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => line.slice(3))
      .filter((file) => wanted === null || wanted.has(file));
    if (files.length > 0) {
      throw new ConflictError(`the working copy has uncommitted changes in ${files.join(", ")}; commit or discard them there first`);
    }
  }

  /**
   * Refuses to write through a symbolic link: a link committed to the repository (a window file, or a
   * directory on its path) could otherwise make the service write or delete a file outside it.
   * Each directory on the paths is looked at once, and each directory's files with one listing (a
   * fleet freeze writes thousands of files in thousands of directories), a few at a time.
   */
  private async checkNoLinks(paths: readonly string[]): Promise<void> {
    const refuse = (path: string): never => {
      throw new ConflictError(`${path} is a symbolic link in the working copy; the service writes only files inside the repository, never through a link`);
    };
    // Whether each directory exists (a link among them refuses the write), its parent looked at first.
    const directories = new Map<string, Promise<boolean>>();
    const exists = (dir: string): Promise<boolean> => {
      let known = directories.get(dir);
      if (known === undefined) {
        const parent = dirname(dir);
        known = (parent === "." ? Promise.resolve(true) : exists(parent)).then(async (above) => {
          if (!above) return false;
          try {
            if ((await lstat(join(this.dir, dir))).isSymbolicLink()) refuse(dir);
            return true;
          } catch (e) {
            if ((e as NodeJS.ErrnoException).code === "ENOENT") return false;
            throw e;
          }
        });
        directories.set(dir, known);
      }
      return known;
    };
    const files = new Map<string, Set<string>>();
    for (const path of paths) {
      const dir = dirname(path);
      files.set(dir, (files.get(dir) ?? new Set()).add(path.slice(dir === "." ? 0 : dir.length + 1)));
    }
    await inPool([...files], WRITE_CONCURRENCY, async ([dir, names]) => {
      if (dir !== "." && !(await exists(dir))) return;
      let entries: Dirent[];
      try {
        entries = await readdir(join(this.dir, dir), { withFileTypes: true });
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === "ENOENT") return;
        throw e;
      }
      for (const entry of entries) if (names.has(entry.name) && entry.isSymbolicLink()) refuse(dir === "." ? entry.name : `${dir}/${entry.name}`);
    });
  }

  private async commit(base: string, planned: PlannedWrite<unknown>, author: Person): Promise<string> {
    const paths = Object.keys(planned.changes);
    try {
      // A few at a time: a fleet freeze writes thousands of files.
      await inPool(Object.entries(planned.changes), WRITE_CONCURRENCY, async ([path, text]) => {
        const file = join(this.dir, path);
        if (text === null) await rm(file, { force: true });
        else {
          await mkdir(dirname(file), { recursive: true });
          await writeFile(file, text);
        }
      });
      const message = commitMessage(planned.subject, planned.reason);
      const identity = { input: message, env: Git.identity(author, this.now()) };
      // Git matches every pathspec against every file of the index: thousands of paths (a fleet
      // freeze of 2,500 clusters: 10,000) cost seconds per command. Then, when nothing else is
      // staged, the paths are staged by name (no matching) and the index is committed as it is,
      // which commits exactly these paths, as `--only` does.
      if (paths.length > MANY_PATHS && (await this.git.run(["diff", "--cached", "--quiet"], { okCodes: [1] })).code === 0) {
        await this.git.run(["update-index", "--add", "--remove", "-z", "--stdin"], { input: paths.map((p) => `${p}\0`).join("") });
        await this.git.run(["commit", "--quiet", "--no-verify", "--file=-"], identity);
      } else {
        await this.git.run(["add", "--all", "--", ...paths]);
        await this.git.run(["commit", "--quiet", "--no-verify", "--file=-", "--only", "--", ...paths], identity);
      }
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
    const tracking = `refs/remotes/origin/${this.branch}`;
    const seen = await this.git.run(["rev-parse", "--verify", "--quiet", `${tracking}^{commit}`], { okCodes: [1] });
    const lastSeen = seen.code === 0 ? seen.stdout.trim() : "";
    // The push goes through only if origin is still where the service last saw it: a force-push that
    // moved origin back would otherwise take this commit, and the dropped ones under it, as a fast-forward.
    // HEAD descends from what was seen, so the lease never forces anything: the push is a fast-forward.
    const descends = lastSeen === "" || (await this.git.run(["merge-base", "--is-ancestor", lastSeen, "HEAD"], { okCodes: [1] })).code === 0;
    const lease = descends ? [`--force-with-lease=refs/heads/${this.branch}:${lastSeen}`] : [];
    const { stdout, stderr, code } = await this.git
      .run(["push", "--porcelain", ...lease, "origin", `HEAD:refs/heads/${this.branch}`], { okCodes: [1] })
      .catch((e: unknown) => {
        if (e instanceof GitError) return { stdout: "", stderr: e.stderr, code: e.exitCode ?? 128 };
        throw e;
      });
    if (code === 0) {
      await this.git.run(["update-ref", tracking, "HEAD"]);
      return "ok";
    }
    const answer = pushAnswer(stdout, stderr);
    if (answer.behind) return "behind";
    this.observer.failure?.("push", `${stderr}${stdout}`);
    // The push never reached origin: the service is not ready until a sync works.
    if (!answer.reachedOrigin) this.lastSyncError = answer.why;
    return answer.why;
  }

  /**
   * Fetches the branch from origin and brings the working copy up to it. Every commit the service
   * makes is pushed or taken back out, so a local head that origin's history does not contain means
   * origin dropped it (a force-push): the working copy is reset to origin, what it held is kept under
   * a backup ref, and the drop is recorded, never pushed back.
   */
  private async fastForward(): Promise<void> {
    const remote = `refs/remotes/origin/${this.branch}`;
    const seen = await this.git.run(["rev-parse", "--verify", "--quiet", `${remote}^{commit}`], { okCodes: [1] });
    const lastSeen = seen.code === 0 ? seen.stdout.trim() : "";
    try {
      await this.git.run(["fetch", "--quiet", "origin", `+refs/heads/${this.branch}:refs/remotes/origin/${this.branch}`]);
    } catch (e) {
      if (e instanceof GitError && /couldn't find remote ref/i.test(e.stderr)) return;
      throw e;
    }
    const head = await this.head();
    const theirs = await this.git.text(["rev-parse", remote]);
    if (head === theirs) return;
    const behind = (await this.git.run(["merge-base", "--is-ancestor", head, theirs], { okCodes: [1] })).code === 0;
    if (behind) {
      await this.git.run(["merge", "--quiet", "--ff-only", theirs]);
    } else {
      const at = this.now();
      const backupRef = `refs/fluxgate/dropped/${refStamp(at)}-${head.slice(0, 12)}`;
      const dropped = (await this.git.text(["rev-list", head, `^${theirs}`])).split("\n").filter((l) => l !== "");
      // Origin had the head when last seen (the service pushed it): it was taken away since.
      const pushed = lastSeen !== "" && (await this.git.run(["merge-base", "--is-ancestor", head, lastSeen], { okCodes: [1] })).code === 0;
      await this.git.run(["update-ref", backupRef, head]);
      await this.git.run(["reset", "--quiet", "--keep", theirs]);
      this.lastReset = { cause: pushed ? "force-push" : "unpushed", at: new Date(at).toISOString(), from: head, to: theirs, dropped, backupRef };
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
