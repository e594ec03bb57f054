// Checks for the programs the harness cannot build itself (go, git) and fails loudly without them.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { PrerequisiteError } from "./errors.ts";

/** Oldest Go able to build the pinned Flux controllers (their go.mod says go 1.25.0). */
const minimumGoMinor = 25;

function run(command: string, args: string[]): string | undefined {
  try {
    return execFileSync(command, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
  } catch {
    return undefined;
  }
}

/** Returns the Go version string, or throws a PrerequisiteError saying how to get Go. */
export function requireGo(): string {
  const out = run("go", ["env", "GOVERSION"]);
  if (out === undefined) {
    throw new PrerequisiteError(
      "`go` was not found on PATH. The local control plane (fluxgate demo, the tests) builds kube-apiserver, etcd and the Flux controllers " +
        `from their Go modules and needs Go 1.${minimumGoMinor} or newer: install it (https://go.dev/doc/install) ` +
        "and put its bin directory on PATH.",
    );
  }
  const match = /^go1\.(\d+)/.exec(out);
  const minor = match?.[1] === undefined ? NaN : Number(match[1]);
  if (!(minor >= minimumGoMinor)) {
    throw new PrerequisiteError(
      `Go 1.${minimumGoMinor} or newer is needed to build the local control plane, found ${out}. Install a newer Go ` +
        "(https://go.dev/doc/install) and put it first on PATH.",
    );
  }
  return out;
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
