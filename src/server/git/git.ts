// The real `git` binary, run with argument arrays (never a shell) in one working copy.

import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { Failure } from "../../errors.ts";

/** A git command failed; `stderr` says why. */
export class GitError extends Failure {
  readonly args: readonly string[];
  readonly stderr: string;
  readonly exitCode: number | null;

  constructor(args: readonly string[], stderr: string, exitCode: number | null, options?: { cause?: unknown }) {
    super(`git ${args.join(" ")} failed${exitCode === null ? "" : ` (exit ${exitCode})`}: ${stderr.trim() || "no message"}`, {
      reason: "GitFailed",
      cause: options?.cause,
    });
    this.args = args;
    this.stderr = stderr;
    this.exitCode = exitCode;
  }
}

/** Who a commit is by. */
export interface Person {
  name: string;
  email: string;
}

/** The committer of every commit the service makes; the author is the caller. */
export const COMMITTER: Person = { name: "fluxgate serve", email: "serve@fluxgate.invalid" };

export interface RunOptions {
  /** Written to git's standard input. */
  input?: string;
  /** Extra environment, e.g. the author of a commit. */
  env?: Record<string, string>;
  /** Exit codes that are answers, not failures (e.g. 1 for `diff --quiet`). */
  okCodes?: readonly number[];
}

/** Runs git in one directory. No argument ever passes through a shell. */
export class Git {
  readonly dir: string;

  constructor(dir: string) {
    this.dir = dir;
  }

  /** Runs `git args...` and returns stdout and the exit code; throws GitError on other exit codes. */
  async run(args: readonly string[], options: RunOptions = {}): Promise<{ stdout: string; stderr: string; code: number }> {
    const { stdout, stderr, code } = await this.runGit(args, options);
    return { stdout: stdout.toString("utf8"), stderr, code };
  }

  /** stdout of `git args...` as bytes: for file contents, whose byte counts must not change by decoding. */
  async bytes(args: readonly string[], options: RunOptions = {}): Promise<Buffer> {
    return (await this.runGit(args, options)).stdout;
  }

  private runGit(args: readonly string[], options: RunOptions): Promise<{ stdout: Buffer; stderr: string; code: number }> {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      GIT_TERMINAL_PROMPT: "0",
      GIT_EDITOR: "true",
      GIT_CONFIG_NOSYSTEM: "1",
      LC_ALL: "C",
      ...options.env,
    };
    // Settings a user's configuration could otherwise impose on the service's commits.
    const fixed = ["-c", "commit.gpgSign=false", "-c", "core.hooksPath=/dev/null", "-c", "core.quotePath=false"];
    return new Promise((resolve, reject) => {
      const child = execFile("git", [...fixed, ...args], { cwd: this.dir, env, maxBuffer: 64 * 1024 * 1024, encoding: "buffer" }, (error, stdout, stderr) => {
        if (error === null) return resolve({ stdout, stderr: stderr.toString("utf8"), code: 0 });
        const code = typeof error.code === "number" ? error.code : null;
        if (code !== null && options.okCodes?.includes(code) === true) return resolve({ stdout, stderr: stderr.toString("utf8"), code });
        if ((error as NodeJS.ErrnoException).code === "ENOENT") {
          // Node says ENOENT for a missing working directory as for a missing program.
          if (!existsSync(this.dir)) return reject(new GitError(args, `the folder ${this.dir} does not exist`, null, { cause: error }));
          return reject(new GitError(args, "the git program was not found; install git (Debian: apt-get install git)", null, { cause: error }));
        }
        reject(new GitError(args, stderr.toString("utf8"), code, { cause: error }));
      });
      if (options.input !== undefined) child.stdin?.end(options.input);
    });
  }

  /** stdout of `git args...`, trimmed. */
  async text(args: readonly string[], options: RunOptions = {}): Promise<string> {
    return (await this.run(args, options)).stdout.trim();
  }

  /** Environment that makes `author` the author and the service the committer. */
  static identity(author: Person, now: number): Record<string, string> {
    const date = `${Math.floor(now / 1000)} +0000`;
    return { GIT_AUTHOR_NAME: author.name, GIT_AUTHOR_EMAIL: author.email, GIT_AUTHOR_DATE: date, ...Git.committer(now) };
  }

  /** Environment that makes the service the committer (authors of replayed commits stay theirs). */
  static committer(now: number): Record<string, string> {
    return { GIT_COMMITTER_NAME: COMMITTER.name, GIT_COMMITTER_EMAIL: COMMITTER.email, GIT_COMMITTER_DATE: `${Math.floor(now / 1000)} +0000` };
  }
}
