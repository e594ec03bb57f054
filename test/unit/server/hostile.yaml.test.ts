// YAML that whoever can push to the repository may put there: alias bombs, aliases without anchors or inside themselves, huge files, bytes that are not UTF-8.
// Each is refused per file with a clear problem and never expanded; the service keeps answering.

import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { TokenStore } from "../../../src/server/http/tokens.ts";
import { MAX_YAML_BYTES, readYaml } from "../../../src/gitops/yaml-read.ts";
import { berlinSpec, fixture, git, tempDir, type Fixture } from "../../support/server.ts";

const WINDOWS = "clusters/edge-berlin/windows";

/** "Billion laughs": nine levels of nine aliases each, 9^9 strings if expanded. */
const BOMB = [
  'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
  ...Array.from({ length: 8 }, (_, i) => {
    const name = String.fromCharCode(98 + i);
    const previous = String.fromCharCode(97 + i);
    return `${name}: &${name} [${Array(9).fill(`*${previous}`).join(",")}]`;
  }),
].join("\n");

/** Commits `files` (path to content) in the fixture's repository and waits until the service reads the new commit. */
async function commit(f: Fixture, files: Record<string, string | Buffer>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    await mkdir(join(f.dir, path, ".."), { recursive: true });
    await writeFile(join(f.dir, path), content);
  }
  await git(f.dir, "add", "--all");
  await git(f.dir, "commit", "--quiet", "-m", "hostile files");
  // The service looks at HEAD at most once a second.
  await new Promise((resolve) => setTimeout(resolve, 1100));
}

function windowsOf(body: {
  windows: { name: string; valid: boolean; problems: { message: string }[] }[];
}): Map<string, { valid: boolean; problems: string[] }> {
  return new Map(body.windows.map((w) => [w.name, { valid: w.valid, problems: w.problems.map((p) => p.message) }]));
}

test("readYaml refuses an alias bomb, an alias without its anchor and an alias inside itself, and reads ordinary aliases", () => {
  assert.match(readYaml(BOMB).problem ?? "", /^not valid YAML: Excessive alias count indicates a resource exhaustion attack/);
  assert.match(readYaml("a: *nowhere").problem ?? "", /^not valid YAML: Unresolved alias/);
  assert.match(readYaml("a: &a\n  b: *a").problem ?? "", /an alias refers to a node that contains it/);
  assert.match(readYaml("- &a [*a]").problem ?? "", /an alias refers to a node that contains it/);
  assert.deepEqual(readYaml("x: &t {kind: Kustomization}\ny: [*t, *t]"), {
    value: { x: { kind: "Kustomization" }, y: [{ kind: "Kustomization" }, { kind: "Kustomization" }] },
    problem: null,
  });
  assert.match(readYaml(`# ${"x".repeat(MAX_YAML_BYTES)}`).problem ?? "", /larger than the 1048576 bytes a manifest may have/);
});

test("window and override files that are alias bombs, cycles or dangling aliases are invalid, with the reason; the others still read", async (t) => {
  const f = await fixture();
  t.after(f.cleanup);
  await commit(f, {
    [`${WINDOWS}/bomb.yaml`]: BOMB,
    [`${WINDOWS}/dangling.yaml`]: "apiVersion: fluxgate.io/v1alpha1\nkind: ReconciliationWindow\nmetadata: {name: dangling}\nspec: *spec\n",
    [`${WINDOWS}/cycle.yaml`]: "apiVersion: fluxgate.io/v1alpha1\nkind: ReconciliationWindow\nmetadata: &m {name: cycle, labels: *m}\n",
    [`${WINDOWS}/overrides/bomb.yaml`]: BOMB,
  });
  const r = await f.call("GET", "/api/v1/clusters/edge-berlin/windows");
  assert.equal(r.status, 200, r.text);
  const windows = windowsOf(r.body);
  assert.match(windows.get("bomb")?.problems[0] ?? "", /Excessive alias count indicates a resource exhaustion attack/);
  assert.match(windows.get("dangling")?.problems[0] ?? "", /Unresolved alias/);
  assert.match(windows.get("cycle")?.problems[0] ?? "", /an alias refers to a node that contains it/);
  assert.equal(windows.get("apps-rw")?.valid, true);
  const overrides = await f.call("GET", "/api/v1/clusters/edge-berlin/overrides");
  assert.equal(overrides.status, 200);
  const bomb = (overrides.body as { overrides: { name: string; valid: boolean; problems: { message: string }[] }[] }).overrides.find((o) => o.name === "bomb");
  assert.equal(bomb?.valid, false);
  assert.match(bomb?.problems[0]?.message ?? "", /Excessive alias count/);
  for (const path of ["/api/v1/clusters/edge-berlin/timeline", "/api/v1/clusters/edge-berlin/calendar.ics", "/api/v1/timeline", "/metrics", "/readyz"]) {
    assert.equal((await f.call("GET", path)).status, 200, path);
  }
  // A PUT over the bomb writes a new, valid file.
  const put = await f.call("PUT", "/api/v1/clusters/edge-berlin/windows/bomb", { body: { spec: berlinSpec(), reason: "replace a broken file" } });
  assert.equal(put.status, 200, put.text);
  assert.equal(put.body.window.valid, true);
});

test("a file larger than a manifest can be is listed as invalid without being read", async (t) => {
  const f = await fixture();
  t.after(f.cleanup);
  await commit(f, { [`${WINDOWS}/huge.yaml`]: `# ${"x".repeat(MAX_YAML_BYTES + 10)}\n` });
  const r = await f.call("GET", "/api/v1/clusters/edge-berlin/windows");
  assert.equal(r.status, 200);
  assert.match(windowsOf(r.body).get("huge")?.problems[0] ?? "", /is 1048589 bytes, larger than the 1048576 bytes a manifest may have/);
  assert.equal(windowsOf(r.body).get("apps-rw")?.valid, true);
});

test("a file that is not UTF-8 does not shift the files read after it", async (t) => {
  const f = await fixture();
  t.after(f.cleanup);
  const before = (await f.call("GET", "/api/v1/clusters/edge-berlin/windows/apps-rw")).body.manifest;
  // Sorted before apps-rw.yaml, so git hands it over first; each 0xff is one byte, but three once decoded.
  await commit(f, {
    [`${WINDOWS}/a-latin1.yaml`]: Buffer.concat([Buffer.from("# caf"), Buffer.from([0xe9, 0xff, 0xfe]), Buffer.from("\nkind: ReconciliationWindow\n")]),
  });
  const r = await f.call("GET", "/api/v1/clusters/edge-berlin/windows/apps-rw");
  assert.equal(r.status, 200);
  assert.equal(r.body.valid, true);
  assert.deepEqual(r.body.manifest, before);
});

test("fluxgate.yaml as an alias bomb: the repository cannot be read (503 with the reason), not an internal error", async (t) => {
  const f = await fixture();
  t.after(f.cleanup);
  await commit(f, { "fluxgate.yaml": BOMB });
  const r = await f.call("GET", "/api/v1/clusters");
  assert.equal(r.status, 503, r.text);
  assert.match(r.body.error.message, /^the repository cannot be read: fluxgate\.yaml: not valid YAML: Excessive alias count/);
  const ready = await f.call("GET", "/readyz");
  assert.equal(ready.status, 503);
  assert.match(ready.body.message, /Excessive alias count/);
});

test("a tokens file that is an alias bomb is refused with the reason", async (t) => {
  const { dir, cleanup } = await tempDir("tokens");
  t.after(cleanup);
  const file = join(dir, "tokens.yaml");
  await writeFile(file, `tokens: []\n${BOMB}\n`);
  await assert.rejects(TokenStore.open(file), /tokens\.yaml: not valid YAML: Excessive alias count indicates a resource exhaustion attack/);
});
