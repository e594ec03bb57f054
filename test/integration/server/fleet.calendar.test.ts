// Calendars of a fleet on a real bare remote with the real kustomize: a cluster's feed holds its windows as it renders them (patches applied), and the fleet's
// feed holds many clusters, one event for those that share a stretch.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { patchedZone } from "../../../src/devenv/generated-fleet.ts";
import { computeFleetCalendar, fleetCalendarInput } from "../../../src/server/views/fleet-calendar.ts";
import { serveGeneratedFleet, type ServedFleet } from "../../support/fleet.ts";
import { NOW } from "../../support/server.ts";

let fleet: ServedFleet;
before(async () => {
  fleet = await serveGeneratedFleet("fleet-calendar", 8);
});
after(async () => {
  await fleet.close();
});

const viewer = (): { token: string } => ({ token: fleet.tokens.viewer });

interface CalendarEvent {
  uid: string;
  start: string;
  end: string;
  summary: string;
  description: string;
}

/** The events of a feed, its lines unfolded (RFC 5545 §3.1); checks that every line ends with CRLF and is at most 75 octets. */
function eventsOf(text: string): CalendarEvent[] {
  assert.doesNotMatch(text.replace(/\r\n/g, ""), /[\r\n]/, "every line ends with CRLF");
  for (const raw of text.split("\r\n")) assert.ok(Buffer.byteLength(raw, "utf8") <= 75, raw);
  const lines = text.replace(/\r\n[ \t]/g, "").split("\r\n");
  assert.equal(lines[0], "BEGIN:VCALENDAR");
  const out: CalendarEvent[] = [];
  let current: Record<string, string> | null = null;
  for (const line of lines) {
    if (line === "BEGIN:VEVENT") current = {};
    else if (line === "END:VEVENT" && current !== null) {
      out.push({
        uid: current.UID ?? "",
        start: current.DTSTART ?? "",
        end: current.DTEND ?? "",
        summary: current.SUMMARY ?? "",
        description: current.DESCRIPTION ?? "",
      });
      current = null;
    } else if (current !== null) {
      const at = line.indexOf(":");
      current[line.slice(0, at)] = line.slice(at + 1);
    }
  }
  return out;
}

test("a cluster's calendar holds its fleet window as the cluster renders it: the patched zone moves the openings", async () => {
  const patched = eventsOf((await fleet.call("GET", "/api/v1/clusters/edge-1/calendar.ics", viewer())).text);
  const plain = eventsOf((await fleet.call("GET", "/api/v1/clusters/edge-2/calendar.ics", viewer())).text);
  const monday = (events: CalendarEvent[]): CalendarEvent | undefined =>
    events.find((e) => e.summary.startsWith("Open: prod-changes on") && e.start.startsWith("20261123"));
  assert.equal(patchedZone(1), "America/New_York");
  // prod-changes opens 08:00 to 17:00 Monday to Thursday in UTC; edge-1's patch runs it in New York (UTC-5 in November).
  assert.deepEqual([monday(plain)?.start, monday(plain)?.end], ["20261123T080000Z", "20261123T170000Z"]);
  assert.deepEqual([monday(patched)?.start, monday(patched)?.end], ["20261123T130000Z", "20261123T220000Z"]);
  assert.match(monday(patched)?.description ?? "", /\(America\/New_York\)/);
});

test("the fleet's calendar: one event for the clusters that share a stretch, ?selector= and ?window= choose, patches apply", async () => {
  const r = await fleet.call("GET", "/api/v1/fleet/calendar.ics?selector=ring%3Dprod&window=prod-changes", viewer());
  assert.equal(r.status, 200, r.text);
  assert.equal(r.headers.get("content-type"), "text/calendar; charset=utf-8");
  assert.match(r.text.replace(/\r\n[ \t]/g, ""), /\r\nX-WR-CALNAME:fluxgate windows of the clusters ring=prod\\, window prod-changes\r\n/);
  const events = eventsOf(r.text);
  assert.ok(events.length > 20, `${events.length} events`);
  assert.ok(
    events.every((e) => /^Open: prod-changes on /.test(e.summary)),
    "only the chosen window, only open stretches (it has no freezes)",
  );
  assert.equal(new Set(events.map((e) => e.uid)).size, events.length, "UIDs are unique");
  const monday = events.filter((e) => e.start.startsWith("20261123"));
  assert.deepEqual(
    monday.map((e) => [e.start, e.end, e.summary]),
    [
      ["20261123T080000Z", "20261123T170000Z", "Open: prod-changes on 4 clusters"],
      ["20261123T130000Z", "20261123T220000Z", "Open: prod-changes on 2 clusters"],
    ],
  );
  assert.match(monday[0]?.description ?? "", /may take changes on 4 clusters: edge-2\\, edge-3\\, edge-6\\, edge-7\./);
  assert.match(monday[1]?.description ?? "", /may take changes on 2 clusters: edge-1\\, edge-5\.\\n.*\(America\/New_York\)/);
  const again = eventsOf((await fleet.call("GET", "/api/v1/fleet/calendar.ics?selector=ring%3Dprod&window=prod-changes", viewer())).text);
  assert.deepEqual(
    again.map((e) => e.uid),
    events.map((e) => e.uid),
    "the same UIDs when made again",
  );

  const whole = eventsOf((await fleet.call("GET", "/api/v1/fleet/calendar.ics", viewer())).text);
  for (const window of ["apps-rt", "nightly", "prod-changes", "canary-changes"])
    assert.ok(
      whole.some((e) => e.summary.startsWith(`Open: ${window} on `)),
      window,
    );
  // Every cluster runs apps-rt alike: one event an hour for all eight.
  assert.ok(whole.some((e) => e.summary === "Open: apps-rt on 8 clusters" && e.start === "20261123T100000Z"));
  // A calendar app cannot send a header: the token goes in the address.
  const app = await fetch(`${fleet.service.url}/api/v1/fleet/calendar.ics?window=nightly&access_token=${fleet.tokens.viewer}`);
  assert.equal(app.status, 200);
  assert.match(await app.text(), /SUMMARY:Open: nightly on edge-0\r\n/);
});

test("bad fleet calendar requests get a specific error", async () => {
  const cases: Array<[string, number, RegExp]> = [
    ["selector=ring%20in%20(prod", 400, /selector/],
    ["window=nope", 404, /no cluster has a window "nope" \(windows: apps-rt, canary-changes, nightly, prod-changes\)/],
    [
      "selector=ring%3Dcanary&window=prod-changes",
      404,
      /no cluster matching ring=canary has a window "prod-changes" \(windows: apps-rt, canary-changes, nightly\)/,
    ],
    ["window=Bad_Name", 400, /window "Bad_Name" is not a valid Kubernetes name/],
    ["from=2026-11-01T00:00:00Z&to=2028-01-01T00:00:00Z", 400, /longer than 400 days/],
  ];
  for (const [query, status, message] of cases) {
    const r = await fleet.call("GET", `/api/v1/fleet/calendar.ics?${query}`, viewer());
    assert.equal(r.status, status, `${query}: ${r.text}`);
    assert.match(r.body.error.message, message, query);
  }
  assert.equal((await fetch(`${fleet.service.url}/api/v1/fleet/calendar.ics`)).status, 401);
  // Past its bound the feed is refused, never cut short.
  const model = await fleet.service.repository.fleet();
  const refused = computeFleetCalendar(
    await fleetCalendarInput(model.clusters, { now: NOW, from: NOW, to: NOW + 30 * 86_400_000, version: "test", title: "t", maxEvents: 100 }),
  );
  assert.equal(refused.ok, false);
  assert.match(refused.ok ? "" : refused.message, /more than 100 events: choose fewer clusters/);
});

test("a fleet freeze is in the fleet's calendar: the frozen clusters get their own event, the others keep theirs", async () => {
  const address = "/api/v1/fleet/calendar.ics?selector=ring%3Dprod&window=prod-changes&from=2026-11-23T00:00:00Z&to=2026-11-24T00:00:00Z";
  const before = (await fleet.call("GET", address, viewer())).text;
  assert.equal((await fleet.call("GET", address, viewer())).text, before, "the same feed again, from the cache");
  assert.doesNotMatch(before, /Frozen/);
  const made = await fleet.call("POST", "/api/v1/fleet/overrides", {
    body: { selector: "region=ap", until: "2026-11-23T18:00:00Z", reason: "network work in ap", name: "ap-stop", windows: ["prod-changes"] },
  });
  assert.equal(made.status, 201, made.text);
  // A new commit: the feed is made again.
  const events = eventsOf((await fleet.call("GET", address, viewer())).text);
  const summaries = events.map((e) => `${e.start} ${e.end} ${e.summary}`);
  // region ap: edge-2 (the base's hours) and edge-5 (New York's, by its patch), frozen from the request (10:00) to 18:00.
  assert.ok(summaries.includes("20261123T080000Z 20261123T170000Z Open: prod-changes on 3 clusters"), summaries.join("\n"));
  assert.ok(summaries.includes("20261123T100000Z 20261123T180000Z Frozen: prod-changes on edge-2 (network work in ap)"), summaries.join("\n"));
  assert.ok(
    summaries.some((s) => /^20261123T\d{6}Z 20261123T\d{6}Z Frozen: prod-changes on edge-5 \(network work in ap\)$/.test(s)),
    summaries.join("\n"),
  );
  const threeOf = events.find((e) => e.summary === "Open: prod-changes on 3 clusters");
  assert.match(threeOf?.description ?? "", /on 3 clusters: edge-3\\, edge-6\\, edge-7\./);
});
