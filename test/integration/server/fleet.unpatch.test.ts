// DELETE /api/v1/clusters/{cluster}/windows/{name}/patch on a real bare remote with the real kustomize: one commit of one cluster, the base renders again, bad
// input commits nothing.

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { generatedFleetFiles, patchedZone } from "../../../src/devenv/generated-fleet.ts";
import { serveGeneratedFleet, type ServedFleet } from "../../support/fleet.ts";
import { git } from "../../support/server.ts";

let fleet: ServedFleet;
before(async () => {
  fleet = await serveGeneratedFleet("fleet-unpatch", 8);
});
after(async () => {
  await fleet.close();
});

/** The zone of a window as the real kustomize builds the cluster's windows folder in the working copy. */
async function builtZone(cluster: string, window: string): Promise<string> {
  const { stdout } = await promisify(execFile)(fleet.kustomize, ["build", join(fleet.work, `clusters/${cluster}/windows`)]);
  const doc = stdout.split(/^---$/m).find((d) => new RegExp(`^ {2}name: ${window}$`, "m").test(d)) ?? "";
  return /^ {2}timeZone: (\S+)$/m.exec(doc)?.[1] ?? "UTC";
}

test("removing a cluster's patch is one pushed commit of its kustomization.yaml; it renders the base again", async () => {
  const before = await fleet.state();
  assert.equal(await builtZone("edge-1", "prod-changes"), patchedZone(1));
  const r = await fleet.call("DELETE", "/api/v1/clusters/edge-1/windows/prod-changes/patch?reason=the%20site%20follows%20the%20fleet%20again");
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body.changed, true);
  assert.equal(r.body.pushed, true);
  assert.equal(r.body.fleetError, null);
  assert.equal(r.body.window.timeZone, "UTC", "the base's zone");
  assert.equal(r.body.window.fleet.patch, null);
  const after = await fleet.state();
  assert.equal(await git(fleet.work, "rev-parse", "HEAD~1"), before.head, "one commit");
  assert.equal(after.remote, after.head, "pushed");
  assert.equal(after.status, "");
  assert.equal(await git(fleet.work, "diff", "--name-only", "HEAD~1", "HEAD"), "clusters/edge-1/windows/kustomization.yaml");
  assert.equal(await git(fleet.work, "log", "-1", "--format=%s"), "edge-1: remove its patch of fleet window prod-changes: the site follows the fleet again");
  const unpatched = generatedFleetFiles(8, { windows: "fleet" })
    .get("clusters/edge-1/windows/kustomization.yaml")
    ?.replace(/patches:[\s\S]*$/, "");
  assert.equal(
    await git(fleet.work, "show", "HEAD:clusters/edge-1/windows/kustomization.yaml"),
    unpatched?.trimEnd(),
    "the file without its patch, nothing else changed",
  );
  assert.equal(await builtZone("edge-1", "prod-changes"), "UTC", "as kustomize builds it");
  const read = await fleet.call("GET", "/api/v1/clusters/edge-1/windows/prod-changes", { token: fleet.tokens.viewer });
  assert.equal(read.body.timeZone, "UTC");
  const other = await fleet.call("GET", "/api/v1/clusters/edge-5/windows/prod-changes", { token: fleet.tokens.viewer });
  assert.equal(other.body.timeZone, patchedZone(5), "another cluster keeps its patch");
});

test("a patch set and removed again leaves the cluster's file as it was", async () => {
  const original = await git(fleet.work, "show", "HEAD:clusters/edge-2/windows/kustomization.yaml");
  const put = await fleet.call("PUT", "/api/v1/clusters/edge-2/windows/prod-changes/patch", { body: { timeZone: "Asia/Tokyo", reason: "Tokyo hours" } });
  assert.equal(put.status, 200, put.text);
  assert.equal(put.body.window.timeZone, "Asia/Tokyo");
  const del = await fleet.call("DELETE", "/api/v1/clusters/edge-2/windows/prod-changes/patch?reason=back");
  assert.equal(del.status, 200, del.text);
  assert.equal(await git(fleet.work, "show", "HEAD:clusters/edge-2/windows/kustomization.yaml"), original);
  assert.equal(await builtZone("edge-2", "prod-changes"), "UTC");
});

test("bad input gets a specific error and commits nothing", async () => {
  const before = await fleet.state();
  const cases: Array<[string, string, number, RegExp, string?]> = [
    [
      "DELETE",
      "/api/v1/clusters/edge-3/windows/prod-changes/patch?reason=x",
      404,
      /cluster edge-3 has no patch of fleet window prod-changes in clusters\/edge-3\/windows\/kustomization\.yaml \(it patches no window\): nothing to remove/,
    ],
    [
      "DELETE",
      "/api/v1/clusters/edge-3/windows/nightly/patch?reason=x",
      409,
      /window nightly of cluster edge-3 is the cluster's own \(clusters\/edge-3\/windows\/nightly\.yaml\), not a fleet window/,
    ],
    ["DELETE", "/api/v1/clusters/edge-99/windows/prod-changes/patch?reason=x", 404, /cluster "edge-99" is not in fluxgate\.yaml/],
    ["DELETE", "/api/v1/clusters/edge-5/windows/prod-changes/patch", 400, /say why: \?reason=/],
    ["DELETE", "/api/v1/clusters/edge-5/windows/Bad_Name/patch?reason=x", 400, /window name/],
    ["DELETE", "/api/v1/clusters/edge-5/windows/prod-changes/patch?reason=x", 403, /may not change windows/, "viewer"],
  ];
  for (const [method, path, status, message, who] of cases) {
    const r = await fleet.call(method, path, who === "viewer" ? { token: fleet.tokens.viewer } : {});
    assert.equal(r.status, status, `${path}: ${r.text}`);
    assert.match(r.body.error.message, message, path);
  }
  const stale = await fetch(`${fleet.service.url}/api/v1/clusters/edge-5/windows/prod-changes/patch?reason=x`, {
    method: "DELETE",
    headers: { authorization: `Bearer ${fleet.tokens.editor}`, "if-match": '"0000000000000000000000000000000000000000"' },
  });
  assert.equal(stale.status, 412, await stale.text());
  assert.deepEqual(await fleet.state(), before, "nothing committed or pushed");
});
