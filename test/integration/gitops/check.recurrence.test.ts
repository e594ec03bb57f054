// check reads recurrence entries as the controller does: a valid rule passes, an impossible one is refused with its file, object and field path.

import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { bootstrap, fluxgate, kustomize, podinfoApp, removeRepo, writeRepo } from "./helpers.ts";

let bin = "";
const dirs: string[] = [];
before(async () => {
  bin = await kustomize();
});
after(async () => {
  for (const d of dirs) await removeRepo(d);
});

const WINDOW = (schedules: string): string =>
  `apiVersion: fluxgate.io/v1alpha1\nkind: ReconciliationWindow\nmetadata:\n  name: apps-rw\n  namespace: flux-system\nspec:\n  timeZone: Europe/Berlin\n  schedules:\n${schedules}  targets:\n    - kind: Kustomization\n      labelSelector:\n        matchLabels:\n          fluxgate.io/type: rw\n`;

async function initialised(schedules: string): Promise<string> {
  const dir = await writeRepo({ ...bootstrap("edge-berlin"), ...podinfoApp() });
  dirs.push(dir);
  assert.equal((await fluxgate("init", dir, "--cluster", "edge-berlin", "--time-zone", "Europe/Berlin")).code, 0);
  await writeFile(join(dir, "deploy/edge-berlin/rw/kustomization.yaml"), "resources:\n  - ../../../apps/podinfo\n");
  await writeFile(join(dir, "clusters/edge-berlin/windows/apps-rw.yaml"), WINDOW(schedules));
  return dir;
}

test("a window given by recurrence rules (the second Sunday, every other Tuesday from a first date) has no findings", async () => {
  const dir = await initialised(
    '    - recurrence: FREQ=MONTHLY;BYDAY=2SU\n      at: "02:00"\n      endAt: "06:00"\n    - recurrence: FREQ=WEEKLY;INTERVAL=2;BYDAY=TU\n      dtstart: "2026-01-06"\n      at: "22:00"\n      duration: 4h\n      exdates: ["2026-12-29"]\n',
  );
  const r = await fluxgate("check", dir, "--kustomize", bin, "-o", "json");
  assert.equal(r.stderr, "");
  assert.deepEqual(JSON.parse(r.stdout).findings, []);
  assert.equal(r.code, 0);
});

test("an impossible rule, and a rule that needs a first date, are refused with the window's file and each field path", async () => {
  const dir = await initialised(
    '    - recurrence: FREQ=MONTHLY;BYMONTHDAY=31;BYMONTH=2\n      at: "02:00"\n      duration: 4h\n    - recurrence: FREQ=WEEKLY;INTERVAL=2;BYDAY=TU\n      at: "02:00"\n      duration: 4h\n',
  );
  const r = await fluxgate("check", dir, "--kustomize", bin, "-o", "json");
  assert.equal(r.stderr, "");
  assert.equal(r.code, 1);
  const findings = (JSON.parse(r.stdout).findings as Array<{ rule: string; file: string; object: string; message: string }>).filter(
    (f) => f.rule === "invalid-schedule",
  );
  assert.deepEqual(
    findings.map((f) => [f.file, f.object, f.message]),
    [
      [
        "clusters/edge-berlin/windows/apps-rw.yaml",
        "ReconciliationWindow flux-system/apps-rw",
        "window flux-system/apps-rw is not valid: spec.schedules[0].recurrence: never occurs: no day of any year matches all of its parts (e.g. BYMONTH=2 with BYMONTHDAY=30)",
      ],
      [
        "clusters/edge-berlin/windows/apps-rw.yaml",
        "ReconciliationWindow flux-system/apps-rw",
        "window flux-system/apps-rw is not valid: spec.schedules[1].dtstart: needs dtstart, the first date: INTERVAL=2 counts periods from it",
      ],
    ],
  );
  const text = await fluxgate("check", dir, "--kustomize", bin);
  assert.match(text.stdout, /clusters\/edge-berlin\/windows\/apps-rw\.yaml.*\n?.*spec\.schedules\[0\]\.recurrence: never occurs/);
});
