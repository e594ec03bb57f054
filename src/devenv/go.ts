// Finds a Go able to build the tools, or fetches one through an older Go: the Go toolchain is itself a module on the Go module proxy.
import { execFile } from "node:child_process";
import { chmod, mkdir, mkdtemp, readdir, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { PrerequisiteError, ToolBuildError } from "./errors.ts";
import { withLock } from "./lock.ts";
import { cacheRoot, exists } from "./paths.ts";

const execFileAsync = promisify(execFile);

/** Oldest Go able to build the pinned tools (the Flux controllers' go.mod says go 1.25.0). */
export const MINIMUM_GO_MINOR = 25;
/** The Go fetched when the one on PATH is older (or GOTOOLCHAIN-less): the newest 1.25 patch release when pinned. */
export const BOOTSTRAP_GO_VERSION = "1.25.14";

/** A `go` command to run the builds with, and the environment it needs (GOROOT for a fetched toolchain). */
export interface GoCommand {
  readonly path: string;
  /** e.g. go1.25.14 */
  readonly version: string;
  readonly env: Readonly<Record<string, string>>;
  /** Where it came from, for the tools' summary: "PATH" or the cache directory. */
  readonly origin: string;
}

/** The `GOVERSION` of a go binary, or undefined when it cannot be run. */
async function goVersion(path: string, env: Record<string, string> = {}): Promise<string | undefined> {
  try {
    const { stdout } = await execFileAsync(path, ["env", "GOVERSION"], { env: { ...process.env, ...env, GOTOOLCHAIN: "local" }, encoding: "utf8" });
    const version = stdout.trim();
    return version === "" ? undefined : version;
  } catch {
    return undefined;
  }
}

/** The minor version of a `go1.N[.P]` string, NaN when it is none. */
export function goMinor(version: string): number {
  const match = /^go1\.(\d+)/.exec(version);
  return match?.[1] === undefined ? NaN : Number(match[1]);
}

/** The toolchain module's platform suffix (linux-amd64, darwin-arm64, ...). */
function platform(): string {
  const arch: Record<string, string> = {
    x64: "amd64",
    arm64: "arm64",
    arm: "armv6l",
    ia32: "386",
    ppc64: "ppc64le",
    s390x: "s390x",
    riscv64: "riscv64",
    loong64: "loong64",
  };
  const goarch = arch[process.arch];
  if (goarch === undefined || (process.platform !== "linux" && process.platform !== "darwin")) {
    throw new PrerequisiteError(
      `no Go toolchain is published for ${process.platform}/${process.arch}; install Go 1.${MINIMUM_GO_MINOR} or newer yourself and put it first on PATH`,
    );
  }
  return `${process.platform}-${goarch}`;
}

/** Where a fetched toolchain lives: `<cache>/go-<version>-<platform>`, a complete GOROOT. */
export function bootstrapDir(version: string = BOOTSTRAP_GO_VERSION): string {
  return join(cacheRoot(), `go-${version}-${platform()}`);
}

function fromCache(dir: string, version: string): GoCommand {
  return { path: join(dir, "bin", "go"), version, env: { GOROOT: dir }, origin: dir };
}

/**
 * Returns a Go of at least 1.MINIMUM_GO_MINOR: the `go` on PATH when it is new enough, else the
 * toolchain fetched before, else fetches BOOTSTRAP_GO_VERSION with the old `go` (`go mod download
 * golang.org/toolchain@v0.0.1-go<version>.<platform>`, checked against the Go checksum database as
 * any module) into the cache. Without any Go, says how to get one.
 */
export async function ensureGo(log: (line: string) => void): Promise<GoCommand> {
  const onPath = await goVersion("go");
  if (onPath !== undefined && goMinor(onPath) >= MINIMUM_GO_MINOR) return { path: "go", version: onPath, env: {}, origin: "PATH" };

  const dir = bootstrapDir();
  const wanted = `go${BOOTSTRAP_GO_VERSION}`;
  const cached = async (): Promise<boolean> => (await exists(join(dir, ".complete"))) && (await goVersion(join(dir, "bin", "go"), { GOROOT: dir })) === wanted;
  if (await cached()) return fromCache(dir, wanted);
  if (onPath === undefined) {
    throw new PrerequisiteError(
      `\`go\` was not found on PATH. The local control plane (fluxgate demo, the tests) builds kube-apiserver, etcd and the Flux controllers from their Go modules with Go 1.${MINIMUM_GO_MINOR} or newer. ` +
        `Any Go will do to start: with one on PATH (Debian/Ubuntu: \`apt-get install golang-go\`), fluxgate fetches Go ${BOOTSTRAP_GO_VERSION} through the Go module proxy into ${dir} by itself. ` +
        "Or install a current Go (https://go.dev/doc/install) and put it first on PATH.",
    );
  }

  await mkdir(cacheRoot(), { recursive: true });
  await withLock(`${dir}.lock`, async () => {
    if (await cached()) return;
    const module = `golang.org/toolchain@v0.0.1-${wanted}.${platform()}`;
    log(
      `Go on PATH is ${onPath}; the tools need Go 1.${MINIMUM_GO_MINOR} or newer: fetching ${module} through the Go module proxy (about 65 MB, once) into ${dir}`,
    );
    const started = Date.now();
    // A module cache of its own, writable, next to the destination (same file system: the module directory is moved, not copied).
    const work = await mkdtemp(join(cacheRoot(), ".go-fetch-"));
    try {
      let stdout: string;
      try {
        ({ stdout } = await execFileAsync("go", ["mod", "download", "-json", module], {
          cwd: work,
          env: { ...process.env, GOMODCACHE: join(work, "mod"), GOFLAGS: "-modcacherw", GOTOOLCHAIN: "local", GO111MODULE: "on" },
          encoding: "utf8",
          maxBuffer: 16 * 1024 * 1024,
        }));
      } catch (err) {
        const out = err as { stdout?: string; stderr?: string; message: string };
        // `go mod download -json` reports a failure in its JSON output's Error field.
        const reported = /"Error":\s*"([^"]*)"/.exec(out.stdout ?? "")?.[1];
        throw new ToolBuildError(`could not fetch ${module} with ${onPath}: ${reported ?? ((out.stderr ?? "").trim() || out.message)}`, { cause: err });
      }
      const downloaded = (JSON.parse(stdout) as { Dir?: string }).Dir;
      if (downloaded === undefined) throw new ToolBuildError(`go mod download did not report a directory for ${module}`);
      await rm(dir, { recursive: true, force: true });
      await rename(downloaded, dir);
      // A module zip keeps no file modes: the commands need their execute bit back (as Go's own toolchain switch does).
      const toolDirs = (await readdir(join(dir, "pkg", "tool"))).map((d) => join(dir, "pkg", "tool", d));
      for (const folder of [join(dir, "bin"), ...toolDirs]) {
        for (const file of await readdir(folder)) await chmod(join(folder, file), 0o755);
      }
      const version = await goVersion(join(dir, "bin", "go"), { GOROOT: dir });
      if (version !== wanted) throw new ToolBuildError(`the fetched toolchain in ${dir} reports ${version ?? "no version"}, not ${wanted}`);
      await writeFile(join(dir, ".complete"), `${module} fetched with ${onPath} at ${new Date().toISOString()}\n`);
      log(`fetched Go ${BOOTSTRAP_GO_VERSION} in ${Math.round((Date.now() - started) / 1000)}s`);
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  });
  return fromCache(dir, wanted);
}
