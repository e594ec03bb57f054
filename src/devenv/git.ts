// The local Git server from the client side: create a bare repository and push commits to it over smart HTTP.
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { HarnessError } from "./errors.ts";

const exec = promisify(execFile);

/** Where a control plane started with `flux` serves Git from. */
export interface GitServer {
  readonly gitRoot: string;
  readonly gitUrl: string | undefined;
}

const gitEnv: NodeJS.ProcessEnv = {
  ...process.env,
  GIT_TERMINAL_PROMPT: "0",
  GIT_AUTHOR_NAME: "fluxgate",
  GIT_AUTHOR_EMAIL: "fluxgate@fluxgate.invalid",
  GIT_COMMITTER_NAME: "fluxgate",
  GIT_COMMITTER_EMAIL: "fluxgate@fluxgate.invalid",
};

async function git(args: string[], cwd?: string): Promise<string> {
  try {
    const { stdout } = await exec("git", args, { cwd, env: gitEnv });
    return stdout.trim();
  } catch (err) {
    const stderr = (err as { stderr?: string }).stderr ?? "";
    throw new HarnessError("GitFailed", `git ${args.join(" ")} failed: ${stderr.trim()}`, { cause: err });
  }
}

/** Creates an empty bare repository `<name>.git` (default branch main) and returns its HTTP URL. */
export async function createRepository(server: GitServer, name: string): Promise<string> {
  if (server.gitUrl === undefined) {
    throw new HarnessError("NoGitServer", "the control plane has no Git server; start it with { flux: true }");
  }
  await git(["init", "--quiet", "--bare", "--initial-branch=main", join(server.gitRoot, `${name}.git`)]);
  return `${server.gitUrl}/${name}.git`;
}

/**
 * Clones `repoUrl`, writes `files` (path -> content; null deletes), commits and pushes to `main` over
 * HTTP. Returns the new commit's SHA.
 */
export async function pushCommit(repoUrl: string, files: Readonly<Record<string, string | null>>, message: string): Promise<string> {
  const work = await mkdtemp(join(tmpdir(), "fluxgate-git-"));
  try {
    await git(["clone", "--quiet", repoUrl, work]);
    await git(["checkout", "--quiet", "-B", "main"], work);
    for (const [path, content] of Object.entries(files)) {
      const target = join(work, path);
      if (content === null) {
        await rm(target, { force: true });
      } else {
        await mkdir(dirname(target), { recursive: true });
        await writeFile(target, content);
      }
    }
    await git(["add", "--all"], work);
    await git(["commit", "--quiet", "--allow-empty", "-m", message], work);
    await git(["push", "--quiet", "origin", "HEAD:refs/heads/main"], work);
    return await git(["rev-parse", "HEAD"], work);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** One file a commit changes, as `git diff --numstat` counts it (a binary file counts 0 lines). */
export interface CommitFile {
  readonly path: string;
  readonly added: number;
  readonly removed: number;
}

/** The files of commit `sha` of repository `name` on the Git server against its first parent: `git diff --numstat sha^ sha` on the bare repository. */
export async function commitFiles(server: GitServer, name: string, sha: string): Promise<CommitFile[]> {
  const out = await git(["--git-dir", join(server.gitRoot, `${name}.git`), "diff", "--numstat", `${sha}^`, sha]);
  return out
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => {
      const [added = "", removed = "", ...path] = l.split("\t");
      return { path: path.join("\t"), added: Number(added) || 0, removed: Number(removed) || 0 };
    });
}
