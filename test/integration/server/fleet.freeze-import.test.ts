// A calendar uploaded to a fleet window through the Config Service over a real socket: one commit, pushed to a real bare remote, rendered by the real kustomize on
// every cluster (some patch the window's zone); a calendar a patched cluster would read otherwise is refused by name, and nothing is committed or pushed.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { parse } from "yaml";
import { git } from "../../support/server.ts";
import { serveGeneratedFleet, type ServedFleet } from "../../support/fleet.ts";

let served: ServedFleet;
before(async () => {
  served = await serveGeneratedFleet("freeze-import", 16);
});
after(async () => {
  await served.close();
});

const IMPORT = "/api/v1/fleet/windows/prod-changes/freezes/import";

function calendar(...events: string[]): string {
  return ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//EN", ...events.map((e) => `BEGIN:VEVENT\n${e.trim()}\nEND:VEVENT`), "END:VCALENDAR", ""].join(
    "\r\n",
  );
}

async function upload(path: string, body: string): Promise<{ status: number; body: any }> {
  const r = await fetch(`${served.service.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${served.tokens.editor}`, "content-type": "text/calendar" },
    body,
  });
  return { status: r.status, body: await r.json() };
}

test("one upload, one commit pushed to the remote for the whole fleet; every cluster renders the freezes; the same upload again commits nothing", async () => {
  const before = await served.state();
  const ics = calendar(
    "UID:cutover@example.com\nSUMMARY:Cutover\nDTSTART;TZID=Europe/Berlin:20270105T220000\nDTEND;TZID=Europe/Berlin:20270106T020000",
    "UID:newyear@example.com\nSUMMARY:New Year\nDTSTART;VALUE=DATE:20270101\nDTEND;VALUE=DATE:20270102",
  );
  const r = await upload(`${IMPORT}?reason=${encodeURIComponent("CAB freezes")}`, ics);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.changed, true);
  assert.equal(r.body.pushed, true);
  assert.equal(r.body.file, "fleet/windows/prod-changes/prod-changes.yaml");
  assert.equal(r.body.clusters, 12);
  const after = await served.state();
  assert.equal(after.remote, r.body.commit, "the commit is on the remote");
  assert.equal(await git(served.work, "rev-parse", "HEAD~1"), before.head, "one commit");
  assert.equal(await git(served.work, "show", "--format=", "--name-only", "HEAD"), "fleet/windows/prod-changes/prod-changes.yaml");
  assert.match(
    await git(served.work, "log", "-1", "--format=%s"),
    /^fleet: import calendar freezes into window prod-changes \(2 added, 0 updated, 0 removed; 12 clusters\): CAB freezes$/,
  );
  const base = parse(await git(served.work, "show", "HEAD:fleet/windows/prod-changes/prod-changes.yaml")) as { spec: { freezes: unknown[] } };
  assert.deepEqual(base.spec.freezes, [
    { from: "2027-01-05T21:00+00:00", to: "2027-01-06T01:00+00:00", reason: "Cutover", uid: "cutover@example.com" },
    { from: "2027-01-01T00:00", to: "2027-01-02T00:00", reason: "New Year", uid: "newyear@example.com" },
  ]);
  // Each cluster's window, as kustomize renders it with its patch, is valid and holds the freezes.
  const w = await served.call("GET", "/api/v1/clusters/edge-9/windows/prod-changes");
  assert.equal(w.status, 200, w.text);
  assert.equal(w.body.manifest.spec.freezes.length, 2);

  const again = await upload(`${IMPORT}?reason=again`, ics);
  assert.equal(again.status, 200);
  assert.equal(again.body.changed, false);
  assert.equal(again.body.unchanged, 2);
  assert.deepEqual(await served.state(), after);
});

test("a weekly event in UTC that a patched cluster would read at another time is refused, naming the cluster; nothing is committed or pushed", async () => {
  const before = await served.state();
  const r = await upload(
    `${IMPORT}?reason=x`,
    calendar("UID:weekly@example.com\nSUMMARY:Weekly DB\nDTSTART:20270106T220000Z\nDTEND:20270107T020000Z\nRRULE:FREQ=WEEKLY"),
  );
  assert.equal(r.status, 400);
  assert.equal(r.body.error.problems[0].path, 'event 1 "Weekly DB" (UID weekly@example.com)');
  assert.match(
    r.body.error.problems[0].message,
    /^repeats in a way the fleet window cannot hold exactly on cluster edge-\d+, which reads it in (Europe\/Berlin|America\/New_York|Asia\/Tokyo|Europe\/London): the calendar has an occurrence at/,
  );
  assert.deepEqual(await served.state(), before);
});
