// A served working copy whose origin is a real bare repository, and a second clone to push from as someone else would.

import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { startService, type RunningService } from "../../../src/server/server.ts";
import { bareRemoteWithClone, git, tempDir, writeFleet, testServiceOptions, writeTokens, type Tokens } from "../../support/server.ts";

export interface Setup {
  remote: string;
  service: RunningService;
  tokens: Tokens;
  root: string;
  /** The service's working copy. */
  work: string;
  put(cluster: string, name: string, spec: unknown, reason: string, token?: string): Promise<{ status: number; body: any }>;
}

export async function setup(
  t: { after(fn: () => Promise<void>): void },
  syncIntervalMs = 0,
  log: (fields: Record<string, unknown>) => void = () => undefined,
): Promise<Setup> {
  const { dir: root, cleanup } = await tempDir("remote");
  t.after(cleanup);
  const seed = join(root, "seed");
  await mkdir(seed);
  await writeFleet(seed);
  const { remote, work } = await bareRemoteWithClone(root, seed);
  const tokens = await writeTokens(root);
  const service = await startService(testServiceOptions(work, tokens.file, { syncIntervalMs, rateLimit: { burst: 1000, perSecond: 1000 }, log }));
  t.after(() => service.close());
  const put: Setup["put"] = async (cluster, name, spec, reason, token = tokens.editor) => {
    const response = await fetch(`${service.url}/api/v1/clusters/${cluster}/windows/${name}`, {
      method: "PUT",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ spec, reason }),
    });
    return { status: response.status, body: await response.json() };
  };
  return { remote, service, tokens, root, work, put };
}

export const spec = (hour: number, target = "apps-rw") => ({
  timeZone: "Europe/Berlin",
  schedules: [{ start: `0 ${hour} * * *`, duration: "1h" }],
  targets: [{ kind: "Kustomization", name: target }],
});

/** Commits `files` on top of the remote's main from a clone of its own, as someone else would. */
export async function pushElsewhere(
  root: string,
  remote: string,
  name: string,
  files: Record<string, (old: string | null) => string>,
  message: string,
): Promise<string> {
  const clone = join(root, name);
  await git(root, "clone", "--quiet", remote, clone);
  for (const [path, change] of Object.entries(files)) {
    const file = join(clone, path);
    const old = await readFile(file, "utf8").catch(() => null);
    await writeFile(file, change(old));
  }
  await git(clone, "add", "--all");
  await git(clone, "commit", "--quiet", "-m", message);
  await git(clone, "push", "--quiet", "origin", "main");
  return git(clone, "rev-parse", "HEAD");
}
