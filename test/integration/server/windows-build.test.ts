// After every kind of write the API makes, and every one it refuses, the cluster's windows folder still builds with the real kustomize, to exactly the windows
// and overrides the API lists.
/* eslint-disable @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return -- answers are untyped JSON, checked field by field */

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { test } from "node:test";
import { parseAllDocuments } from "yaml";
import { ensureTool } from "../../harness/index.ts";
import { assertUntouched, berlinSpec, fixture, type Fixture } from "../../support/server.ts";

const CLUSTER = "/api/v1/clusters/edge-berlin";

/** `kustomize build` of edge-berlin's windows folder: the kind and name of each object it gives, sorted. */
async function built(f: Fixture): Promise<string[]> {
  const kustomize = await ensureTool("kustomize");
  const { stdout } = await promisify(execFile)(kustomize.path, ["build", join(f.dir, "clusters/edge-berlin/windows")]);
  return parseAllDocuments(stdout)
    .map((d) => d.toJS() as { kind: string; metadata: { name: string } })
    .map((o) => `${o.kind}/${o.metadata.name}`)
    .sort();
}

/** What the API lists for edge-berlin, as kustomize names it. */
async function listed(f: Fixture): Promise<string[]> {
  const windows = (await f.call("GET", `${CLUSTER}/windows`)).body.windows.map((w: any) => `ReconciliationWindow/${w.name}`);
  const overrides = (await f.call("GET", `${CLUSTER}/overrides`)).body.overrides.map((o: any) => `WindowOverride/${o.name}`);
  return [...windows, ...overrides].sort();
}

test("every write keeps the windows folder buildable by kustomize, listing exactly what the API lists; refused writes change nothing", async (t) => {
  const f = await fixture();
  t.after(f.cleanup);
  const steps: Array<[string, () => Promise<{ status: number; text: string }>, number]> = [
    ["PUT a reserved name", () => f.call("PUT", `${CLUSTER}/windows/kustomization`, { body: { spec: berlinSpec(), reason: "x" } }), 400],
    [
      "PATCH a reserved name",
      () => f.call("PATCH", `${CLUSTER}/windows/overrides?reason=x`, { body: { spec: {} }, headers: { "content-type": "application/merge-patch+json" } }),
      400,
    ],
    ["DELETE a reserved name", () => f.call("DELETE", `${CLUSTER}/windows/kustomization?reason=x`), 404],
    [
      "PUT a new window",
      () =>
        f.call("PUT", `${CLUSTER}/windows/db-maintenance`, {
          body: { spec: { ...berlinSpec(), schedules: [{ start: "30 2 * * SUN", duration: "1h" }] }, reason: "Sunday upgrades" },
        }),
      201,
    ],
    [
      "PATCH it",
      () =>
        f.call("PATCH", `${CLUSTER}/windows/db-maintenance?reason=Longer`, {
          body: [{ op: "replace", path: "/spec/schedules/0/duration", value: "2h" }],
          headers: { "content-type": "application/json-patch+json" },
        }),
      200,
    ],
    [
      "POST an override",
      () => f.call("POST", `${CLUSTER}/overrides`, { body: { window: "db-maintenance", action: "Open", duration: "1h", reason: "Hotfix" } }),
      201,
    ],
    [
      "POST another in the same second",
      () => f.call("POST", `${CLUSTER}/overrides`, { body: { window: "db-maintenance", action: "Open", duration: "1h", reason: "Hotfix again" } }),
      201,
    ],
    [
      "POST one on apps-rw",
      () => f.call("POST", `${CLUSTER}/overrides`, { body: { window: "apps-rw", action: "Freeze", duration: "2h", reason: "Audit", name: "audit" } }),
      201,
    ],
    ["DELETE an override", () => f.call("DELETE", `${CLUSTER}/overrides/audit?reason=Audit%20done`), 200],
    ["DELETE the window with its overrides", () => f.call("DELETE", `${CLUSTER}/windows/db-maintenance?reason=Not%20needed`), 200],
    ["DELETE expired overrides (none)", () => f.call("DELETE", `${CLUSTER}/overrides?expired=true&reason=Tidy`), 200],
  ];
  assert.deepEqual(await built(f), await listed(f), "the fixture builds");
  for (const [what, request, status] of steps) {
    const head = await f.repository.head();
    const answer = await request();
    assert.equal(answer.status, status, `${what}: ${answer.text}`);
    if (status >= 400) await assertUntouched(f, head);
    assert.deepEqual(await built(f), await listed(f), `after "${what}", kustomize builds what the API lists`);
  }
  assert.deepEqual(await built(f), ["ReconciliationWindow/apps-rw", "ReconciliationWindow/nightly"]);
});
