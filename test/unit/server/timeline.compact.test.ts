// The fleet timeline's compact form: expanded, it is exactly the full form of each cluster; GET /timeline sends it compressed, kept per commit, range and page,
// with an ETag.

import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { writeGeneratedFleet } from "../../../src/devenv/generated-fleet.ts";
import { chosenEncoding } from "../../../src/server/http/encoded.ts";
import { Repository } from "../../../src/server/git/repository.ts";
import { computeCompactTimeline, computeTimeline, timelineInput } from "../../../src/server/views/timeline.ts";
import fc from "fast-check";
import {
  expandClusterTimeline,
  repeated,
  unrepeated,
  type CompactClusterTimeline,
  type CompactFleetTimeline,
} from "../../../src/server/views/timeline-format.ts";
import { fixture, git, NOW, tempDir } from "../../support/server.ts";

const DAY = 86_400_000;
const decode = (bytes: Uint8Array): unknown => JSON.parse(new TextDecoder().decode(bytes));

test("expanded, each cluster's compact timeline is its full timeline, with overrides, freezes, invalid windows and every range", async (t) => {
  const f = await fixture();
  t.after(f.cleanup);
  const freeze = await f.call("POST", "/api/v1/clusters/edge-berlin/overrides", {
    body: { window: "apps-rw", action: "Freeze", duration: "4h", reason: "Incident 88" },
  });
  assert.equal(freeze.status, 201);
  // A window file broken by hand: its lane is invalid, and so is the decision for its target.
  await writeFile(
    join(f.dir, "clusters/edge-berlin/windows/nightly.yaml"),
    "apiVersion: fluxgate.io/v1alpha1\nkind: ReconciliationWindow\nmetadata: {name: nightly}\nspec:\n  schedules: [{start: '0 99 * * *', duration: 1h}]\n  targets: [{kind: Kustomization, name: apps-rw}]\n",
  );
  await git(f.dir, "commit", "--quiet", "-am", "hand edit");
  await new Promise((resolve) => setTimeout(resolve, 1100));
  const fleet = await f.repository.fleet();
  assert.ok(
    fleet.clusters.some((k) => k.windows.some((w) => w.compiled === null)),
    "an invalid window is compared too",
  );
  let lanes = 0;
  for (const k of fleet.clusters) {
    // A week, a month with the holiday freeze, and a range that starts and ends inside intervals (at odd seconds).
    for (const [from, to] of [
      [NOW, NOW + 7 * DAY],
      [Date.parse("2026-12-01T00:00:00Z"), Date.parse("2027-01-01T00:00:00Z")],
      [NOW + 4_321_000, NOW + 3 * DAY + 17_000],
    ] as const) {
      const full = decode(computeTimeline(timelineInput(k, from, to)));
      const compact = decode(computeCompactTimeline(timelineInput(k, from, to))) as CompactClusterTimeline;
      assert.deepEqual(expandClusterTimeline(compact, from, to), full, `${k.entry.name} ${new Date(from).toISOString()}`);
      lanes += compact.windows.length + compact.targets.length;
    }
  }
  assert.ok(lanes > 10, `lanes compared: ${lanes}`);
  const berlin = decode(computeCompactTimeline(timelineInput(fleet.clusters[0]!, NOW, NOW + DAY))) as CompactClusterTimeline;
  assert.ok(
    berlin.windows.some((w) => w.overrides.some((o) => o.by === "eddie editor")),
    "an override band says who asked for it",
  );
});

test("clusters alike share computed windows and still each get their own: a fleet of four zones, compact equals full for every cluster", async (t) => {
  const temp = await tempDir("compact-fleet");
  t.after(temp.cleanup);
  const dir = join(temp.dir, "fleet");
  await writeGeneratedFleet(dir, 12);
  const repository = await Repository.open(dir, { now: () => NOW });
  const fleet = await repository.fleet();
  const from = Date.parse("2026-12-14T00:00:00Z");
  const to = from + 31 * DAY;
  let fullBytes = 0;
  let compactBytes = 0;
  for (const k of fleet.clusters) {
    const fullJson = computeTimeline(timelineInput(k, from, to));
    const compactJson = computeCompactTimeline(timelineInput(k, from, to));
    fullBytes += fullJson.byteLength;
    compactBytes += compactJson.byteLength;
    const expanded = expandClusterTimeline(decode(compactJson) as CompactClusterTimeline, from, to);
    assert.deepEqual(expanded, decode(fullJson), k.entry.name);
    assert.equal(expanded.timeZone, k.entry.timeZone);
  }
  assert.ok(compactBytes * 4 < fullBytes, `the compact form is a fraction of the full one: ${compactBytes} of ${fullBytes} bytes`);
});

test("GET /timeline answers compact, compressed by Accept-Encoding, kept per commit, range and page, 304 for its ETag", async (t) => {
  const f = await fixture();
  t.after(f.cleanup);
  const path = "/api/v1/timeline?from=2026-12-14T00:00:00Z&to=2027-01-14T00:00:00Z&limit=2";
  const get = async (headers: Record<string, string> = {}): Promise<Response> =>
    await f.app.request(path, { headers: { authorization: `Bearer ${f.tokens.viewer}`, ...headers } });
  const plain = await get();
  assert.equal(plain.status, 200);
  assert.equal(plain.headers.get("content-encoding"), null);
  assert.equal(plain.headers.get("vary"), "Accept-Encoding");
  const bytes = new Uint8Array(await plain.arrayBuffer());
  const body = decode(bytes) as CompactFleetTimeline;
  assert.equal(body.format, "compact");
  assert.deepEqual(
    body.clusters.map((c) => c.cluster),
    ["edge-berlin", "edge-newyork"],
  );
  assert.equal(body.total, 3);
  assert.equal(typeof body.continue, "string");
  const berlin = expandClusterTimeline(body.clusters[0]!, Date.parse(body.from), Date.parse(body.to));
  assert.ok(
    berlin.windows.some((w) => w.freezes.some((z) => z.reason === "Holiday freeze")),
    "the holiday freeze, expanded",
  );

  const br = await get({ "accept-encoding": "gzip, deflate, br" });
  assert.equal(br.headers.get("content-encoding"), "br");
  const brBytes = new Uint8Array(await br.arrayBuffer());
  assert.deepEqual(new Uint8Array(brotliDecompressSync(brBytes)), bytes);
  assert.ok(brBytes.byteLength * 3 < bytes.byteLength, `compressed: ${brBytes.byteLength} of ${bytes.byteLength} bytes`);
  const gz = await get({ "accept-encoding": "gzip" });
  assert.equal(gz.headers.get("content-encoding"), "gzip");
  assert.deepEqual(new Uint8Array(gunzipSync(new Uint8Array(await gz.arrayBuffer()))), bytes);
  const etags = [plain, br, gz].map((r) => r.headers.get("etag"));
  assert.equal(new Set(etags).size, 3, `one ETag per encoding: ${JSON.stringify(etags)}`);

  const again = await get({ "if-none-match": etags[1]! });
  assert.equal(again.status, 304);
  assert.equal(await again.text(), "");
  const otherPage = await f.app.request(`${path}&continue=${body.continue}`, {
    headers: { authorization: `Bearer ${f.tokens.viewer}`, "if-none-match": etags[0]! },
  });
  assert.equal(otherPage.status, 200, "another page is not the one the ETag names");
  const stale = await get({ "accept-encoding": "br", "if-none-match": '"nope"' });
  assert.equal(stale.status, 200);
  const pretty = await f.app.request(`${path}&pretty`, { headers: { authorization: `Bearer ${f.tokens.viewer}`, "accept-encoding": "br" } });
  assert.equal(pretty.headers.get("content-encoding"), null, "?pretty is sent as it is, indented");
  assert.match(await pretty.text(), /^\{\n {2}"format": "compact",/);

  // A commit changes the page: the old ETag no longer matches.
  const put = await f.call("POST", "/api/v1/clusters/edge-berlin/overrides", {
    body: { window: "apps-rw", action: "Freeze", duration: "4h", reason: "Incident 89" },
  });
  assert.equal(put.status, 201);
  const after = await get({ "if-none-match": etags[0]! });
  assert.equal(after.status, 200);
  assert.notEqual(after.headers.get("etag"), etags[0]);
});

test("Accept-Encoding: br before gzip, a q of 0 refuses one, * stands for the others", () => {
  assert.equal(chosenEncoding(undefined), "identity");
  assert.equal(chosenEncoding("gzip, deflate, br, zstd"), "br");
  assert.equal(chosenEncoding("gzip"), "gzip");
  assert.equal(chosenEncoding("br;q=0, gzip;q=0.5"), "gzip");
  assert.equal(chosenEncoding("*"), "br");
  assert.equal(chosenEncoding("*, br;q=0"), "gzip");
  assert.equal(chosenEncoding("identity, deflate"), "identity");
  assert.equal(chosenEncoding("x-gzip"), "gzip");
});

test("repeats are written short and read back to the same pairs", () => {
  assert.deepEqual(repeated([1800, 0, 1800, 1, 1800, 0, 1800, 1, 1800, 0, 1800, 1]), [1800, 0, 1800, 1, -2, 2]);
  assert.deepEqual(repeated([5, 1, 5, 1, 5, 1, 7, 2]), [5, 1, -2, 1, 7, 2]);
  assert.deepEqual(repeated([5, 1, 6, 1]), [5, 1, 6, 1], "nothing repeats: as it is");
  fc.assert(
    fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 2 })), { maxLength: 60 }), (pairs) => {
      const flat = pairs.flat();
      const short = repeated(flat);
      assert.deepEqual(unrepeated(short), flat);
      assert.ok(short.length <= flat.length);
    }),
    { numRuns: 2000 },
  );
  assert.throws(() => unrepeated([5, 1, -3, 2]), /a repeat of 2 pairs where 1 came before/);
});
