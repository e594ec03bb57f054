// Checks for the programs the harness cannot build itself (git; Go is found or fetched by go.ts) and fails loudly without them.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { PrerequisiteError } from "./errors.ts";

function run(command: string, args: string[]): string | undefined {
  try {
    return execFileSync(command, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
  } catch {
    return undefined;
  }
}

/** Returns the path of `git-http-backend`, or throws a PrerequisiteError saying how to get git. */
export function requireGit(): string {
  const execPath = run("git", ["--exec-path"]);
  if (execPath === undefined) {
    throw new PrerequisiteError(
      "`git` was not found on PATH. The local control plane needs git for its Git server and for pushing commits: " +
        "install it (Debian/Ubuntu: `apt-get install git`).",
    );
  }
  const backend = join(execPath, "git-http-backend");
  if (!existsSync(backend)) {
    throw new PrerequisiteError(
      `git is installed but ${backend} is missing; the local Git server needs git's http-backend. ` +
        "Install the full git package (Debian/Ubuntu: `apt-get install git`).",
    );
  }
  return backend;
}
