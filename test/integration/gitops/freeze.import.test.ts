// `fluxgate freeze import` on a real repository: a cluster's window and a fleet window take a calendar's events as freezes, again by UID without duplicates,
// kustomize renders them on every cluster, and a refused calendar changes nothing.

import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { parse } from "yaml";
import { effectiveWindows } from "../../../src/gitops/fleet/effective.ts";
import { fixtureCopies, fluxgate, kustomize } from "./helpers.ts";
import { assertRefused, fleetRepo, git } from "./fleet-repo.ts";

let bin = "";
const copy = fixtureCopies();
/** Where the tests' own calendars are written (beside no repository), removed after them. */
let calendarsDir = "";
before(async () => {
  calendarsDir = await mkdtemp(join(tmpdir(), "fluxgate-calendars-"));
});
after(async () => {
  await rm(calendarsDir, { recursive: true, force: true });
});
before(async () => {
  bin = await kustomize();
});

const calendars = (name: string): string => new URL(`../../fixtures/calendars/${name}`, import.meta.url).pathname;
const PARIS = "clusters/edge-paris/windows/apps-rw.yaml";

/** A calendar of the given VEVENT bodies, written outside the repository. */
async function calendarFile(name: string, ...events: string[]): Promise<string> {
  const file = join(await mkdtemp(join(calendarsDir, `${name}-`)), `${name}.ics`);
  const body = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//EN", ...events.map((e) => `BEGIN:VEVENT\n${e.trim()}\nEND:VEVENT`), "END:VCALENDAR", ""];
  await writeFile(file, body.join("\r\n"));
  return file;
}

test("a cluster's window takes the Outlook calendar's events; the second import changes nothing; the window is still what it was besides", async () => {
  const dir = await fleetRepo(copy);
  const before = await readFile(join(dir, PARIS), "utf8");
  const r = await fluxgate("freeze", "import", calendars("outlook.ics"), "--repo", dir, "--window", "apps-rw");
  assert.equal(r.stderr, "");
  assert.equal(r.code, 0);
  assert.match(r.stdout, /^added {4}"Year-end close" \(UID 0400.*, one-off\): 2026-12-31T18:00 → 2027-01-02T08:00$/m);
  assert.match(
    r.stdout,
    /^added {4}"Database maintenance \(no deploys\)" .*recurring\): FREQ=WEEKLY;BYDAY=WE from 2026-12-02 at 22:00, for 9h, except 2026-12-23T22:00, 2026-12-30T22:00$/m,
  );
  assert.match(
    r.stdout,
    /^clusters\/edge-paris\/windows\/apps-rw\.yaml \(Europe\/Paris\): 3 added, 0 updated, 0 removed, 0 unchanged\.\nCommit and push the change to apply it\.\n$/m,
  );
  const after = await readFile(join(dir, PARIS), "utf8");
  assert.ok(after.startsWith(before.slice(0, before.indexOf("  targets:"))), "the file is only added to");
  const spec = (parse(after) as { spec: { freezes: Array<{ uid: string; reason: string }> } }).spec;
  assert.deepEqual(
    spec.freezes.map((f) => f.reason),
    ["Year-end close", "Database maintenance (no deploys)", "Christmas freeze"],
  );
  git(dir, "commit", "-qam", "import");

  const again = await fluxgate("freeze", "import", calendars("outlook.ics"), "--repo", dir, "--window", "apps-rw");
  assert.equal(again.code, 0);
  assert.equal(again.stdout, "clusters/edge-paris/windows/apps-rw.yaml (Europe/Paris): 0 added, 0 updated, 0 removed, 3 unchanged.\nNothing to change.\n");
  assert.equal(git(dir, "status", "--porcelain"), "");

  // kustomize renders the window with its freezes, valid, as Flux will apply it.
  const w = (await effectiveWindows(dir, "edge-paris", { kustomize: bin })).find((x) => x.name === "apps-rw");
  assert.deepEqual(w?.problems, []);
  assert.equal(w?.window?.spec.freezes?.length, 3);
});

test("--dry-run prints the diff and the report and writes nothing", async () => {
  const dir = await fleetRepo(copy);
  const r = await fluxgate("freeze", "import", calendars("google.ics"), "--repo", dir, "--window", "apps-rw", "--dry-run");
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^--- a\/clusters\/edge-paris\/windows\/apps-rw\.yaml\n\+\+\+ b\/clusters\/edge-paris\/windows\/apps-rw\.yaml\n/);
  assert.match(r.stdout, /^\+ {6}uid: "0q7m4d1n2c3o4v5e6r7s8i9o0n@google\.com"$/m);
  assert.match(r.stdout, /: 4 added, 0 updated, 0 removed, 0 unchanged\.\n$/);
  assert.equal(git(dir, "status", "--porcelain"), "");
});

test("a fleet window: one change to its base; one-offs keep their instants on every cluster (edge-tokyo patches the zone), all-day events are local days", async () => {
  const dir = await fleetRepo(copy);
  const ics = await calendarFile(
    "fleet",
    "UID:cutover\nSUMMARY:Cutover\nDTSTART;TZID=Europe/Berlin:20270105T220000\nDTEND;TZID=Europe/Berlin:20270106T020000",
    "UID:newyear\nSUMMARY:New Year\nDTSTART;VALUE=DATE:20270101\nDTEND;VALUE=DATE:20270102",
    "UID:yearly\nSUMMARY:Founders' day\nDTSTART;VALUE=DATE:20270615\nDTEND;VALUE=DATE:20270616\nRRULE:FREQ=YEARLY",
  );
  const r = await fluxgate("freeze", "import", ics, "--repo", dir, "--fleet-window", "prod-changes", "--kustomize", bin);
  assert.equal(r.stderr, "");
  assert.equal(r.code, 0);
  assert.match(r.stdout, /^fleet\/windows\/prod-changes\/prod-changes\.yaml \(Europe\/Berlin\): 3 added, 0 updated, 0 removed, 0 unchanged\.$/m);
  git(dir, "add", "-A");
  assert.equal(git(dir, "diff", "--cached", "--name-only"), "fleet/windows/prod-changes/prod-changes.yaml\n");
  const freezesOn = async (cluster: string): Promise<unknown> =>
    (await effectiveWindows(dir, cluster, { kustomize: bin })).find((x) => x.name === "prod-changes")?.window?.spec.freezes;
  const want = [
    { from: "2027-01-05T22:00+01:00", to: "2027-01-06T02:00+01:00", reason: "Cutover", uid: "cutover" },
    { from: "2027-01-01T00:00", to: "2027-01-02T00:00", reason: "New Year", uid: "newyear" },
    { recurrence: "FREQ=YEARLY", dtstart: "2027-06-15", at: "00:00", endAt: "00:00", reason: "Founders' day", uid: "yearly" },
  ];
  assert.deepEqual(await freezesOn("edge-berlin"), want);
  assert.deepEqual(await freezesOn("edge-tokyo"), want);
});

test("a fleet window refuses a recurring event that a cluster's zone would move, naming the cluster; nothing is written", async () => {
  const dir = await fleetRepo(copy);
  await assertRefused(dir, [
    [
      ["freeze", "import", calendars("outlook.ics"), "--repo", dir, "--fleet-window", "prod-changes", "--kustomize", bin],
      /^error: the calendar cannot be imported; one event refused:\nevent 2 "Database maintenance \(no deploys\)" \(UID 0400\w+\): repeats in a way the fleet window cannot hold exactly on cluster edge-tokyo, which reads it in Asia\/Tokyo: /,
    ],
  ]);
});

test("re-import by UID: a moved event is updated, a cancelled one removed, one gone kept unless --prune; hand-written freezes stay", async () => {
  const dir = await fleetRepo(copy);
  const a = "UID:a\nSUMMARY:Audit\nDTSTART:20270301T080000Z\nDTEND:20270301T120000Z";
  const b = "UID:b\nSUMMARY:Board meeting\nDTSTART:20270302T080000Z\nDTEND:20270302T120000Z";
  const c = "UID:c\nSUMMARY:Conference\nDTSTART;VALUE=DATE:20270310\nDTEND;VALUE=DATE:20270312";
  const run = async (flags: string[], ...events: string[]): Promise<string> => {
    const r = await fluxgate("freeze", "import", await calendarFile("team", ...events), "--repo", dir, "--window", "apps-rw", ...flags);
    assert.equal(r.code, 0, r.stderr);
    return r.stdout;
  };
  // A freeze written by hand, before any import.
  const path = join(dir, PARIS);
  await writeFile(
    path,
    (await readFile(path, "utf8")).replace("  targets:", '  freezes:\n    - start: "0 0 * * FRI"\n      duration: 24h\n      reason: Fridays\n  targets:'),
  );
  await run([], a, b, c);
  const out = await run([], a.replace("T120000Z", "T130000Z"), `${b}\nSTATUS:CANCELLED`);
  assert.match(out, /^updated {2}"Audit" \(UID a, one-off\): 2027-03-01T09:00 → 2027-03-01T14:00$/m);
  assert.match(out, /^removed {2}"Board meeting" \(UID b\)$/m);
  assert.match(out, /^kept {5}"Conference" \(UID c\): no longer in the calendar; --prune removes it$/m);
  assert.match(await run(["--prune"], a.replace("T120000Z", "T130000Z")), /^removed {2}"Conference" \(UID c\)$/m);
  const freezes = (parse(await readFile(path, "utf8")) as { spec: { freezes: Array<{ reason: string }> } }).spec.freezes;
  assert.deepEqual(
    freezes.map((f) => f.reason),
    ["Fridays", "Audit"],
  );
});

test("bad input is refused with a precise message and changes nothing", async () => {
  const dir = await fleetRepo(copy);
  const decade = await calendarFile("decade", "UID:long\nSUMMARY:Ten years\nDTSTART:20270101T000000Z\nDTEND:20370101T000000Z");
  const malformed = join(calendarsDir, "malformed.ics");
  await writeFile(malformed, "BEGIN:VCALENDAR\nBEGIN:VEVENT\nUID:x\n");
  const cal = calendars("outlook.ics");
  await assertRefused(dir, [
    [
      ["freeze", "import", decade, "--repo", dir, "--window", "apps-rw"],
      /event 1 "Ten years" \(UID long\): lasts 3653 days \(2027-01-01T00:00:00Z to 2037-01-01T00:00:00Z\): a freeze from a calendar lasts at most 366 days/,
    ],
    [["freeze", "import", malformed, "--repo", dir, "--window", "apps-rw"], /^error: the file is not a valid iCalendar file \(RFC 5545\): .*did not end/],
    [["freeze", "import", join(dir, "missing.ics"), "--repo", dir, "--window", "apps-rw"], /missing\.ics: no such file/],
    [["freeze", "import", cal, "--repo", dir], /give the window the freezes go to: --window NAME/],
    [["freeze", "import", cal, "--repo", dir, "--window", "nope"], /--window nope: no cluster has it/],
    [["freeze", "import", cal, "--repo", dir, "--window", "apps-rw", "--cluster", "edge-mars"], /--cluster edge-mars: fluxgate\.yaml has no such cluster/],
    [["freeze", "import", cal, "--repo", dir, "--fleet-window", "nope"], /--fleet-window nope: there is no fleet\/windows\/nope\/nope\.yaml/],
  ]);
});

test("fluxgate freeze WINDOW still creates an override: only the word import is the subcommand", async () => {
  const r = await fluxgate("freeze", "apps-rw", "--for", "2h");
  assert.equal(r.code, 2);
  assert.match(r.stderr, /reason/);
  const named = await fluxgate("freeze", "--for", "2h", "--", "import");
  assert.equal(named.code, 2);
  assert.match(named.stderr, /reason/);
});
