// GET /clusters as the service writes it, a cluster a line, and the fleet page's reading of it a slice at a time: the same clusters and fields as one
// JSON.parse, for lists of every size around a slice, with labels that hold what JSON escapes, and answers not written so.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { LIST_SLICE, parseClusterList, type ClusterItem } from "../../../src/server/dashboard/client/api.ts";
import { clusterListJson } from "../../../src/server/routes/clusters.ts";

const cluster = (i: number, labels?: Record<string, string>) => ({
  name: `c-${i}`,
  path: `clusters/c-${i}`,
  timeZone: "Europe/Berlin",
  ...(labels === undefined ? {} : { labels }),
});

async function read(text: string): Promise<{ rest: unknown; out: ClusterItem[]; tasks: number }> {
  const out: ClusterItem[] = [];
  let tasks = 0;
  const rest = await parseClusterList(text, out, () => {
    tasks++;
    return Promise.resolve();
  });
  return { rest, out, tasks };
}

describe("the cluster list a line a cluster", () => {
  it("is the JSON of the same answer, a cluster on each line between the list's brackets", () => {
    const text = clusterListJson({ selector: "ring=canary" }, [cluster(1, { ring: "canary" }), cluster(2, { ring: "canary" })], { total: 2, continue: null });
    assert.deepEqual(JSON.parse(text), {
      selector: "ring=canary",
      clusters: [cluster(1, { ring: "canary" }), cluster(2, { ring: "canary" })],
      total: 2,
      continue: null,
    });
    assert.deepEqual(text.split("\n"), [
      '{"selector":"ring=canary","clusters":[',
      `${JSON.stringify(cluster(1, { ring: "canary" }))},`,
      JSON.stringify(cluster(2, { ring: "canary" })),
      '],"total":2,"continue":null}',
    ]);
    assert.deepEqual(JSON.parse(clusterListJson({}, [], { total: 0, continue: null })), { clusters: [], total: 0, continue: null });
  });

  for (const size of [0, 1, 2, LIST_SLICE - 1, LIST_SLICE, LIST_SLICE + 1, 2 * LIST_SLICE + 7]) {
    it(`reads ${size} clusters as one JSON.parse does, ${LIST_SLICE} a task`, async () => {
      // Labels with what JSON escapes (a newline, quotes, brackets and commas), and some clusters without labels.
      const clusters = Array.from({ length: size }, (_, i) => cluster(i, i % 3 === 0 ? undefined : { note: `a\n"b"},\n{"name":"x"`, ring: `r${i % 4}` }));
      const text = clusterListJson(size % 2 === 0 ? {} : { selector: "ring" }, clusters, { total: size, continue: size > 5 ? "b2Zmc2V0PTUwMA" : null });
      const { rest, out, tasks } = await read(text);
      assert.deepEqual(
        out,
        clusters.map((k) => ({ labels: {}, ...k })),
      );
      assert.deepEqual(rest, { continue: size > 5 ? "b2Zmc2V0PTUwMA" : null });
      assert.equal(tasks, Math.ceil(size / LIST_SLICE));
    });
  }

  it("reads an answer not written a cluster a line whole, in a task of its own", async () => {
    const body = { clusters: [cluster(1), cluster(2, { a: "b" })], total: 2, continue: "b2Zmc2V0PTI" };
    const one = { ...body, clusters: [cluster(3)] };
    for (const [text, clusters] of [
      [JSON.stringify(body), body.clusters],
      [JSON.stringify(body, null, 2), body.clusters],
      [JSON.stringify(one).replace("[", "[\n"), one.clusters],
    ] as const) {
      const { rest, out, tasks } = await read(text);
      assert.deepEqual(
        out,
        clusters.map((k) => ({ labels: {}, ...k })),
      );
      assert.deepEqual(rest, { continue: "b2Zmc2V0PTI" });
      assert.equal(tasks, 1);
    }
  });
});
