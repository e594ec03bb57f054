// The iCalendar feed against RFC 5545's rules: CRLF lines, folding at 75 octets, escaping, required properties, stable UIDs.

import assert from "node:assert/strict";
import { test } from "node:test";
import { clusterCalendar, escapeText, foldLine } from "../../../src/server/views/ics.ts";
import { fixture, NOW } from "../../support/server.ts";

/** Unfolds content lines (RFC 5545 §3.1): a CRLF followed by one space or tab is removed. */
function unfold(text: string): string[] {
  return text.replace(/\r\n[ \t]/g, "").split("\r\n");
}

test("folding keeps every line within 75 octets, never splits a character, and unfolds to the original", () => {
  const line = `DESCRIPTION:${escapeText("Frühjahrsfreeze: Änderungen warten, bis die Anlage wieder läuft; 冬季の凍結 ".repeat(4))}`;
  const folded = foldLine(line);
  for (const part of folded.split("\r\n")) {
    assert.ok(Buffer.byteLength(part, "utf8") <= 75, `${Buffer.byteLength(part, "utf8")} octets: ${part}`);
    assert.ok(!part.includes("\uFFFD"));
  }
  assert.equal(folded.replace(/\r\n /g, ""), line);
  assert.equal(foldLine("SUMMARY:short"), "SUMMARY:short");
});

test("TEXT values escape backslashes, semicolons, commas and newlines", () => {
  assert.equal(escapeText("a\\b;c,d\ne\r\nf"), "a\\\\b\\;c\\,d\\ne\\nf");
});

test("the feed of a cluster is a valid calendar of its openings and freezes", async (t) => {
  const f = await fixture();
  t.after(f.cleanup);
  const response = await f.call("GET", "/api/v1/clusters/edge-berlin/calendar.ics", { token: f.tokens.viewer });
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("content-type"), "text/calendar; charset=utf-8");
  const text = response.text;
  assert.ok(text.endsWith("\r\n"));
  assert.doesNotMatch(text.replace(/\r\n/g, ""), /[\r\n]/, "every line ends with CRLF");
  for (const raw of text.split("\r\n")) assert.ok(Buffer.byteLength(raw, "utf8") <= 75, raw);
  const lines = unfold(text).filter((l) => l !== "");
  assert.equal(lines[0], "BEGIN:VCALENDAR");
  assert.equal(lines.at(-1), "END:VCALENDAR");
  for (const required of ["VERSION:2.0", "PRODID:-//fluxgate//Config Service 0.0.0-test//EN", "METHOD:PUBLISH", "CALSCALE:GREGORIAN"])
    assert.ok(lines.includes(required), required);
  // Components nest properly and every event has the required properties exactly once.
  const events: string[][] = [];
  let current: string[] | null = null;
  for (const line of lines.slice(1, -1)) {
    if (line === "BEGIN:VEVENT") {
      assert.equal(current, null, "no nested VEVENT");
      current = [];
    } else if (line === "END:VEVENT") {
      assert.ok(current);
      events.push(current);
      current = null;
    } else if (current !== null) current.push(line);
    assert.match(line, /^[A-Z-]+(;[A-Z-]+=[^:;]+)*:/, `a content line: ${line}`);
  }
  assert.ok(events.length > 10, `${events.length} events`);
  const prop = (e: string[], name: string): string[] => e.filter((l) => l.startsWith(`${name}:`)).map((l) => l.slice(name.length + 1));
  const stamp = new Date(NOW)
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}/, "");
  for (const e of events) {
    for (const name of ["UID", "DTSTAMP", "DTSTART", "DTEND", "SUMMARY"]) assert.equal(prop(e, name).length, 1, `${name} in ${e.join(" | ")}`);
    assert.deepEqual(prop(e, "DTSTAMP"), [stamp]);
    assert.match(prop(e, "DTSTART")[0] as string, /^\d{8}T\d{6}Z$/);
    assert.ok((prop(e, "DTEND")[0] as string) > (prop(e, "DTSTART")[0] as string));
  }
  const uids = events.map((e) => prop(e, "UID")[0]);
  assert.equal(new Set(uids).size, uids.length, "UIDs are unique");
  const summaries = events.map((e) => prop(e, "SUMMARY")[0]);
  assert.ok(summaries.includes("Open: apps-rw on edge-berlin"));
  assert.ok(summaries.includes("Frozen: apps-rw on edge-berlin (Holiday freeze)"));
  const monday = events.find((e) => prop(e, "DTSTART")[0] === "20261123T070000Z" && prop(e, "SUMMARY")[0] === "Open: apps-rw on edge-berlin");
  assert.ok(monday, "Monday's opening");
  assert.deepEqual(prop(monday, "DTEND"), ["20261126T160000Z"]);
  assert.match(prop(monday, "DESCRIPTION")[0] as string, /Mon 2026-11-23 08:00 CET – Thu 2026-11-26 17:00 CET \(Europe\/Berlin\)\\n2026-11-23T07:00:00Z/);
});

test("UIDs stay the same when the feed is made again later", async (t) => {
  const f = await fixture();
  t.after(f.cleanup);
  const uidOf = (text: string, start: string): string | undefined => {
    const events = text.replace(/\r\n /g, "").split("BEGIN:VEVENT").slice(1);
    const event = events.find((e) => e.includes(`DTSTART:${start}`) && e.includes("SUMMARY:Open: apps-rw"));
    return /UID:(\S+)/.exec(event ?? "")?.[1];
  };
  const now = await f.call("GET", "/api/v1/clusters/edge-berlin/calendar.ics");
  const later = await f.call("GET", "/api/v1/clusters/edge-berlin/calendar.ics?from=2026-11-20T00:00:00Z&to=2026-12-20T00:00:00Z");
  const uid = uidOf(now.text, "20261130T070000Z");
  assert.ok(uid);
  assert.equal(uidOf(later.text, "20261130T070000Z"), uid);
  const cluster = (await f.repository.fleet()).clusters[0]!;
  const hoursLater = clusterCalendar(cluster, { now: NOW + 5 * 3_600_000, from: NOW, to: NOW + 30 * 86_400_000, version: "x" });
  assert.equal(uidOf(hoursLater, "20261130T070000Z"), uid);
});

test("the feed of one target follows all its windows: nightly's Friday opening is no opening for a Kustomization that apps-rw freezes on Fridays", async (t) => {
  const f = await fixture();
  t.after(f.cleanup);
  const events = (text: string): Array<Record<string, string>> =>
    text
      .replace(/\r\n[ \t]/g, "")
      .split("BEGIN:VEVENT\r\n")
      .slice(1)
      .map((e) =>
        Object.fromEntries(
          e
            .split("\r\n")
            .filter((l) => l.includes(":"))
            .map((l) => [l.slice(0, l.indexOf(":")), l.slice(l.indexOf(":") + 1)]),
        ),
      );
  const windows = await f.call("GET", "/api/v1/clusters/edge-berlin/calendar.ics", { token: f.tokens.viewer });
  // Friday 27 November, 22:00 in Berlin: nightly's feed says open.
  const friday = "20261127T210000Z";
  assert.ok(events(windows.text).some((e) => e.DTSTART === friday && e.SUMMARY === "Open: nightly on edge-berlin"));
  const r = await f.call("GET", "/api/v1/clusters/edge-berlin/calendar.ics?target=Kustomization/flux-system/apps-rw", { token: f.tokens.viewer });
  assert.equal(r.status, 200);
  assert.equal(r.headers.get("content-type"), "text/calendar; charset=utf-8");
  const target = events(r.text);
  assert.match(r.text, /X-WR-CALNAME:fluxgate: Kustomization flux-system\/apps-rw on edge-berlin/);
  assert.ok(!target.some((e) => e.DTSTART === friday && (e.SUMMARY ?? "").startsWith("Open")), "no opening at 22:00 on a Friday");
  const frozen = target.find((e) => (e.DTSTART as string) <= friday && (e.DTEND as string) > friday);
  assert.equal(frozen?.SUMMARY, "Frozen: Kustomization flux-system/apps-rw on edge-berlin (No deploys on Fridays (window apps-rw))");
  // Monday 08:00 in Berlin: apps-rw opens it.
  assert.ok(target.some((e) => e.DTSTART === "20261123T070000Z" && e.SUMMARY === "Open: Kustomization flux-system/apps-rw on edge-berlin"));
  const unknown = await f.call("GET", "/api/v1/clusters/edge-berlin/calendar.ics?target=Kustomization/flux-system/nope", { token: f.tokens.viewer });
  assert.equal(unknown.status, 404);
  assert.match(unknown.body.error.message, /no window of cluster edge-berlin selects target "Kustomization\/flux-system\/nope"/);
});
