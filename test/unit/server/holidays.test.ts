// Holiday freezes in the Config Service: a window of a cluster's own or taken from its labels, named per holiday in the timeline, the fleet timeline
// and the .ics feeds; an unknown country or a cluster without the label refused with the field, the repository unchanged.

import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { parseDocument } from "yaml";
import { fixture, git, type Fixture } from "../../support/server.ts";

const RANGE = "from=2026-06-01T00:00:00Z&to=2026-06-08T00:00:00Z";

/** Gives edge-berlin the labels country=DE, subdivision=BY in fluxgate.yaml, committed. */
async function labelBerlin(f: Fixture): Promise<void> {
  const file = join(f.dir, "fluxgate.yaml");
  const doc = parseDocument(await readFile(file, "utf8"));
  const clusters = doc.get("clusters") as { items: Array<{ get(k: string): unknown; set(k: string, v: unknown): void }> };
  const berlin = clusters.items.find((c) => c.get("name") === "edge-berlin");
  assert.ok(berlin !== undefined);
  berlin.set("labels", { country: "DE", subdivision: "BY" });
  await writeFile(file, doc.toString());
  await git(f.dir, "commit", "--quiet", "-am", "edge-berlin is in Bavaria");
  // The service looks at HEAD again at most once a second (a commit of its own is seen at once).
  await new Promise((resolve) => setTimeout(resolve, 1100));
}

const spec = (holidays: Record<string, unknown>): Record<string, unknown> => ({
  timeZone: "Europe/Berlin",
  schedules: [{ start: "0 8 * * MON-FRI", duration: "9h" }],
  freezes: [{ holidays }],
  targets: [{ kind: "Kustomization", name: "apps-rw" }],
});

test("a holiday freeze from the cluster's labels: the timeline, the fleet timeline and the .ics feeds name Fronleichnam", async (t) => {
  const f = await fixture();
  t.after(f.cleanup);
  await labelBerlin(f);
  const put = await f.call("PUT", "/api/v1/clusters/edge-berlin/windows/holidays", {
    body: { spec: spec({ fromClusterLabels: { country: "country", subdivision: "subdivision" } }), reason: "Bavarian holidays" },
  });
  assert.equal(put.status, 201, put.text);

  const timeline = await f.call("GET", `/api/v1/clusters/edge-berlin/timeline?${RANGE}`);
  assert.equal(timeline.status, 200, timeline.text);
  const w = (timeline.body.windows as Array<{ name: string; freezes: Array<{ start: string; end: string; reason?: string }> }>).find(
    (x) => x.name === "holidays",
  );
  assert.deepEqual(
    w?.freezes.map((z) => [z.start, z.end, z.reason]),
    [["2026-06-03T22:00:00Z", "2026-06-04T22:00:00Z", "Fronleichnam"]],
  );

  const fleet = await f.call("GET", `/api/v1/timeline?${RANGE}`);
  assert.equal(fleet.status, 200, fleet.text);
  assert.match(fleet.text, /"reason":"Fronleichnam"/);

  const ics = await f.call("GET", `/api/v1/clusters/edge-berlin/calendar.ics?${RANGE}`);
  assert.equal(ics.status, 200, ics.text);
  assert.match(ics.text.replace(/\r\n[ \t]/g, ""), /SUMMARY:Frozen: holidays on edge-berlin \(Fronleichnam\)/);
  const target = await f.call("GET", `/api/v1/clusters/edge-berlin/calendar.ics?${RANGE}&target=Kustomization/flux-system/apps-rw`);
  assert.equal(target.status, 200, target.text);
  assert.match(target.text.replace(/\r\n[ \t]/g, ""), /Fronleichnam \(window holidays\)/);
  const fleetIcs = await f.call("GET", `/api/v1/fleet/calendar.ics?${RANGE}`);
  assert.equal(fleetIcs.status, 200, fleetIcs.text);
  assert.match(fleetIcs.text.replace(/\r\n[ \t]/g, ""), /Fronleichnam/);
});

test("an unknown country, or a cluster without the label, is refused naming the field; nothing is committed", async (t) => {
  const f = await fixture();
  t.after(f.cleanup);
  const head = await git(f.dir, "rev-parse", "HEAD");
  const unknown = await f.call("PUT", "/api/v1/clusters/edge-berlin/windows/holidays", { body: { spec: spec({ country: "Germany" }), reason: "x" } });
  assert.equal(unknown.status, 400, unknown.text);
  assert.match(unknown.text, /spec\.freezes\[0\]\.holidays\.country/);
  assert.match(unknown.text, /did you mean \\"DE\\" \(Germany\)\?/);
  const unlabelled = await f.call("PUT", "/api/v1/clusters/edge-berlin/windows/holidays", {
    body: { spec: spec({ fromClusterLabels: { country: "country" } }), reason: "x" },
  });
  assert.equal(unlabelled.status, 400, unlabelled.text);
  assert.match(unlabelled.text, /spec\.freezes\[0\]\.holidays\.fromClusterLabels\.country/);
  assert.match(unlabelled.text, /cluster edge-berlin has no label \\"country\\"/);
  assert.equal(await git(f.dir, "rev-parse", "HEAD"), head);
});
