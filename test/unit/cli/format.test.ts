// How the CLI words time and windows for people: relative times, wall clocks in a zone, next changes, colour only on a terminal.

import assert from "node:assert/strict";
import { test } from "node:test";
import { stripVTControlCharacters } from "node:util";
import { Views } from "../../../src/policy/views.ts";
import { colorEnabled, painter } from "../../../src/cli/format/color.ts";
import { measuredTableLines, table, tableLines } from "../../../src/cli/format/table.ts";
import { at, relative, span, wallClock, when } from "../../../src/cli/format/when.ts";
import { attention, nextChange, shortRevision, type WindowObject } from "../../../src/cli/format/window.ts";
import { statusTable } from "../../../src/cli/status.ts";
import { zoneRules } from "../../../src/schedule/index.ts";

const NOW = Date.parse("2026-11-23T04:47:00Z"); // Mon 05:47 CET
const BERLIN = zoneRules("Europe/Berlin");

test("lengths in their two largest units, compact; relative to now in both directions", () => {
  assert.equal(span(2 * 3_600_000 + 13 * 60_000 + 20_000), "2h13m");
  assert.equal(span(3 * 86_400_000 + 4 * 3_600_000), "3d4h");
  assert.equal(span(45_000), "45s");
  assert.equal(span(300), "0s");
  assert.equal(relative(NOW + 90_000, NOW), "in 1m30s");
  assert.equal(relative(NOW - 7_200_000, NOW), "2h ago");
  assert.equal(relative(NOW + 400, NOW), "now");
});

test("wall clocks in the window's zone: the weekday alone within six days, the date beyond; seconds only when set; DST names", () => {
  assert.equal(wallClock(Date.parse("2026-11-23T07:00:00Z"), NOW, BERLIN), "Mon 08:00 CET");
  assert.equal(wallClock(Date.parse("2026-11-23T07:00:05Z"), NOW, BERLIN), "Mon 08:00:05 CET");
  assert.equal(wallClock(Date.parse("2027-01-04T23:00:00Z"), NOW, BERLIN), "Tue 2027-01-05 00:00 CET");
  assert.equal(wallClock(Date.parse("2026-07-01T06:00:00Z"), Date.parse("2026-06-30T00:00:00Z"), BERLIN), "Wed 08:00 CEST");
  assert.equal(when(Date.parse("2026-11-23T07:00:00Z"), NOW, BERLIN), "in 2h13m, Mon 08:00 CET");
  assert.equal(at(Date.parse("2026-11-23T07:00:00Z"), NOW, BERLIN), "Mon 08:00 CET (in 2h13m)");
});

function w(status: WindowObject["status"], spec: WindowObject["spec"] = { timeZone: "Europe/Berlin" }): WindowObject {
  return { metadata: { name: "weekday-changes", namespace: "flux-system" }, spec, status };
}

test("the next change in words, from what the controller reported, for each state", () => {
  const open = "2026-11-23T07:00:00Z";
  assert.equal(nextChange(w({ state: "Closed", nextTransition: open, nextOpen: open }), NOW), "opens in 2h13m, Mon 08:00 CET");
  assert.equal(
    nextChange(w({ state: "Closed", nextTransition: "2026-11-27T23:00:00Z", nextOpen: "2026-11-30T07:00:00Z" }), NOW),
    "freezes in 4d18h, Sat 00:00 CET",
  );
  assert.equal(
    nextChange(w({ state: "Open", nextTransition: "2026-11-26T16:00:00Z", nextClose: "2026-11-26T16:00:00Z" }), NOW),
    "closes in 3d11h, Thu 17:00 CET",
  );
  assert.equal(nextChange(w({ state: "Frozen", nextTransition: "2026-11-28T23:00:00Z" }), NOW), "freeze ends in 5d18h, Sun 00:00 CET");
  assert.equal(
    nextChange(w({ state: "Overridden", nextTransition: "2026-11-23T06:00:00Z", nextOpen: "2026-11-23T06:00:00Z" }), NOW),
    "override ends in 1h13m, Mon 07:00 CET",
  );
  assert.equal(nextChange(w({ state: "Open" }), NOW), "stays open");
  assert.equal(nextChange(w({ state: "Closed" }), NOW), "no opening within a year");
  assert.equal(nextChange(w(undefined), NOW), "-");
  // A change long past means nobody updated the status.
  assert.equal(
    nextChange(w({ state: "Closed", nextTransition: "2026-11-23T04:00:00Z", nextOpen: "2026-11-23T04:00:00Z" }), NOW),
    "opens: was due 47m ago — is the controller running?",
  );
  assert.equal(nextChange(w({ state: "Open", nextTransition: "2026-11-26T16:00:00Z" }, {}), NOW), "closes in 3d11h, Thu 16:00 UTC");
});

test("revisions keep 12 hex digits; what needs attention is said in a sentence", () => {
  assert.equal(shortRevision("main@sha1:7d3e1f0a9b8c2d4e6f708192a3b4c5d6e7f80912"), "main@sha1:7d3e1f0a9b8c");
  assert.equal(shortRevision("v1.2.3@sha256:" + "a".repeat(64)), "v1.2.3@sha256:aaaaaaaaaaaa");
  assert.equal(shortRevision("6.1.0+abc"), "6.1.0+abc");
  assert.match(attention(w(undefined)) ?? "", /^not reconciled yet: is the fluxgate controller running\?/);
  assert.equal(
    attention(
      w({
        conditions: [
          {
            type: "SuspendReverted",
            status: "True",
            reason: "SuspendReverted",
            message: 'spec.suspend of Kustomization/flux-system/apps-rw was set back by manager "kustomize-controller"',
            lastTransitionTime: "",
          },
        ],
      }),
    ),
    'spec.suspend of Kustomization/flux-system/apps-rw was set back by manager "kustomize-controller"',
  );
  assert.equal(
    attention(
      w({
        state: "Open",
        conditions: [{ type: "Ready", status: "True", reason: "Reconciled", message: "1 target(s) follow the window", lastTransitionTime: "" }],
      }),
    ),
    null,
  );
});

test("a window the controller has not reported: Unknown, with a hint", () => {
  const out = statusTable([w(undefined)], [], NOW, {
    allNamespaces: false,
    wide: false,
    namespace: "flux-system",
    namespaceFromContext: false,
    paint: painter(false),
    views: new Views(),
  });
  assert.equal(
    out,
    "NAME              STATE     SINCE   NEXT   TARGETS   PENDING   OVERRIDE\n" +
      "weekday-changes   Unknown   -       -      -         0         -\n\n" +
      "Needs attention:\n  ! weekday-changes: not reconciled yet: is the fluxgate controller running? (kubectl -n fluxgate-system get deploy fluxgate-controller)\n",
  );
});

test("colour only on a terminal that has colours, never with NO_COLOR; coloured cells keep the columns aligned", () => {
  const tty = (colors: boolean): NodeJS.WritableStream => ({ isTTY: true, hasColors: () => colors }) as unknown as NodeJS.WritableStream;
  const pipe = {} as NodeJS.WritableStream;
  assert.equal(colorEnabled(tty(true), {}), true);
  assert.equal(colorEnabled(tty(true), { NO_COLOR: "1" }), false);
  assert.equal(colorEnabled(tty(true), { NO_COLOR: "" }), true, "an empty NO_COLOR does not count (no-color.org)");
  assert.equal(colorEnabled(tty(false), {}), false);
  assert.equal(colorEnabled(pipe, {}), false);
  const p = painter(true);
  assert.equal(p("green", "Open"), "\x1b[32mOpen\x1b[39m");
  assert.equal(painter(false)("green", "Open"), "Open");
  const coloured = table(
    ["STATE", "NAME"],
    [
      [p("green", "Open"), "a"],
      ["Closed", "b"],
    ],
  );
  assert.equal(stripVTControlCharacters(coloured), "STATE    NAME\nOpen     a\nClosed   b");
});

test("what waits: the revision with how many revisions have arrived since the applied one, and the wait", () => {
  const spec: WindowObject["spec"] = { timeZone: "Europe/Berlin" };
  const pending = (revisions: number): NonNullable<WindowObject["status"]>["pending"] => [
    {
      kind: "Kustomization",
      namespace: "flux-system",
      name: "apps-rw",
      pendingRevision: "main@sha1:7d3e1f0a9b8c2d4e6f708192a3b4c5d6e7f80912",
      revisions,
      waitingSince: "2026-11-22T22:47:00Z",
    },
  ];
  const options = { allNamespaces: false, wide: false, namespace: "flux-system", namespaceFromContext: false, paint: painter(false), views: new Views() };
  const status = (revisions: number): WindowObject["status"] => ({
    state: "Closed",
    targets: { matched: 1, open: 0, closed: 1, pending: 1, conflicts: 0 },
    pending: pending(revisions),
  });
  const two = statusTable([w(status(2), spec)], [], NOW, options);
  assert.match(two, /\n {2}Kustomization\/apps-rw {3}main@sha1:7d3e1f0a9b8c \(2 revisions\) {3}6h {8}weekday-changes /);
  const one = statusTable([w(status(1), spec)], [], NOW, options);
  assert.match(one, /\n {2}Kustomization\/apps-rw {3}main@sha1:7d3e1f0a9b8c {3}6h {8}weekday-changes /);
});

test("what waits: a target held by windows of different modes never goes out until the conflict is resolved", () => {
  const window = (name: string, mode: "Suspend" | "Gate"): WindowObject => ({
    apiVersion: "fluxgate.io/v1alpha1",
    kind: "ReconciliationWindow",
    metadata: { name, namespace: "flux-system" },
    spec: {
      timeZone: "Europe/Berlin",
      schedules: [{ start: "0 8 * * *", duration: "1h" }],
      targets: [{ kind: "Kustomization", name: "apps-rw" }],
      ...(mode === "Gate" ? { mode, gate: { upstream: { kind: "GitRepository", name: "gitops" }, gatedName: "gitops-gated" } } : {}),
    },
    status: {
      state: "Closed",
      targets: { matched: 1, open: 0, closed: 1, pending: 1, conflicts: 1 },
      pending: [
        {
          kind: "Kustomization",
          namespace: "flux-system",
          name: "apps-rw",
          pendingRevision: "main@sha1:7d3e1f0a9b8c2d4e6f708192a3b4c5d6e7f80912",
          revisions: 1,
          waitingSince: "2026-11-22T22:47:00Z",
        },
      ],
    },
  });
  const options = { allNamespaces: false, wide: false, namespace: "flux-system", namespaceFromContext: false, paint: painter(false), views: new Views() };
  const out = statusTable([window("nightly", "Suspend"), window("gated", "Gate")], [], NOW, options);
  assert.match(out, /Kustomization\/apps-rw .* held: windows of different modes select it, until one mode governs it$/m);
  assert.doesNotMatch(out, /in \d+h/, "no time to go out");
});

test("a table of any length: 300,000 rows, aligned by their widest cell", () => {
  const rows = Array.from({ length: 300_000 }, (_, i) => [String(i), "x"]);
  const lines = table(["N", "X"], rows).split("\n");
  assert.equal(lines.length, 300_001);
  assert.equal(lines[1], "0        x");
  assert.equal(lines.at(-1), "299999   x");
});

test("a streamed table makes a short table's rows once and a long one's twice, the same lines either way", () => {
  const made = (n: number): { lines: string[]; calls: number } => {
    let calls = 0;
    const lines = [
      ...tableLines(["N", "X", "LAST"], function* () {
        calls++;
        for (let i = 0; i < n; i++) yield [String(i), i % 2 === 0 ? "xx" : "x", i === 1 ? "" : i === 2 ? "end \t" : "end"];
      }),
    ];
    return { lines, calls };
  };
  const short = made(1_000);
  assert.equal(short.calls, 1);
  const long = made(50_000);
  assert.equal(long.calls, 2);
  assert.equal(long.lines.length, 50_001);
  assert.deepEqual(long.lines.slice(0, 3), ["N       X    LAST", "0       xx   end", "1       x"]);
  assert.deepEqual(short.lines.slice(0, 4), ["N     X    LAST", "0     xx   end", "1     x", "2     xx   end"], "no white space is left at the end of a line");
  assert.equal(long.lines.at(-1), "49999   x    end");
});

test("a table measured by its caller writes what a measured one does, each row made as its line is written; a wider header widens its column", () => {
  const rows = Array.from({ length: 2_000 }, (_, i) => [String(i * 7), i % 3 === 0 ? "xx" : "x", i === 4 ? "" : i === 5 ? "end \t" : `end ${i}`]);
  const widths = [0, 1].map((c) => Math.max(...rows.map((r) => (r[c] as string).length)));
  const header = ["NUMBER", "X", "LAST"];
  assert.deepEqual([...measuredTableLines(header, widths, rows.length, (i) => rows[i] as string[])], table(header, rows).split("\n"));
  // The first line comes before the second row is made.
  const made: number[] = [];
  const lines = measuredTableLines(["A", "B"], [3, 0], 3, (i) => {
    made.push(i);
    return ["abc", String(i)];
  });
  assert.equal(lines.next().value, "A     B");
  assert.equal(lines.next().value, "abc   0");
  assert.deepEqual(made, [0]);
  assert.deepEqual([...lines], ["abc   1", "abc   2"]);
  assert.deepEqual(made, [0, 1, 2]);
});
