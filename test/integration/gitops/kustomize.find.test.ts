// Which kustomize the repository tooling runs: flag, environment, PATH, the one `npm run tools` built, kubectl; and check says which it used.

import assert from "node:assert/strict";
import { chmod, mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { check } from "../../../src/cli/check.ts";
import { findKustomize } from "../../../src/gitops/kustomize.ts";
import { copyFixture, kustomize, removeRepo } from "./helpers.ts";
import { ensureTool } from "../../harness/index.ts";

let bin = "";
const dirs: string[] = [];
before(async () => {
  bin = await kustomize();
});
after(async () => {
  for (const d of dirs) await removeRepo(d);
});

/** A directory holding executables with these names (never run here: only found). */
async function binDir(...names: string[]): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "fluxgate-bin-"));
  dirs.push(dir);
  await mkdir(dir, { recursive: true });
  for (const n of names) {
    await writeFile(join(dir, n), "#!/bin/sh\nexit 0\n");
    await chmod(join(dir, n), 0o755);
  }
  return dir;
}

test("kustomize on PATH comes first, then the one npm run tools built, then kubectl; none at all says how to get one", async () => {
  const both = await binDir("kustomize", "kubectl");
  const kubectlOnly = await binDir("kubectl");
  const empty = await binDir();
  const built = (): Promise<string> => Promise.resolve(bin);
  const none = (): Promise<null> => Promise.resolve(null);

  const onPath = await findKustomize(undefined, { PATH: both }, built);
  assert.deepEqual([onPath.file, onPath.label, onPath.origin], [join(both, "kustomize"), "kustomize", "on PATH"]);
  const cached = await findKustomize(undefined, { PATH: kubectlOnly }, built);
  assert.deepEqual([cached.file, cached.args, cached.origin], [bin, ["build"], "built by npm run tools"]);
  const kubectl = await findKustomize(undefined, { PATH: kubectlOnly }, none);
  assert.deepEqual([kubectl.file, kubectl.args, kubectl.origin], [join(kubectlOnly, "kubectl"), ["kustomize"], "kubectl on PATH"]);
  const named = await findKustomize(undefined, { PATH: both, FLUXGATE_KUSTOMIZE: bin }, none);
  assert.deepEqual([named.file, named.origin], [bin, "named by FLUXGATE_KUSTOMIZE"]);

  await assert.rejects(findKustomize(undefined, { PATH: empty }, none), (e: Error) => {
    assert.equal(e.name, "ToolFailedError");
    assert.match(
      e.message,
      /^kustomize was not found: install kustomize .* build it with npm run tools in fluxgate's source, or name it with --kustomize PATH or FLUXGATE_KUSTOMIZE=PATH$/,
    );
    return true;
  });
});

test("check with no kustomize on PATH renders with the one npm run tools built, and says so", async () => {
  const dir = await copyFixture("flux-create");
  dirs.push(dir);
  const tool = await ensureTool("kustomize");
  const shown = tool.path.startsWith(`${homedir()}/`) ? `~${tool.path.slice(homedir().length)}` : tool.path;
  const result = await check({
    repo: dir,
    clusters: [],
    kustomizations: ["bootstrap=./platform/flux"],
    output: "text",
    strict: false,
    kustomize: undefined,
    env: { PATH: await binDir() },
    now: Date.UTC(2026, 10, 23),
  });
  assert.equal(result.stats.kustomizations, 3);
  assert.equal(result.output.split("\n").at(-2), `Rendered with kustomize ${tool.version} (${shown}, built by npm run tools).`);
});
