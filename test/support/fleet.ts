// A generated fleet with fleet windows (src/devenv/generated-fleet.ts) committed in a real Git repository, a kustomize runner on the tool the harness builds,
// and the fleet served from a clone of a real bare remote.

import { mkdir, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { generatedFleetFiles } from "../../src/devenv/generated-fleet.ts";
import { ensureTool } from "../../src/devenv/tools.ts";
import { KustomizeRunner } from "../../src/gitops/kustomize.ts";
import type { Fleet } from "../../src/server/model/model.ts";
import { startService, type RunningService } from "../../src/server/server.ts";
import { bareRemoteWithClone, git, tempDir, testServiceOptions, writeTokens, type Tokens } from "./server.ts";

/** Writes a generated fleet of `clusters` clusters into `dir` and commits it (fixed dates: the same commit at every run). */
export async function writeGeneratedFleet(dir: string, clusters: number): Promise<void> {
  for (const [path, text] of generatedFleetFiles(clusters, { windows: "fleet" })) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  await git(dir, "init", "--quiet", "--initial-branch=main");
  await git(dir, "add", "--all");
  await git(dir, "commit", "--quiet", "-m", "Generated fleet");
}

/** A runner of the real kustomize (built by npm run tools when missing), and its path. */
export async function kustomizeRunner(): Promise<{ runner: KustomizeRunner; path: string }> {
  const path = (await ensureTool("kustomize")).path;
  return { runner: new KustomizeRunner({ file: path, args: ["build"], label: "kustomize", origin: "test" }), path };
}

/** A generated fleet served from a working copy that pushes to a bare remote, rendered by the real kustomize. */
export interface ServedFleet {
  service: RunningService;
  tokens: Tokens;
  /** The service's working copy and the bare remote it pushes to. */
  work: string;
  remote: string;
  /** The kustomize binary the service renders with. */
  kustomize: string;
  /** A request with a token (the editor's unless given); the answer as JSON, or as text when it is not JSON. */
  call(method: string, path: string, options?: { body?: unknown; token?: string }): Promise<{ status: number; body: any; text: string; headers: Headers }>;
  /** HEAD of the working copy and of the remote, and the working copy's status. */
  state(): Promise<{ head: string; remote: string; status: string }>;
  close(): Promise<void>;
}

/** Serves a generated fleet of `clusters` clusters (at NOW) from a clone of a bare remote, with the real kustomize. */
export async function serveGeneratedFleet(prefix: string, clusters: number): Promise<ServedFleet> {
  const { dir: root, cleanup } = await tempDir(prefix);
  const tool = await kustomizeRunner();
  const seed = join(root, "seed");
  await mkdir(seed);
  await writeGeneratedFleet(seed, clusters);
  const { remote, work } = await bareRemoteWithClone(root, seed);
  const tokens = await writeTokens(root);
  const service = await startService(testServiceOptions(work, tokens.file, { rateLimit: { burst: 1000, perSecond: 1000 }, kustomize: tool.runner }));
  return {
    service,
    tokens,
    work,
    remote,
    kustomize: tool.path,
    async call(method, path, options = {}) {
      const response = await fetch(`${service.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${options.token ?? tokens.editor}`, ...(options.body === undefined ? {} : { "content-type": "application/json" }) },
        ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
      });
      const text = await response.text();
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = null; // not JSON: a calendar, metrics
      }
      return { status: response.status, body, text, headers: response.headers };
    },
    state: async () => ({
      head: await git(work, "rev-parse", "HEAD"),
      remote: await git(remote, "rev-parse", "main"),
      status: await git(work, "status", "--porcelain", "--untracked-files=all"),
    }),
    async close() {
      await service.close();
      await cleanup();
    },
  };
}

/** Everything a reader of the fleet sees, as plain data (to compare a fleet read from a commit's changes with the commit read in full). */
export function fleetView(fleet: Fleet): unknown {
  return {
    commit: fleet.commit,
    repository: fleet.repository,
    fleetFiles: [...fleet.fleetFiles.values()].map((f) => [f.path, f.blob, f.text]),
    files: [...fleet.files].map(([name, files]) => [name, files.map((f) => [f.path, f.blob, f.text])]),
    clusters: fleet.clusters.map((k) => ({
      entry: k.entry,
      kustomization: k.kustomization === null ? null : [k.kustomization.path, k.kustomization.blob, k.kustomization.text],
      fleetError: k.fleetError,
      targets: k.targets,
      windows: k.windows.map((w) => ({
        name: w.name,
        path: w.path,
        etag: w.etag,
        text: w.text,
        manifest: w.manifest,
        window: w.window,
        problems: w.problems,
        fleet: w.fleet,
        valid: w.compiled !== null,
      })),
      overrides: k.overrides.map((o) => ({
        name: o.name,
        path: o.path,
        etag: o.etag,
        text: o.text,
        manifest: o.manifest,
        input: o.input,
        requestedBy: o.requestedBy,
        problems: o.problems,
      })),
    })),
  };
}

/** Clones `remote` into `<root>/<name>`, commits `files` there (a text, a change of the text at HEAD, or null to delete) and pushes to main. */
export async function pushFromClone(
  root: string,
  remote: string,
  name: string,
  files: Record<string, ((old: string) => string) | string | null>,
): Promise<void> {
  const clone = join(root, name);
  await git(root, "clone", "--quiet", remote, clone);
  for (const [path, change] of Object.entries(files)) {
    const file = join(clone, path);
    if (change === null) await rm(file);
    else {
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, typeof change === "string" ? change : change(await git(clone, "show", `HEAD:${path}`)));
    }
  }
  await git(clone, "add", "--all");
  await git(clone, "commit", "--quiet", "-m", name);
  await git(clone, "push", "--quiet", "origin", "main");
}
