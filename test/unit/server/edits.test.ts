// Pure planning of file edits: windows edited in place with comments kept, kustomization.yaml resources kept in sync.

import assert from "node:assert/strict";
import { test } from "node:test";
import { kustomizationText, windowManifest, windowText } from "../../../src/server/git/edits.ts";

const FILE = `# Owned by the platform team.
apiVersion: fluxgate.io/v1alpha1
kind: ReconciliationWindow
metadata:
  name: apps-rw
  namespace: flux-system
  labels:
    team: platform # who to ask
spec:
  timeZone: Europe/Berlin
  schedules:
    # Agreed with the plant.
    - start: "0 8 * * MON"
      end: "0 17 * * THU" # Thursday afternoon
  targets:
    - kind: Kustomization
      name: apps-rw
`;

test("a window file is edited in place: comments, labels and quoting stay; changed values change", () => {
  const spec = {
    timeZone: "Europe/Berlin",
    schedules: [
      { start: "0 7 * * MON", end: "0 17 * * THU" },
      { start: "*/30 22 * * *", duration: "30m" },
    ],
    targets: [{ kind: "Kustomization" as const, name: "apps-rw" }],
  };
  const text = windowText(FILE, windowManifest("apps-rw", spec));
  assert.equal(
    text,
    `# Owned by the platform team.
apiVersion: fluxgate.io/v1alpha1
kind: ReconciliationWindow
metadata:
  name: apps-rw
  namespace: flux-system
  labels:
    team: platform # who to ask
spec:
  timeZone: Europe/Berlin
  schedules:
    # Agreed with the plant.
    - start: "0 7 * * MON"
      end: "0 17 * * THU" # Thursday afternoon
    - start: "*/30 22 * * *"
      duration: 30m
  targets:
    - kind: Kustomization
      name: apps-rw
`,
  );
});

test("fields the spec no longer has are removed", () => {
  const text = windowText(
    FILE,
    windowManifest("apps-rw", { schedules: [{ start: "@daily", duration: "1h" }], targets: [{ kind: "HelmRelease", name: "db" }] }),
  );
  assert.doesNotMatch(text, /timeZone|Thursday afternoon/);
  assert.match(text, /- start: "@daily"\n {6}duration: 1h\n/);
  assert.match(text, /- kind: HelmRelease\n {6}name: db\n/);
});

test("a recurrence entry is written with its times of day and dates quoted, which YAML 1.1 readers would take for numbers and timestamps", () => {
  const spec = {
    timeZone: "Europe/Berlin",
    schedules: [{ start: "0 8 * * MON", end: "0 17 * * THU" }],
    freezes: [{ recurrence: "FREQ=MONTHLY;BYDAY=2SU", at: "02:00", endAt: "06:00", dtstart: "2026-01-11", exdates: ["2026-12-13", "2027-01-10T02:00"] }],
    targets: [{ kind: "Kustomization" as const, name: "apps-rw" }],
  };
  const expected =
    '  freezes:\n    - recurrence: FREQ=MONTHLY;BYDAY=2SU\n      at: "02:00"\n      endAt: "06:00"\n      dtstart: "2026-01-11"\n      exdates:\n        - "2026-12-13"\n        - "2027-01-10T02:00"\n';
  assert.ok(windowText(null, windowManifest("patching", spec)).includes(expected));
  assert.ok(windowText(FILE, windowManifest("apps-rw", spec)).includes(expected), "added to an existing file, too");
});

test("kustomization.yaml: entries are added once, removed, and everything else is kept", () => {
  const existing =
    "# Windows of edge-berlin.\napiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - apps-rw.yaml # the main one\npatches:\n  - path: patch.yaml\n";
  const added = kustomizationText(existing, "db.yaml", true);
  assert.equal(
    added,
    "# Windows of edge-berlin.\napiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - apps-rw.yaml # the main one\n  - db.yaml\npatches:\n  - path: patch.yaml\n",
  );
  assert.equal(kustomizationText(added, "db.yaml", true), null, "already listed: no change");
  assert.equal(kustomizationText("resources:\n  - ./db.yaml\n", "db.yaml", true), null, "./ prefixes count");
  assert.equal(kustomizationText(added, "db.yaml", false), existing);
  assert.equal(
    kustomizationText(existing, "apps-rw.yaml", false),
    "# Windows of edge-berlin.\napiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: []\npatches:\n  - path: patch.yaml\n",
  );
  assert.equal(
    kustomizationText(null, "overrides/x.yaml", true),
    "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - overrides/x.yaml\n",
  );
});
