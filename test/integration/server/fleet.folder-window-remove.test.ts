// DELETE /fleet/windows/{name} on a repository with the fleet folder (test/fixtures/gitops/fleet-folder), rendered by the real kustomize: one commit of the
// folder's files (and the patches clusters keep of the window), checked in Git (files and lines); a refused request commits nothing.

import assert from "node:assert/strict";
import { test } from "node:test";
import { lines, serveFleetFolder as serve, statesOf } from "../../support/fleet-folder.ts";
import { git } from "../../support/server.ts";

test("DELETE /fleet/windows/{name} removes a fleet window of the folder in one commit, with the patches clusters keep; bad requests change nothing", async (t) => {
  const s = await serve(t);
  // A window no cluster patches: three files, whatever the fleet's size.
  const added = await s.call("POST", "/api/v1/fleet/windows", {
    body: {
      name: "eu-nightly",
      selector: "region=eu",
      reason: "nightly slot",
      spec: { timeZone: "Europe/Berlin", schedules: [{ start: "0 22 * * *", duration: "2h" }], targets: [{ kind: "Kustomization", name: "apps-rt" }] },
    },
  });
  assert.equal(added.status, 201, JSON.stringify(added.body));
  const read = await s.call("GET", "/api/v1/fleet/windows/eu-nightly");
  assert.equal(read.status, 200, JSON.stringify(read.body));
  const etag = read.body.etag as string;

  const head = await s.head();
  const stale = await s.call("DELETE", "/api/v1/fleet/windows/eu-nightly?reason=gone", {
    headers: { "If-Match": '"0000000000000000000000000000000000000000"' },
  });
  assert.equal(stale.status, 412, JSON.stringify(stale.body));
  const missing = await s.call("DELETE", "/api/v1/fleet/windows/no-such-window?reason=gone");
  assert.equal(missing.status, 404, JSON.stringify(missing.body));
  assert.match(JSON.stringify(missing.body), /fleet window \\"no-such-window\\" does not exist \(fleet windows: eu-nightly, prod-changes\)/);
  const badName = await s.call("DELETE", "/api/v1/fleet/windows/Bad_Name?reason=gone");
  assert.equal(badName.status, 400, JSON.stringify(badName.body));
  const noReason = await s.call("DELETE", "/api/v1/fleet/windows/eu-nightly");
  assert.equal(noReason.status, 400, JSON.stringify(noReason.body));
  const viewer = await s.call("DELETE", "/api/v1/fleet/windows/eu-nightly?reason=gone", { headers: { authorization: "Bearer nope" } });
  assert.equal(viewer.status, 401, JSON.stringify(viewer.body));
  await s.untouched(head);

  const removed = await s.call("DELETE", "/api/v1/fleet/windows/eu-nightly?reason=gone", { headers: { "If-Match": `"${etag}"` } });
  assert.equal(removed.status, 200, JSON.stringify(removed.body));
  assert.deepEqual([removed.body.window, removed.body.clusters, removed.body.edited], ["eu-nightly", ["edge-berlin", "edge-paris"], []]);
  assert.equal(removed.body.commit, await s.head());
  // Its two base files removed whole, its one entry dropped from the folder's list: nothing else.
  assert.deepEqual(await s.diff(removed.body.commit, head), [
    ["fleet/kustomization.yaml", 0, 1],
    ["fleet/windows/eu-nightly/eu-nightly.yaml", 0, await lines(s, head, "fleet/windows/eu-nightly/eu-nightly.yaml")],
    ["fleet/windows/eu-nightly/kustomization.yaml", 0, await lines(s, head, "fleet/windows/eu-nightly/kustomization.yaml")],
  ]);
  assert.equal(await git(s.work, "ls-tree", "-r", "--name-only", "HEAD", "fleet/windows/eu-nightly"), "");
  assert.deepEqual(
    (await statesOf(s, "edge-berlin")).map((w) => w[0]),
    ["prod-changes"],
  );
  assert.deepEqual(
    (await statesOf(s, "edge-paris")).map((w) => w[0]),
    ["apps-rw"],
  );
  const again = await s.call("DELETE", "/api/v1/fleet/windows/eu-nightly?reason=gone");
  assert.equal(again.status, 404, JSON.stringify(again.body));

  // A window edge-tokyo patches (its zone, in the fixture): the commit also drops that patch (four files), as fluxgate fleet window remove does.
  const patched = await s.head();
  const patch = (await git(s.work, "show", `${patched}:clusters/edge-tokyo/windows/kustomization.yaml`)).split("\n");
  const patchLines = patch.length - patch.indexOf("patches:");
  const gone = await s.call("DELETE", "/api/v1/fleet/windows/prod-changes", { body: { reason: "prod takes the nightly slot" } });
  assert.equal(gone.status, 200, JSON.stringify(gone.body));
  assert.deepEqual([gone.body.clusters, gone.body.edited], [["edge-berlin", "edge-tokyo"], ["edge-tokyo"]]);
  assert.deepEqual(await s.diff(gone.body.commit, patched), [
    ["clusters/edge-tokyo/windows/kustomization.yaml", 0, patchLines],
    ["fleet/kustomization.yaml", 1, 2], // its last entry: `resources: []`
    ["fleet/windows/prod-changes/kustomization.yaml", 0, await lines(s, patched, "fleet/windows/prod-changes/kustomization.yaml")],
    ["fleet/windows/prod-changes/prod-changes.yaml", 0, await lines(s, patched, "fleet/windows/prod-changes/prod-changes.yaml")],
  ]);
  assert.doesNotMatch(await git(s.work, "show", "HEAD:clusters/edge-tokyo/windows/kustomization.yaml"), /prod-changes/);
  assert.deepEqual(await statesOf(s, "edge-tokyo"), []);
  assert.deepEqual((await s.call("GET", "/api/v1/clusters/edge-tokyo/windows")).body.fleetError, null);
});
