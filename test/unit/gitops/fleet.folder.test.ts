// The fleet folder's plans (pure): a fleet window and a fleet freeze are a change to fleet/ alone, refused with nothing planned on bad input.

import assert from "node:assert/strict";
import { test } from "node:test";
import { parseAllDocuments } from "yaml";
import { parseRepositoryFile } from "../../../src/gitops/files.ts";
import { fleetFolderText, planFolderFreeze, planFolderWindowAdd, planFolderWindowRemove, usesFleetFolder } from "../../../src/gitops/fleet/folder.ts";
import { RepositoryInputError } from "../../../src/gitops/errors.ts";

const repository = parseRepositoryFile(
  [
    "apiVersion: fluxgate.io/v1alpha1",
    "kind: Repository",
    "types: [{name: rw, window: true}]",
    "clusters:",
    "  - {name: edge-berlin, path: clusters/edge-berlin, timeZone: UTC, labels: {ring: prod, region: eu}}",
    "  - {name: edge-paris, path: clusters/edge-paris, timeZone: UTC, labels: {ring: canary, region: eu}}",
    "",
  ].join("\n"),
);
const files = new Map<string, string>([["fleet/kustomization.yaml", fleetFolderText(["windows/prod-changes"])]]);
const read = (p: string): string | null => files.get(p) ?? null;
const now = Date.parse("2026-12-23T09:00:00Z");
const spec = { schedules: [{ start: "0 22 * * *", duration: "2h" }], targets: [{ kind: "Kustomization", name: "apps-rw" }] };

test("a fleet window in the fleet folder is its base and one entry of fleet/kustomization.yaml, with its clusterSelector", () => {
  assert.equal(usesFleetFolder(read), true);
  const { changes, clusters } = planFolderWindowAdd(repository, read, { name: "eu-nightly", selector: "region=eu", spec }, () => undefined);
  assert.deepEqual(
    changes.map((c) => c.path),
    ["fleet/windows/eu-nightly/eu-nightly.yaml", "fleet/windows/eu-nightly/kustomization.yaml", "fleet/kustomization.yaml"],
  );
  assert.deepEqual(
    clusters.map((c) => c.name),
    ["edge-berlin", "edge-paris"],
  );
  const window = parseAllDocuments(changes[0]?.after ?? "")[0]?.toJS() as { spec: { clusterSelector: unknown } };
  assert.deepEqual(window.spec.clusterSelector, { matchLabels: { region: "eu" } });
  assert.match(changes[2]?.after ?? "", /^ {2}- windows\/eu-nightly$/m);
  // Every cluster renders every fleet window: a window of a cluster's own with that name is refused.
  const own = (p: string): string | null => (p === "clusters/edge-paris/windows/eu-nightly.yaml" ? "kind: ReconciliationWindow\n" : read(p));
  assert.throws(
    () => planFolderWindowAdd(repository, own, { name: "eu-nightly", selector: "region=eu", spec }, () => undefined),
    /cluster edge-paris has a window of its own named eu-nightly/,
  );
  assert.throws(() => planFolderWindowRemove(read, "eu-nightly", []), /fleet window eu-nightly does not exist/);
});

test("a fleet freeze in the fleet folder is one file with the clusterSelector and every window, and its entry; bad input plans nothing", () => {
  const request = { name: "holidays", action: "Freeze" as const, until: Date.parse("2026-12-24T18:00:00Z"), reason: "holiday freeze", now };
  const plan = planFolderFreeze(repository, read, "ring=prod", request);
  assert.deepEqual(
    plan.changes.map((c) => c.path),
    ["fleet/freezes/holidays.yaml", "fleet/kustomization.yaml"],
  );
  assert.deepEqual(
    plan.clusters.map((c) => c.name),
    ["edge-berlin"],
  );
  const docs = parseAllDocuments(plan.changes[0]?.after ?? "").map((d) => d.toJS() as { spec: Record<string, unknown> });
  assert.equal(docs.length, 1);
  assert.deepEqual(docs[0]?.spec, {
    windowSelector: {},
    clusterSelector: { matchLabels: { ring: "prod" } },
    action: "Freeze",
    until: "2026-12-24T18:00:00Z",
    reason: "holiday freeze",
  });
  // --window: one override per window, in the one file.
  const some = planFolderFreeze(repository, read, "ring=prod", { ...request, windows: ["apps-rw", "prod-changes"] });
  assert.equal(some.changes.length, 2);
  assert.deepEqual(
    parseAllDocuments(some.changes[0]?.after ?? "").map((d) => (d.toJS() as { spec: { windowRef: { name: string } } }).spec.windowRef.name),
    ["apps-rw", "prod-changes"],
  );
  const refused: Array<[Parameters<typeof planFolderFreeze>[3], string, RegExp]> = [
    [{ ...request, name: "Holidays" }, "ring=prod", /--name Holidays: must be a DNS label/],
    [{ ...request, reason: " " }, "ring=prod", /--reason is required/],
    [{ ...request, until: now - 1000 }, "ring=prod", /is not in the future/],
    [{ ...request, until: now + 8 * 86_400_000 }, "ring=prod", /at most 7 days/],
    [request, "ring=lab", /--selector ring=lab: no cluster of fluxgate.yaml matches/],
  ];
  for (const [r, selector, message] of refused)
    assert.throws(
      () => planFolderFreeze(repository, read, selector, r),
      (e: unknown) => e instanceof RepositoryInputError && message.test(e.message),
    );
  const taken = (p: string): string | null => (p === "fleet/freezes/holidays.yaml" ? "kind: WindowOverride\n" : read(p));
  assert.throws(() => planFolderFreeze(repository, taken, "ring=prod", request), /a fleet freeze named holidays exists/);
  assert.throws(
    () => planFolderFreeze(repository, () => null, "ring=prod", request),
    /has no fleet\/kustomization.yaml: convert it with fluxgate fleet migrate/,
  );
});
