// Stories played at the same time are told one after the other, each whole, and none is cut short by another's error.

import assert from "node:assert/strict";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { playAtOnce, type StorySink } from "../../../src/demo/together.ts";

interface Written {
  readonly lines: string[];
  readonly channels: { out: (l: string) => void; results: (l: string) => void };
}

function written(): Written {
  const lines: string[] = [];
  return { lines, channels: { out: (l) => lines.push(`out ${l}`), results: (l) => lines.push(`res ${l}`) } };
}

/** A story writing `count` lines `waitMs` apart, and recording one result. */
function story(name: string, count: number, waitMs: number, log: string[]) {
  return async (sink: StorySink): Promise<void> => {
    log.push(`${name} starts`);
    for (let i = 1; i <= count; i++) {
      await sleep(waitMs);
      sink.out(`${name} ${i}`);
    }
    sink.expectations.record({ ok: true, expectation: `[${name}] done`, detail: "" });
    log.push(`${name} ends`);
  };
}

test("the stories start together; the second is told whole after the first, its later lines as they come", async () => {
  const w = written();
  const log: string[] = [];
  const plays: Record<string, (s: StorySink) => Promise<void>> = { A: story("A", 2, 20, log), B: story("B", 4, 15, log) };
  const results = await playAtOnce(
    ["A", "B"],
    (name, sink) => (plays[name] as (s: StorySink) => Promise<void>)(sink),
    (name, i) => [`== ${name} (${i}) ==`],
    w.channels,
  );
  assert.deepEqual(log.slice(0, 2), ["A starts", "B starts"], "both start before either writes");
  assert.deepEqual(w.lines, [
    "out == A (0) ==",
    "out A 1",
    "out A 2",
    "res ok   [A] done",
    "out == B (1) ==",
    "out B 1",
    "out B 2",
    "out B 3",
    "out B 4",
    "res ok   [B] done",
  ]);
  assert.deepEqual(
    results.map((r) => r.map((x) => x.expectation)),
    [["[A] done"], ["[B] done"]],
  );
});

test("a story still playing when the one before it ends writes straight through from then on", async () => {
  const w = written();
  let bWrote = -1;
  await playAtOnce(
    ["A", "B"],
    async (name, sink) => {
      if (name === "A") {
        await sleep(10);
        sink.out("A 1");
        return;
      }
      await sleep(60);
      bWrote = w.lines.length;
      sink.out("B late");
    },
    (name) => [`== ${name} ==`],
    w.channels,
  );
  assert.equal(bWrote, 3, "A's lines and B's heading were written before B's late line");
  assert.deepEqual(w.lines, ["out == A ==", "out A 1", "out == B ==", "out B late"]);
});

test("a story that throws ends neither the others nor their telling; its error is thrown once all have ended", async () => {
  const w = written();
  let bEnded = false;
  await assert.rejects(
    playAtOnce(
      ["A", "B"],
      async (name, sink) => {
        if (name === "A") {
          sink.out("A 1");
          throw new Error("the control plane went away");
        }
        await sleep(30);
        sink.out("B 1");
        bEnded = true;
      },
      (name) => [`== ${name} ==`],
      w.channels,
    ),
    /the control plane went away/,
  );
  assert.equal(bEnded, true);
  assert.deepEqual(w.lines, ["out == A ==", "out A 1", "out == B ==", "out B 1"]);
});

test("one story is told as it happens", async () => {
  const w = written();
  const results = await playAtOnce(
    ["A"],
    (_name, sink) => {
      sink.out("A 1");
      sink.expectations.record({ ok: false, expectation: "[A] x", detail: "no" });
      return Promise.resolve();
    },
    () => ["== A =="],
    w.channels,
  );
  assert.deepEqual(w.lines, ["out == A ==", "out A 1", "res FAIL [A] x: no"]);
  assert.equal(results[0]?.[0]?.ok, false);
});
