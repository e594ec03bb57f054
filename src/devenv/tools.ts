// Builds the upstream tools (kube-apiserver, etcd, Flux controllers, kustomize, controller-gen, the cron oracle) from pinned Go modules, once, into a cache.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFile, mkdir, readFile, readdir, rename, rm, writeFile } from "node:fs/promises";
import { delimiter, dirname, isAbsolute, join } from "node:path";
import { ToolBuildError } from "./errors.ts";
import { withLock } from "./lock.ts";
import { cacheRoot, exists, toolsModulesDir } from "./paths.ts";
import { ensureGo, type GoCommand } from "./go.ts";

/** The tools the local control plane (and the tests) build. */
export type ToolName =
  | "kube-apiserver"
  | "etcd"
  | "source-controller"
  | "kustomize-controller"
  | "helm-controller"
  | "notification-controller"
  | "kustomize"
  | "controller-gen"
  | "cron-oracle";

interface ToolSpec {
  readonly name: ToolName;
  /** The Go module whose version (read from our tools go.mod) keys the cache. */
  readonly module: string;
  /** The main package to build. */
  readonly pkg: string;
  /** Measured cold build time on 2 cores, in seconds (docs/development.md), shown before and while building. */
  readonly expectedSeconds: number;
  /** The files of the tools module whose content keys the build (a module with its own code lists it). */
  readonly files?: readonly string[];
  /** The folder of its tools module under tools/, when it shares one with other tools (else its name). */
  readonly dir?: string;
}

/**
 * kube-apiserver and the two Flux controllers the demo runs share one tools module: one version of every module they have in
 * common (client-go, grpc, protobuf…), so a package the first build compiled is the next build's cache hit. From an empty build
 * cache, one after the other: 197, 98 and 19 s, against 211 (with its module download), 172 and 96 s with a module each (docs/development.md).
 */
const CONTROL_PLANE_MODULE = "control-plane";

/** In build order: what the control plane needs first. */
const specs: readonly ToolSpec[] = [
  { name: "kube-apiserver", module: "k8s.io/kubernetes", pkg: "k8s.io/kubernetes/cmd/kube-apiserver", expectedSeconds: 200, dir: CONTROL_PLANE_MODULE },
  { name: "etcd", module: "go.etcd.io/etcd/server/v3", pkg: "go.etcd.io/etcd/server/v3", expectedSeconds: 20 },
  {
    name: "source-controller",
    module: "github.com/fluxcd/source-controller",
    pkg: "github.com/fluxcd/source-controller",
    // After kube-apiserver, whose packages it shares (172 s with a module of its own).
    expectedSeconds: 100,
    dir: CONTROL_PLANE_MODULE,
  },
  {
    name: "kustomize-controller",
    module: "github.com/fluxcd/kustomize-controller",
    pkg: "github.com/fluxcd/kustomize-controller",
    // After source-controller, whose packages it shares (96 s with a module of its own).
    expectedSeconds: 20,
    dir: CONTROL_PLANE_MODULE,
  },
  {
    name: "helm-controller",
    module: "github.com/fluxcd/helm-controller",
    pkg: "github.com/fluxcd/helm-controller",
    expectedSeconds: 170,
  },
  {
    name: "notification-controller",
    module: "github.com/fluxcd/notification-controller",
    pkg: "github.com/fluxcd/notification-controller",
    expectedSeconds: 150,
  },
  { name: "kustomize", module: "sigs.k8s.io/kustomize/kustomize/v5", pkg: "sigs.k8s.io/kustomize/kustomize/v5", expectedSeconds: 10 },
  // Writes the ImageUpdateAutomation CRD from the image-automation-controller API module (ensureImageAutomationCrd).
  { name: "controller-gen", module: "sigs.k8s.io/controller-tools", pkg: "sigs.k8s.io/controller-tools/cmd/controller-gen", expectedSeconds: 70 },
  // Our own small program over robfig/cron (the CronJob controller's library): the tests' reference for cron.
  { name: "cron-oracle", module: "github.com/robfig/cron/v3", pkg: ".", expectedSeconds: 10, files: ["go.mod", "go.sum", "main.go"] },
];

/** The tools the control plane alone needs. */
export const controlPlaneTools: readonly ToolName[] = ["kube-apiserver", "etcd"];
/** The tools `--flux` adds (notification-controller unless the control plane is started without it). */
export const fluxTools: readonly ToolName[] = ["source-controller", "kustomize-controller", "helm-controller", "notification-controller"];
/** Every tool. */
export const allTools: readonly ToolName[] = specs.map((s) => s.name);

/** A built tool: where its binary is and which version it is. */
export interface Tool {
  readonly name: ToolName;
  readonly version: string;
  readonly path: string;
}

function spec(name: ToolName): ToolSpec {
  const found = specs.find((s) => s.name === name);
  if (found === undefined) throw new ToolBuildError(`unknown tool ${name}`);
  return found;
}

function moduleDir(name: ToolName): string {
  return join(toolsModulesDir, spec(name).dir ?? name);
}

/** The version of `module` that the tools module of `name` requires. */
async function pinnedVersion(name: ToolName, module: string): Promise<string> {
  const goMod = await readFile(join(moduleDir(name), "go.mod"), "utf8");
  const escaped = module.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  const match = new RegExp(`^\\s*(?:require\\s+)?${escaped}\\s+(v\\S+)`, "m").exec(goMod);
  if (match?.[1] === undefined) {
    throw new ToolBuildError(`${join(moduleDir(name), "go.mod")} does not require ${module}; fix the tools module`);
  }
  return match[1];
}

/** A digest of the tools module, so that editing go.mod/go.sum rebuilds even at the same version. */
async function moduleDigest(name: ToolName): Promise<string> {
  const hash = createHash("sha256");
  for (const file of spec(name).files ?? ["go.mod", "go.sum", "tools.go"]) hash.update(await readFile(join(moduleDir(name), file)));
  return hash.digest("hex").slice(0, 16);
}

function formatSeconds(ms: number): string {
  const s = Math.round(ms / 1000);
  return s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s` : `${s}s`;
}

/** Runs `go` in the tools module of `name`; rejects with the tail of its output on failure. */
function runGo(go: GoCommand, name: ToolName, args: string[], log: (line: string) => void, label: string): Promise<string> {
  return runInModule(go, name, go.path, args, log, label);
}

/**
 * Small binaries without debug information: the linker strips it (`-s -w`), and the compiler makes
 * none to strip (`-dwarf=false`; the code is the same). The second cut kustomize-controller's build
 * from an empty build cache from 142 s to 121–128 s (220 → 188–197 s of CPU).
 */
const BUILD_FLAGS = ["-ldflags=-s -w", "-gcflags=all=-dwarf=false"];

/**
 * Runs `command` in the tools module of `name` with the environment of the builds (a program that
 * calls `go` itself, as controller-gen does, finds the same Go first on PATH).
 */
function runInModule(go: GoCommand, name: ToolName, command: string, args: string[], log: (line: string) => void, label: string): Promise<string> {
  const path = isAbsolute(go.path) ? `${dirname(go.path)}${delimiter}${process.env["PATH"] ?? ""}` : (process.env["PATH"] ?? "");
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, {
      cwd: moduleDir(name),
      env: {
        ...process.env,
        ...go.env,
        PATH: path,
        // Static, reproducible, small binaries; never fetch another Go toolchain behind the user's back.
        CGO_ENABLED: "0",
        GOTOOLCHAIN: "local",
        GOFLAGS: "-trimpath -mod=readonly",
        // The compiler collects garbage less often: a sixth to a fifth less CPU for more memory. From
        // an empty build cache: kube-apiserver 366 → 308 s of CPU, 0.5 → 1.9 GB at most; etcd 73 → 59 s,
        // 0.29 → 0.37 GB. A GOGC of the user's wins.
        GOGC: process.env["GOGC"] ?? "400",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const started = Date.now();
    const heartbeat = setInterval(() => log(`  still ${label} (${formatSeconds(Date.now() - started)})`), 30_000);
    child.on("error", (err) => {
      clearInterval(heartbeat);
      reject(new ToolBuildError(`could not run ${command} for ${name}: ${err.message}`, { cause: err }));
    });
    child.on("close", (code) => {
      clearInterval(heartbeat);
      if (code === 0) {
        resolvePromise(stdout);
        return;
      }
      const tail = output.trim().split("\n").slice(-30).join("\n");
      reject(new ToolBuildError(`${command === go.path ? "go" : command} ${args.join(" ")} failed for ${name} (exit ${String(code)}):\n${tail}`));
    });
  });
}

interface Stamp {
  readonly version: string;
  readonly digest: string;
  readonly seconds: number;
}

async function readStamp(dir: string): Promise<Stamp | undefined> {
  try {
    return JSON.parse(await readFile(join(dir, "build.json"), "utf8")) as Stamp;
  } catch {
    return undefined;
  }
}

/** Where a tool's binary goes, and whether the one there is current. */
interface Planned {
  readonly tool: Tool;
  readonly spec: ToolSpec;
  readonly dir: string;
  readonly digest: string;
  readonly fresh: () => Promise<boolean>;
}

async function planTool(name: ToolName): Promise<Planned> {
  const s = spec(name);
  const version = await pinnedVersion(name, s.module);
  const dir = join(cacheRoot(), `${name}-${version}`);
  const path = join(dir, name);
  const digest = await moduleDigest(name);
  return { tool: { name, version, path }, spec: s, dir, digest, fresh: async () => (await exists(path)) && (await readStamp(dir))?.digest === digest };
}

/**
 * The cached binary of `name` at its pinned version when `npm run tools` has built it, else
 * null; never builds (for commands that only use a tool when it is there).
 */
export async function builtTool(name: ToolName): Promise<Tool | null> {
  const s = spec(name);
  let version: string;
  try {
    version = await pinnedVersion(name, s.module);
  } catch {
    return null; // an installed package without its tools modules
  }
  const path = join(cacheRoot(), `${name}-${version}`, name);
  return (await exists(path)) ? { name, version, path } : null;
}

/** Returns the cached binary of `name`, building it first if it is missing or stale. */
export async function ensureTool(name: ToolName, log: (line: string) => void = defaultLog): Promise<Tool> {
  return (await ensureTools([name], log))[name];
}

function formatEstimate(seconds: number): string {
  return seconds < 90 ? `${Math.max(10, Math.round(seconds / 10) * 10)} s` : `${Math.round(seconds / 60)} min`;
}

/**
 * Builds every tool in `names` that is missing, one at a time (a build uses both cores and GBs of
 * memory), and says up front what it will build and for about how long. The module downloads are
 * network-bound: each runs ahead, while the builds before it use the cores.
 */
export async function ensureTools(names: readonly ToolName[] = allTools, log: (line: string) => void = defaultLog): Promise<Record<ToolName, Tool>> {
  const result: Partial<Record<ToolName, Tool>> = {};
  const missing: Planned[] = [];
  for (const name of names) {
    const planned = await planTool(name);
    if (await planned.fresh()) result[name] = planned.tool;
    else missing.push(planned);
  }
  if (missing.length > 0) {
    const go = await ensureGo(log);
    let left = missing.reduce((sum, p) => sum + p.spec.expectedSeconds, 0);
    log(
      `not cached yet: building ${missing.map((p) => `${p.tool.name} (~${formatEstimate(p.spec.expectedSeconds)})`).join(", ")} from Go modules with ${go.version}, ` +
        `about ${formatEstimate(left)} on 2 cores in all; cached in ${cacheRoot()} for later runs`,
    );
    // One download after the other, started now, one a tools module; a build waits only for its own.
    let chain: Promise<unknown> = Promise.resolve();
    const byModule = new Map<string, Promise<string>>();
    const downloads = missing.map((p) => {
      const dir = moduleDir(p.tool.name);
      let done = byModule.get(dir);
      if (done === undefined) {
        const names = missing.filter((q) => moduleDir(q.tool.name) === dir).map((q) => q.tool.name);
        done = chain.then(() => runGo(go, p.tool.name, ["mod", "download"], log, `downloading modules for ${names.join(", ")}`));
        byModule.set(dir, done);
        chain = done.catch(() => undefined);
      }
      return done;
    });
    // Awaited below in order; a failure is reported there, not as an unhandled rejection meanwhile.
    for (const d of downloads) d.catch(() => undefined);
    const started = Date.now();
    for (const [i, p] of missing.entries()) {
      await mkdir(p.dir, { recursive: true });
      await withLock(join(p.dir, ".lock"), async () => {
        if (await p.fresh()) return; // another process built it while we waited
        log(
          `[${i + 1}/${missing.length}] building ${p.tool.name} ${p.tool.version} (~${formatEstimate(p.spec.expectedSeconds)}; ~${formatEstimate(left)} left in all)`,
        );
        const began = Date.now();
        await downloads[i];
        const tmp = `${p.tool.path}.tmp-${process.pid}`;
        await runGo(go, p.tool.name, ["build", ...BUILD_FLAGS, "-o", tmp, p.spec.pkg], log, `building ${p.tool.name}`);
        await rename(tmp, p.tool.path);
        const seconds = Math.round((Date.now() - began) / 1000);
        await writeFile(join(p.dir, "build.json"), JSON.stringify({ version: p.tool.version, digest: p.digest, seconds } satisfies Stamp, null, 2) + "\n");
        log(`built ${p.tool.name} ${p.tool.version} in ${formatSeconds(seconds * 1000)} (${formatSeconds(Date.now() - started)} so far)`);
      });
      left -= p.spec.expectedSeconds;
      result[p.tool.name] = p.tool;
    }
  }
  return result as Record<ToolName, Tool>;
}

/** The controllers whose `config/crd/bases` hold the Flux CRDs we install. */
const crdSources: readonly ToolName[] = ["source-controller", "kustomize-controller", "helm-controller", "notification-controller"];

/**
 * Copies the Flux CRDs from the pinned controller modules into the cache and returns their paths
 * (GitRepository, OCIRepository, HelmRepository, HelmChart, Bucket, ExternalArtifact, Kustomization,
 * HelmRelease, Alert, Provider, Receiver).
 */
export async function ensureFluxCrds(log: (line: string) => void = defaultLog): Promise<string[]> {
  const versions = await Promise.all(crdSources.map(async (n) => `${n}-${await pinnedVersion(n, spec(n).module)}`));
  const dir = join(cacheRoot(), `flux-crds_${versions.join("_")}`);
  const done = join(dir, ".complete");
  if (!(await exists(done))) {
    await mkdir(dir, { recursive: true });
    await withLock(join(dir, ".lock"), async () => {
      if (await exists(done)) return;
      const go = await ensureGo(log);
      log(`extracting Flux CRDs from ${versions.join(", ")}`);
      for (const name of crdSources) {
        const module = spec(name).module;
        const version = await pinnedVersion(name, module);
        const out = await runGo(go, name, ["mod", "download", "-json", `${module}@${version}`], log, `downloading ${module}`);
        const moduleRoot = (JSON.parse(out) as { Dir?: string }).Dir;
        if (moduleRoot === undefined) throw new ToolBuildError(`go mod download did not report a directory for ${module}`);
        const bases = join(moduleRoot, "config", "crd", "bases");
        for (const file of await readdir(bases)) {
          if (!file.endsWith(".yaml")) continue;
          // Files in the Go module cache are read-only, and so are their copies: replace, don't overwrite.
          await rm(join(dir, file), { force: true });
          await copyFile(join(bases, file), join(dir, file));
        }
      }
      await writeFile(done, new Date().toISOString() + "\n");
    });
  }
  const files = (await readdir(dir)).filter((f) => f.endsWith(".yaml")).sort();
  return files.map((f) => join(dir, f));
}

/** The module of ImageUpdateAutomation's Go types: the one part of image-automation-controller the Go module proxy serves. */
const imageAutomationApi = "github.com/fluxcd/image-automation-controller/api";
/** The file controller-gen writes for the group and plural, as in image-automation-controller's `config/crd/bases`. */
const imageAutomationCrdFile = "image.toolkit.fluxcd.io_imageupdateautomations.yaml";

/** Where the ImageUpdateAutomation CRD of the pinned API module and controller-gen versions is cached. */
async function imageAutomationCrdPath(): Promise<string> {
  const api = await pinnedVersion("controller-gen", imageAutomationApi);
  const gen = await pinnedVersion("controller-gen", spec("controller-gen").module);
  return join(cacheRoot(), `image-automation-crd_api-${api}_controller-gen-${gen}`, imageAutomationCrdFile);
}

/**
 * The ImageUpdateAutomation CRD when `npm run tools` has generated it, else null; never builds (for
 * tests that must fail, not build, when it is missing).
 */
export async function builtImageAutomationCrd(): Promise<string | null> {
  let path: string;
  try {
    path = await imageAutomationCrdPath();
  } catch {
    return null; // an installed package without its tools modules
  }
  return (await exists(join(dirname(path), ".complete"))) ? path : null;
}

/**
 * Generates the ImageUpdateAutomation CRD into the cache (once) and returns its path. The
 * image-automation-controller module itself is not served by the Go module proxy (403 for every
 * version), so neither its binary nor its `config/crd/bases` can be had; its `api` module is served,
 * and controller-gen writes the CRD from those Go types as the controller's own Makefile does
 * (`controller-gen crd:crdVersions=v1 paths=./...` in `api/`).
 */
export async function ensureImageAutomationCrd(log: (line: string) => void = defaultLog): Promise<string> {
  const path = await imageAutomationCrdPath();
  const dir = dirname(path);
  const done = join(dir, ".complete");
  if (!(await exists(done))) {
    const controllerGen = await ensureTool("controller-gen", log);
    await mkdir(dir, { recursive: true });
    await withLock(join(dir, ".lock"), async () => {
      if (await exists(done)) return;
      const go = await ensureGo(log);
      const api = await pinnedVersion("controller-gen", imageAutomationApi);
      log(`generating the ImageUpdateAutomation CRD from ${imageAutomationApi} ${api} with controller-gen ${controllerGen.version}`);
      const out = join(dir, "out");
      await rm(out, { recursive: true, force: true });
      await runInModule(
        go,
        "controller-gen",
        controllerGen.path,
        ["crd:crdVersions=v1", `paths=${imageAutomationApi}/...`, `output:crd:dir=${out}`],
        log,
        "generating the ImageUpdateAutomation CRD",
      );
      if (!(await exists(join(out, imageAutomationCrdFile)))) {
        throw new ToolBuildError(
          `controller-gen wrote no ${imageAutomationCrdFile} from ${imageAutomationApi} ${api} (found: ${(await readdir(out)).join(", ") || "nothing"})`,
        );
      }
      await rename(join(out, imageAutomationCrdFile), path);
      await rm(out, { recursive: true, force: true });
      await writeFile(done, new Date().toISOString() + "\n");
    });
  }
  return path;
}

function defaultLog(line: string): void {
  process.stderr.write(`[fluxgate tools] ${line}\n`);
}
