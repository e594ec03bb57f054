// The real kustomize, run as a process: found on the user's machine and run through a bounded pool.

import { execFile } from "node:child_process";
import { access, constants, stat } from "node:fs/promises";
import { availableParallelism, homedir } from "node:os";
import { delimiter, join } from "node:path";
import { builtTool } from "../devenv/tools.ts";
import { RepositoryInputError, ToolFailedError } from "./errors.ts";

/** How to run kustomize: `kustomize build DIR` or `kubectl kustomize DIR`. */
export interface KustomizeCommand {
  file: string;
  /** Arguments before the directory: `["build"]` or `["kustomize"]`. */
  args: readonly string[];
  /** How messages name it: "kustomize" or "kubectl kustomize". */
  label: string;
  /** Where it was found, in words: "named by --kustomize", "named by FLUXGATE_KUSTOMIZE", "on PATH", "built by npm run tools", "kubectl on PATH". */
  origin: string;
}

/** The environment variable that names the kustomize binary (like `--kustomize PATH`). */
export const KUSTOMIZE_ENV = "FLUXGATE_KUSTOMIZE";

const NOT_FOUND = `kustomize was not found: install kustomize (https://kubectl.docs.kubernetes.io/installation/kustomize/) or kubectl, put it on PATH, build it with npm run tools in fluxgate's source, or name it with --kustomize PATH or ${KUSTOMIZE_ENV}=PATH`;

async function executable(file: string): Promise<boolean> {
  try {
    await access(file, constants.X_OK);
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}

async function onPath(name: string, env: NodeJS.ProcessEnv): Promise<string | null> {
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (dir === "") continue;
    const file = join(dir, name);
    if (await executable(file)) return file;
  }
  return null;
}

/**
 * Finds kustomize: the `--kustomize` flag, then `FLUXGATE_KUSTOMIZE`, then `kustomize` on PATH,
 * then the kustomize that `npm run tools` built (the version Flux's kustomize-controller
 * builds with), then `kubectl` on PATH (its built-in `kubectl kustomize`, often older).
 * `builtKustomize` is asked for the cached one (injected, so tests can leave it out).
 */
export async function findKustomize(
  flag: string | undefined,
  env: NodeJS.ProcessEnv,
  builtKustomize: () => Promise<string | null> = cachedKustomize,
): Promise<KustomizeCommand> {
  const named = flag ?? (env[KUSTOMIZE_ENV] === "" ? undefined : env[KUSTOMIZE_ENV]);
  if (named !== undefined) {
    const source = flag !== undefined ? "--kustomize" : KUSTOMIZE_ENV;
    const file = named.includes("/") ? named : await onPath(named, env);
    if (file === null || !(await executable(file))) throw new RepositoryInputError(`${source} ${named}: no executable file there`);
    return /(^|\/)kubectl$/.test(file)
      ? { file, args: ["kustomize"], label: "kubectl kustomize", origin: `named by ${source}` }
      : { file, args: ["build"], label: "kustomize", origin: `named by ${source}` };
  }
  const kustomize = await onPath("kustomize", env);
  if (kustomize !== null) return { file: kustomize, args: ["build"], label: "kustomize", origin: "on PATH" };
  const built = await builtKustomize();
  if (built !== null && (await executable(built))) return { file: built, args: ["build"], label: "kustomize", origin: "built by npm run tools" };
  const kubectl = await onPath("kubectl", env);
  if (kubectl !== null) return { file: kubectl, args: ["kustomize"], label: "kubectl kustomize", origin: "kubectl on PATH" };
  throw new ToolFailedError(NOT_FOUND);
}

async function cachedKustomize(): Promise<string | null> {
  return (await builtTool("kustomize"))?.path ?? null;
}

/**
 * Which kustomize a command used, for its output: `kustomize v5.7.1 (~/.cache/fluxgate/kustomize-v5.7.1/kustomize, built by npm run tools)`.
 * The home directory is written `~`, so the sentence is the same on every machine.
 */
export async function describeKustomize(runner: KustomizeRunner, home: string = homedir()): Promise<string> {
  const c = runner.command;
  const file = home !== "" && c.file.startsWith(`${home}/`) ? `~${c.file.slice(home.length)}` : c.file;
  return `${c.label} ${await runner.version()} (${file}, ${c.origin})`;
}

/** What one build gave: the rendered YAML stream, or kustomize's own message. */
export type BuildResult = { ok: true; output: string } | { ok: false; message: string };

function run(file: string, args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { maxBuffer: 256 * 1024 * 1024, encoding: "utf8" }, (error, stdout, stderr) => {
      if (error !== null && typeof error.code !== "number") {
        reject(new ToolFailedError(`cannot run ${file}: ${error.message}`, { cause: error }));
        return;
      }
      resolve({ code: error === null ? 0 : (error.code as number), stdout, stderr });
    });
  });
}

/** Runs kustomize builds, at most `concurrency` at a time. */
export class KustomizeRunner {
  readonly command: KustomizeCommand;
  private readonly concurrency: number;
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  private versionText: Promise<string> | null = null;
  /** Builds run so far. */
  builds = 0;

  constructor(command: KustomizeCommand, options: { concurrency?: number } = {}) {
    this.command = command;
    this.concurrency = Math.max(1, options.concurrency ?? availableParallelism());
  }

  /** kustomize's version, part of every cache key. */
  version(): Promise<string> {
    this.versionText ??= (async () => {
      const kubectl = this.command.args[0] === "kustomize";
      const result = await run(this.command.file, kubectl ? ["version", "--client"] : ["version"]);
      if (result.code !== 0) throw new ToolFailedError(`${this.command.file} version failed: ${result.stderr.trim()}`);
      const m = kubectl ? /Kustomize Version:\s*(\S+)/.exec(result.stdout) : /(v?\d+\.\d+\.\d+\S*)/.exec(result.stdout);
      return m?.[1] ?? result.stdout.trim();
    })();
    return this.versionText;
  }

  /**
   * Builds `dir` as kustomize-controller does (no load restrictions: a kustomization may use
   * files anywhere in the repository).
   */
  build(dir: string): Promise<BuildResult> {
    return this.limited(async () => {
      this.builds++;
      const r = await run(this.command.file, [...this.command.args, "--load-restrictor", "LoadRestrictionsNone", dir]);
      if (r.code === 0) return { ok: true, output: r.stdout } as const;
      const lines = r.stderr.split("\n").filter((l) => !l.startsWith("# Warning:") && l.trim() !== "");
      const message = lines.join("\n").replace(/^Error: /, "") || `${this.command.label} exited with code ${r.code}`;
      return { ok: false, message } as const;
    });
  }

  private async limited<T>(work: () => Promise<T>): Promise<T> {
    while (this.running >= this.concurrency) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.running++;
    try {
      return await work();
    } finally {
      this.running--;
      this.waiting.shift()?.();
    }
  }
}
