// In-process route tests: on a repository with the fleet folder, the Config Service refuses to write fleet windows and freezes (it would write the per-cluster
// layout's files there), writing nothing and saying what to use instead.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { assertUntouched, fixture } from "../../support/server.ts";

test("fleet windows and fleet freezes are refused with 409 on a repository whose clusters include the fleet folder", async (t) => {
  const f = await fixture();
  t.after(f.cleanup);
  const kustomization = join(f.dir, "clusters/edge-berlin/windows/kustomization.yaml");
  await writeFile(kustomization, (await readFile(kustomization, "utf8")).replace(/resources:\n/, "resources:\n  - ../../../fleet\n"));
  await mkdir(join(f.dir, "fleet"), { recursive: true });
  await writeFile(join(f.dir, "fleet/kustomization.yaml"), "resources: []\n");
  execFileSync("git", ["-C", f.dir, "add", "-A"]);
  execFileSync("git", ["-C", f.dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "the fleet folder"]);
  const head = await f.repository.head();
  const freeze = await f.call("POST", "/api/v1/fleet/overrides", { body: { selector: "!ring", duration: "1h", reason: "incident", name: "all-stop" } });
  assert.equal(freeze.status, 409, JSON.stringify(freeze.body));
  assert.match(JSON.stringify(freeze.body), /uses the fleet folder .*does not write fleet freezes there yet; use fluxgate fleet freeze/);
  const window = await f.call("POST", "/api/v1/fleet/windows", {
    body: {
      name: "eu-nightly",
      selector: "!ring",
      reason: "nightly slot",
      spec: { schedules: [{ start: "0 22 * * *", duration: "2h" }], targets: [{ kind: "Kustomization", name: "apps-rw" }] },
    },
  });
  assert.equal(window.status, 409, JSON.stringify(window.body));
  assert.match(JSON.stringify(window.body), /does not write fleet windows there yet/);
  await assertUntouched(f, head);
});
