// In-process route tests of calendar imports: an .ics upload is one commit of a window's freezes, again by UID without a second commit, and a refused calendar commits nothing.
/* eslint-disable @typescript-eslint/no-unsafe-call -- answers are untyped JSON, checked field by field */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { parse } from "yaml";
import { assertUntouched, COMMENT, fixture, git } from "../../support/server.ts";

const URL_BERLIN = "/api/v1/clusters/edge-berlin/windows/apps-rw/freezes/import";
const FILE = "clusters/edge-berlin/windows/apps-rw.yaml";
const OUTLOOK = readFileSync(new URL("../../fixtures/calendars/outlook.ics", import.meta.url), "utf8");
const ICS = { "content-type": "text/calendar; charset=utf-8" };

test("an Outlook calendar uploaded to a cluster's window: one commit with the reason, freezes by UID, comments kept; the same upload again commits nothing", async (t) => {
  const f = await fixture();
  t.after(f.cleanup);
  const before = await f.repository.head();
  const r = await f.call("POST", `${URL_BERLIN}?reason=${encodeURIComponent("CAB calendar for December")}`, { body: OUTLOOK, headers: ICS });
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body.changed, true);
  assert.equal(r.body.commit, await git(f.dir, "rev-parse", "HEAD"));
  assert.equal(await git(f.dir, "rev-parse", "HEAD~1"), before);
  assert.equal(
    await git(f.dir, "log", "-1", "--format=%an|%s"),
    "eddie editor|edge-berlin: import calendar freezes into window apps-rw (3 added, 0 updated, 0 removed): CAB calendar for December",
  );
  assert.equal(await git(f.dir, "show", "--format=", "--name-only", "HEAD"), FILE);
  assert.deepEqual(
    r.body.added.map((a: { summary: string; kind: string }) => [a.summary, a.kind]),
    [
      ["Year-end close", "one-off"],
      ["Database maintenance (no deploys)", "recurring"],
      ["Christmas freeze", "all-day"],
    ],
  );
  assert.equal(r.body.timeZone, "Europe/Berlin");
  assert.equal(r.body.calendar, "Change freezes");
  assert.equal(r.body.file, FILE);
  const text = await readFile(join(f.dir, FILE), "utf8");
  assert.ok(text.includes(COMMENT), "the comment in the file survives");
  const freezes = (parse(text) as { spec: { freezes: Array<{ reason: string; uid?: string }> } }).spec.freezes;
  assert.deepEqual(
    freezes.map((x) => x.reason),
    ["No deploys on Fridays", "Holiday freeze", "Year-end close", "Database maintenance (no deploys)", "Christmas freeze"],
  );
  // The window reads as the controller reads it: its state comes from the engine.
  const w = await f.call("GET", "/api/v1/clusters/edge-berlin/windows/apps-rw");
  assert.equal(w.status, 200);
  assert.deepEqual(w.body.problems ?? [], []);

  const head = await f.repository.head();
  const again = await f.call("POST", `${URL_BERLIN}?reason=again`, { body: OUTLOOK, headers: ICS });
  assert.equal(again.status, 200, again.text);
  assert.equal(again.body.changed, false);
  assert.equal(again.body.unchanged, 3);
  assert.deepEqual(again.body.added, []);
  await assertUntouched(f, head);
});

test("a refused calendar is a 400 naming each event, and commits nothing", async (t) => {
  const f = await fixture();
  t.after(f.cleanup);
  const head = await f.repository.head();
  const decade =
    "BEGIN:VCALENDAR\nVERSION:2.0\nBEGIN:VEVENT\nUID:long\nSUMMARY:Ten years\nDTSTART:20270101T000000Z\nDTEND:20370101T000000Z\nEND:VEVENT\nEND:VCALENDAR\n";
  const r = await f.call("POST", `${URL_BERLIN}?reason=x`, { body: decade, headers: ICS });
  assert.equal(r.status, 400);
  assert.deepEqual(r.body.error.problems, [
    {
      path: 'event 1 "Ten years" (UID long)',
      message: "lasts 3653 days (2027-01-01T00:00:00Z to 2037-01-01T00:00:00Z): a freeze from a calendar lasts at most 366 days; check the event's end",
    },
  ]);
  const malformed = await f.call("POST", `${URL_BERLIN}?reason=x`, { body: "BEGIN:VCALENDAR\nBEGIN:VEVENT\n", headers: ICS });
  assert.equal(malformed.status, 400);
  assert.match(malformed.body.error.message, /^the file is not a valid iCalendar file \(RFC 5545\)/);
  const json = await f.call("POST", `${URL_BERLIN}?reason=x`, { body: { calendar: OUTLOOK } });
  assert.equal(json.status, 415);
  assert.match(json.body.error.message, /Content-Type: text\/calendar/);
  const noReason = await f.call("POST", URL_BERLIN, { body: OUTLOOK, headers: ICS });
  assert.equal(noReason.status, 400);
  assert.match(noReason.body.error.message, /reason/);
  const viewer = await f.call("POST", `${URL_BERLIN}?reason=x`, { body: OUTLOOK, headers: ICS, token: f.tokens.viewer });
  assert.equal(viewer.status, 403);
  const missing = await f.call("POST", "/api/v1/clusters/edge-berlin/windows/nope/freezes/import?reason=x", { body: OUTLOOK, headers: ICS });
  assert.equal(missing.status, 404);
  const badPrune = await f.call("POST", `${URL_BERLIN}?reason=x&prune=yes`, { body: OUTLOOK, headers: ICS });
  assert.equal(badPrune.status, 400);
  assert.match(badPrune.body.error.message, /prune=yes: give prune=true or prune=false/);
  await assertUntouched(f, head);
});

test("prune=true removes the freezes whose events are gone; an If-Match of another version is refused", async (t) => {
  const f = await fixture();
  t.after(f.cleanup);
  const first = await f.call("POST", `${URL_BERLIN}?reason=import`, { body: OUTLOOK, headers: ICS });
  assert.equal(first.status, 200, first.text);
  const only = OUTLOOK.replace(/BEGIN:VEVENT[\s\S]*?END:VEVENT\r\n/, "");
  const stale = await f.call("POST", `${URL_BERLIN}?reason=prune&prune=true`, { body: only, headers: { ...ICS, "if-match": '"0000"' } });
  assert.equal(stale.status, 412);
  const pruned = await f.call("POST", `${URL_BERLIN}?reason=prune&prune=true`, { body: only, headers: ICS });
  assert.equal(pruned.status, 200, pruned.text);
  assert.deepEqual(
    pruned.body.removed.map((x: { reason: string }) => x.reason),
    ["Year-end close"],
  );
  assert.equal(pruned.body.unchanged, 2);
});
