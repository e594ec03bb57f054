// `fluxgate schedule preview`: the JSON contract, the table for people, and exit code 2 with nothing on stdout for bad input.

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { test } from "node:test";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { Writable } from "node:stream";
import { stringify } from "yaml";
import { fluxgate as inProcess } from "../../support/cli.ts";
import { schedulePreview } from "../../../src/cli/schedule-preview.ts";

const run = promisify(execFile);
const CLI = new URL("../../../src/cli/main.ts", import.meta.url).pathname;
const SAMPLE = new URL("../../../config/samples/fluxgate.io_v1alpha1_reconciliationwindow.yaml", import.meta.url).pathname;

async function fluxgate(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args]);
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

test("-o json prints exactly the merged open intervals in UTC, clipped to the range", async () => {
  const r = await fluxgate(
    "schedule",
    "preview",
    "--start",
    "30 2 * * *",
    "--duration",
    "1h",
    "--tz",
    "Europe/Berlin",
    "--from",
    "2026-03-28T00:00:00Z",
    "--to",
    "2026-03-30T01:00:00Z",
    "-o",
    "json",
  );
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), {
    timeZone: "Europe/Berlin",
    open: [
      { start: "2026-03-28T01:30:00Z", end: "2026-03-28T02:30:00Z" },
      { start: "2026-03-29T01:00:00Z", end: "2026-03-29T02:00:00Z" }, // in the gap: 03:00 CEST
      { start: "2026-03-30T00:30:00Z", end: "2026-03-30T01:00:00Z" }, // clipped at --to
    ],
  });
});

test("a manifest file, with freezes, as JSON", async () => {
  const r = await fluxgate("schedule", "preview", "--file", SAMPLE, "--from", "2026-12-14T00:00:00Z", "--to", "2026-12-21T00:00:00Z", "-o", "json");
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), {
    timeZone: "Europe/Berlin",
    open: [
      { start: "2026-12-14T07:00:00Z", end: "2026-12-17T16:00:00Z" },
      { start: "2026-12-17T21:00:00Z", end: "2026-12-17T23:00:00Z" },
      { start: "2026-12-19T21:00:00Z", end: "2026-12-19T23:00:00Z" },
    ],
  });
});

test("the table shows local and UTC times, lengths, freezes and a timeline", async () => {
  const r = await fluxgate("schedule", "preview", "--file", SAMPLE, "--from", "2026-12-14T00:00:00Z", "--to", "2026-12-21T00:00:00Z");
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.split("\n");
  assert.equal(lines[0], "Window weekday-changes in Europe/Berlin");
  assert.ok(lines.includes("Mon 2026-12-14 08:00 CET   Thu 2026-12-17 17:00 CET   2026-12-14 07:00Z   2026-12-17 16:00Z   3d 9h"), r.stdout);
  assert.ok(
    lines.some((l) => /^Fri 2026-12-18 00:00 CET\s+Sat 2026-12-19 00:00 CET\s+No deploys on Fridays$/.test(l)),
    r.stdout,
  );
  assert.ok(lines.includes("Tue 15 Dec  ████████████████████████"), r.stdout);
  assert.ok(lines.includes("Fri 18 Dec  ▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒"), r.stdout);
  assert.ok(lines.includes("Sat 19 Dec  ······················██"), r.stdout);
});

test("--from and --to take RFC 3339 with fractions of a second, read to the second as every time printed is", async () => {
  const r = await fluxgate(
    "schedule",
    "preview",
    "--start",
    "0 8 * * *",
    "--duration",
    "1h",
    "--from",
    "2026-06-01T08:30:00.123Z",
    "--to",
    "2026-06-01T08:45:00.750Z",
    "-o",
    "json",
  );
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), { timeZone: "UTC", open: [{ start: "2026-06-01T08:30:00Z", end: "2026-06-01T08:45:00Z" }] });
  const bad = await fluxgate("schedule", "preview", "--start", "0 8 * * *", "--duration", "1h", "--from", "2026-06-01T08:30:00.Z");
  assert.equal(bad.code, 2);
  assert.equal(
    bad.stderr,
    'error: --from 2026-06-01T08:30:00.Z: "2026-06-01T08:30:00.Z" is not an RFC 3339 time: write it like 2026-03-29T00:00:00Z, 2026-03-29T00:00:00.250Z or 2026-03-29T01:00:00+01:00\n',
  );
});

test("a window shorter than a second: the JSON and the table give the same exact times and length", async () => {
  const args = [
    "schedule",
    "preview",
    "--start",
    "0 8 * * *",
    "--duration",
    "500ms",
    "--tz",
    "Europe/Berlin",
    "--from",
    "2026-06-01T00:00:00Z",
    "--to",
    "2026-06-02T00:00:00Z",
  ];
  const json = await fluxgate(...args, "-o", "json");
  assert.equal(json.code, 0, json.stderr);
  assert.deepEqual(JSON.parse(json.stdout), { timeZone: "Europe/Berlin", open: [{ start: "2026-06-01T06:00:00Z", end: "2026-06-01T06:00:00.500Z" }] });
  const table = await fluxgate(...args);
  assert.equal(table.code, 0, table.stderr);
  const lines = table.stdout.split("\n");
  assert.ok(
    lines.includes("Mon 2026-06-01 08:00 CEST   Mon 2026-06-01 08:00:00.500 CEST   2026-06-01 06:00Z   2026-06-01 06:00:00.500Z   500ms"),
    table.stdout,
  );
  assert.ok(lines.includes("1 open interval, 500ms open in all (0% of the range)."), table.stdout);
  const longer = await fluxgate(
    "schedule",
    "preview",
    "--start",
    "0 8 * * *",
    "--duration",
    "1500ms",
    "--from",
    "2026-06-01T00:00:00Z",
    "--to",
    "2026-06-02T00:00:00Z",
  );
  assert.ok(longer.stdout.split("\n").includes("Mon 2026-06-01 08:00 UTC   Mon 2026-06-01 08:00:01.500 UTC   1s 500ms"), longer.stdout);
});

test("the timeline has a column per hour of the clock on every day, DST days too, under the 0-24 header, and says where the clocks change", async () => {
  const timelineOf = (stdout: string): string[] =>
    stdout
      .split("\n")
      .slice(stdout.split("\n").findIndex((l) => l.startsWith("Timeline in")) + 1)
      .filter((l) => l !== "");
  const spring = await fluxgate(
    "schedule",
    "preview",
    "--start",
    "30 2 * * *",
    "--duration",
    "1h",
    "--tz",
    "Europe/Berlin",
    "--from",
    "2026-03-28T00:00:00Z",
    "--to",
    "2026-03-31T00:00:00Z",
  );
  assert.equal(spring.code, 0, spring.stderr);
  assert.deepEqual(timelineOf(spring.stdout), [
    "            0     6     12    18    24",
    "Sat 28 Mar   ·▌▌····················",
    "Sun 29 Mar  ··×█····················",
    "Mon 30 Mar  ··▌▌····················",
    "Tue 31 Mar  ··",
    "Sun 29 Mar: the clocks go forward 1h at 02:00 CET, to 03:00 CEST: 02:00–03:00 does not exist (×).",
  ]);
  const autumn = await fluxgate(
    "schedule",
    "preview",
    "--start",
    "0 2 * * *",
    "--duration",
    "90m",
    "--tz",
    "Europe/Berlin",
    "--from",
    "2026-10-24T22:00:00Z",
    "--to",
    "2026-10-25T23:00:00Z",
  );
  assert.equal(autumn.code, 0, autumn.stderr);
  assert.deepEqual(timelineOf(autumn.stdout), [
    "            0     6     12    18    24",
    "Sun 25 Oct  ··▌·····················",
    "Sun 25 Oct: the clocks go back 1h at 03:00 CEST, to 02:00 CET: 02:00–03:00 happens twice, drawn in one column.",
  ]);
  for (const row of [...timelineOf(spring.stdout).slice(1, 4), ...timelineOf(autumn.stdout).slice(1, 2)]) assert.equal([...row].length, 12 + 24, row);
});

test("a table of a year of intervals every 4 minutes is printed whole, however many rows", async () => {
  const r = await inProcess(
    "schedule",
    "preview",
    "--start",
    "*/4 * * * *",
    "--duration",
    "1m",
    "--from",
    "2026-01-01T00:00:00Z",
    "--to",
    "2027-01-01T00:00:00Z",
  );
  assert.equal(r.code, 0, r.stderr.slice(0, 500));
  const lines = r.stdout.split("\n");
  const rows = lines.filter((l) => /^\w{3} \d{4}-\d\d-\d\d \d\d:\d\d UTC {3}/.test(l));
  assert.equal(rows.length, 365 * 24 * 15);
  assert.equal(rows[0], "Thu 2026-01-01 00:00 UTC   Thu 2026-01-01 00:01 UTC   1m");
  assert.equal(rows.at(-1), "Thu 2026-12-31 23:56 UTC   Thu 2026-12-31 23:57 UTC   1m");
  assert.ok(
    lines.includes("131400 open intervals, 91d 6h open in all (25% of the range); the first interval is cut at the range start."),
    lines.find((l) => l.includes("open intervals")),
  );
  assert.equal(lines.filter((l) => /^\w{3} \d\d \w{3} {2}/.test(l)).length, 365, "a timeline row per day");
});

test("in UTC the table has one pair of columns, not the same times twice", async () => {
  for (const zone of [[], ["--tz", "UTC"]]) {
    const r = await fluxgate(
      "schedule",
      "preview",
      "--start",
      "0 8 * * *",
      "--duration",
      "90m",
      ...zone,
      "--from",
      "2026-06-01T00:00:00Z",
      "--to",
      "2026-06-02T00:00:00Z",
    );
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.split("\n");
    assert.ok(lines.includes("OPENS (UTC)                CLOSES (UTC)               LENGTH"), r.stdout);
    assert.ok(lines.includes("Mon 2026-06-01 08:00 UTC   Mon 2026-06-01 09:30 UTC   1h 30m"), r.stdout);
  }
});

test("a window never open in the range says when it next opens", async () => {
  const r = await fluxgate(
    "schedule",
    "preview",
    "--start",
    "0 0 29 2 *",
    "--duration",
    "1h",
    "--tz",
    "Europe/Berlin",
    "--from",
    "2026-01-01T00:00:00Z",
    "--to",
    "2026-06-01T00:00:00Z",
  );
  assert.equal(r.code, 0, r.stderr);
  assert.ok(r.stdout.split("\n").includes("Never open in this range; it next opens Tue 2028-02-29 00:00 CET (2028-02-28T23:00:00Z)."), r.stdout);
});

test("yaml output has the same content as json", async () => {
  const r = await fluxgate(
    "schedule",
    "preview",
    "--start",
    "0 8 * * *",
    "--duration",
    "1h",
    "--from",
    "2026-06-01T00:00:00Z",
    "--to",
    "2026-06-02T00:00:00Z",
    "-o",
    "yaml",
  );
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, 'timeZone: "UTC"\nopen:\n  - start: "2026-06-01T08:00:00Z"\n    end: "2026-06-01T09:00:00Z"\n');
});

test("-o json and -o yaml are byte for byte what JSON.stringify and yaml write of the whole result: many intervals, milliseconds, none, a zone", async () => {
  const cases: string[][] = [
    ["--start", "*/7 * * * *", "--duration", "3m", "--from", "2026-01-01T00:00:00Z", "--to", "2026-01-01T02:00:00Z"],
    ["--start", "0 8 * * *", "--duration", "1500ms", "--tz", "Asia/Kolkata", "--from", "2026-01-01T00:00:00Z", "--to", "2026-01-04T00:00:00Z"],
    ["--start", "0 8 1 1 *", "--duration", "1h", "--from", "2026-02-01T00:00:00Z", "--to", "2026-02-09T00:00:00Z"],
    ["--start", "0 8 * * *", "--duration", "1h", "--tz", "America/Argentina/ComodRivadavia", "--from", "2026-06-01T00:00:00Z", "--to", "2026-06-01T09:00:00Z"],
  ];
  for (const args of cases) {
    const json = await fluxgate("schedule", "preview", ...args, "-o", "json");
    const yaml = await fluxgate("schedule", "preview", ...args, "-o", "yaml");
    assert.equal(json.code, 0, json.stderr);
    assert.equal(yaml.code, 0, yaml.stderr);
    const result: unknown = JSON.parse(json.stdout);
    assert.equal(json.stdout, `${JSON.stringify(result, null, 2)}\n`, args.join(" "));
    assert.equal(yaml.stdout, stringify(result, { defaultStringType: "QUOTE_DOUBLE", defaultKeyType: "PLAIN" }), args.join(" "));
  }
});

test("-o json and -o yaml are written to the output as they are made, in chunks, not returned whole", async () => {
  for (const output of ["json", "yaml"] as const) {
    const chunks: string[] = [];
    const out = new Writable({
      highWaterMark: 1024,
      write(chunk: Buffer, _enc, done) {
        chunks.push(chunk.toString());
        setImmediate(done);
      },
    });
    // Three days of one-minute intervals every 2 minutes: 2,160 intervals, some 180 KB of JSON.
    const returned = await schedulePreview({
      start: "*/2 * * * *",
      duration: "1m",
      from: "2026-01-01T00:00:00Z",
      to: "2026-01-04T00:00:00Z",
      output,
      now: 0,
      out,
    });
    assert.equal(returned, "", output);
    assert.ok(chunks.length >= 2, `${output}: ${chunks.length} writes`);
    const text = chunks.join("");
    const open = output === "json" ? (JSON.parse(text) as { open: unknown[] }).open : text.split("\n").filter((l) => l.startsWith("  - start: "));
    assert.equal(open.length, 2_160, output);
  }
});

const bad: Array<[string, string[], RegExp]> = [
  ["zero duration", ["--start", "0 8 * * *", "--duration", "0m"], /^error: --duration: duration "0m" is zero/],
  ["both end and duration", ["--start", "0 8 * * *", "--duration", "1h", "--end", "0 9 * * *"], /^error: --end\/--duration: has both end and duration/],
  ["unknown zone", ["--start", "0 8 * * *", "--duration", "1h", "--tz", "Mars/Olympus"], /^error: --tz: time zone "Mars\/Olympus" is unknown/],
  ["rejected cron syntax", ["--start", "0 0 L * *", "--duration", "1h"], /^error: --start: cron "0 0 L \* \*": "L" \(last day\) is not supported/],
  ["impossible date", ["--start", "0 0 30 2 *", "--duration", "1h"], /^error: --start: cron "0 0 30 2 \*": names a date that never exists/],
  ["no window", [], /^error: give a window: --file/],
  [
    "--to before --from",
    ["--start", "0 8 * * *", "--duration", "1h", "--from", "2026-06-02T00:00:00Z", "--to", "2026-06-01T00:00:00Z"],
    /must be after --from/,
  ],
  [
    "--from without offset",
    ["--start", "0 8 * * *", "--duration", "1h", "--from", "2026-06-02T00:00"],
    /^error: --from 2026-06-02T00:00: give an RFC 3339 time with an offset/,
  ],
  ["unknown output", ["--start", "0 8 * * *", "--duration", "1h", "-o", "xml"], /^error: -o xml: output must be one of table, json, yaml/],
  [
    "unknown flag",
    ["--start", "0 8 * * *", "--length", "1h"],
    /^error: unknown flag '--length' \(an argument that starts with '-' goes after '--', as in '-- --length'\)\nUsage: fluxgate schedule preview /,
  ],
  ["unknown short flag", ["--start", "0 8 * * *", "-x"], /^error: unknown flag '-x' \(an argument that starts with '-' goes after '--', as in '-- -x'\)\n/],
  ["missing file", ["--file", "/nonexistent/window.yaml"], /^error: \/nonexistent\/window.yaml: cannot read the file \(ENOENT\)/],
];

for (const [name, args, message] of bad) {
  test(`bad input (${name}): exit 2, nothing on stdout, a message naming what is wrong`, async () => {
    const r = await fluxgate("schedule", "preview", ...args);
    assert.equal(r.code, 2);
    assert.equal(r.stdout, "");
    assert.match(r.stderr, message);
  });
}

test("an unknown flag of a command without arguments is said without the hint about '--'", async () => {
  const r = await fluxgate("version", "--bogus");
  assert.equal(r.code, 2);
  assert.equal(r.stderr, "error: unknown flag '--bogus'\nUsage: fluxgate version [-o text|json]\n");
});

test("an invalid manifest names the file and the field", async (t) => {
  const { mkdtemp, writeFile, readFile, rm } = await import("node:fs/promises");
  const dir = await mkdtemp("/tmp/fluxgate-test-");
  t.after(() => rm(dir, { recursive: true, force: true }));
  const file = `${dir}/w.yaml`;
  await writeFile(file, (await readFile(SAMPLE, "utf8")).replace("duration: 2h", "duration: -2h"));
  const r = await fluxgate("schedule", "preview", "--file", file);
  assert.equal(r.code, 2);
  assert.equal(r.stdout, "");
  assert.equal(r.stderr, `error: ${file}: spec.schedules[1].duration: duration "-2h" is negative: a window must last a positive time\n`);
});

test("a manifest with two invalid freezes names both, each with its field", async (t) => {
  const { mkdtemp, writeFile, readFile, rm } = await import("node:fs/promises");
  const dir = await mkdtemp("/tmp/fluxgate-test-");
  t.after(() => rm(dir, { recursive: true, force: true }));
  const file = `${dir}/w.yaml`;
  await writeFile(
    file,
    (await readFile(SAMPLE, "utf8")).replace('start: "0 0 * * FRI"', 'start: "0 0 30 2 *"').replace('to: "2027-01-05T00:00"', 'to: "2026-12-01T00:00"'),
  );
  const r = await fluxgate("schedule", "preview", "--file", file);
  assert.equal(r.code, 2);
  assert.equal(r.stdout, "");
  assert.equal(
    r.stderr,
    `error: ${file}: spec.freezes[0].start: cron "0 0 30 2 *": names a date that never exists (no chosen month has the chosen day of month), so the schedule never runs\n` +
      `${file}: spec.freezes[1].to: "2026-12-01T00:00" is before from "2026-12-20T00:00": a freeze must end after it starts\n`,
  );
});

test("a YAML alias bomb in --file is refused with exit 2, not expanded", async (t) => {
  const { mkdtemp, writeFile, rm } = await import("node:fs/promises");
  const dir = await mkdtemp("/tmp/fluxgate-test-");
  t.after(() => rm(dir, { recursive: true, force: true }));
  const file = `${dir}/bomb.yaml`;
  const levels = ["a: &a [x, x, x, x, x, x, x, x, x, x]"];
  for (let i = 1; i < 9; i++)
    levels.push(
      `${"abcdefghi"[i]}: &${"abcdefghi"[i]} [${Array(10)
        .fill(`*${"abcdefghi"[i - 1]}`)
        .join(", ")}]`,
    );
  await writeFile(
    file,
    `apiVersion: fluxgate.io/v1alpha1\nkind: ReconciliationWindow\nmetadata: {name: bomb}\n${levels.join("\n")}\nspec: {schedules: [{start: "0 8 * * *", duration: 1h}]}\n`,
  );
  const r = await fluxgate("schedule", "preview", "--file", file);
  assert.equal(r.code, 2);
  assert.equal(r.stdout, "");
  assert.match(r.stderr, new RegExp(`^error: ${file}: not valid YAML: .*alias`, "i"));
});

test("version and help", async () => {
  const v = await fluxgate("version", "-o", "json");
  assert.equal(v.code, 0);
  assert.match(JSON.parse(v.stdout).fluxgate, /^\d+\.\d+\.\d+/);
  const h = await fluxgate("schedule", "preview", "--help");
  assert.equal(h.code, 0);
  assert.match(h.stdout, /^Usage: fluxgate schedule preview/);
  const unknown = await fluxgate("frobnicate");
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /unknown command "frobnicate"/);
});

const RECURRENCE = new URL("../../fixtures/windows/recurrence.yaml", import.meta.url).pathname;

test("a window file with recurrence rules previews like any other: JSON and the freeze in the table", async () => {
  const range = ["--from", "2026-10-01T00:00:00Z", "--to", "2027-01-01T00:00:00Z"];
  const json = await fluxgate("schedule", "preview", "--file", RECURRENCE, ...range, "-o", "json");
  assert.equal(json.code, 0, json.stderr);
  assert.deepEqual(JSON.parse(json.stdout), {
    timeZone: "Europe/Berlin",
    open: [
      { start: "2026-10-11T00:00:00Z", end: "2026-10-11T04:00:00Z" }, // 02:00 CEST
      { start: "2026-11-08T01:00:00Z", end: "2026-11-08T05:00:00Z" }, // 02:00 CET; 13 December is frozen, not open
    ],
  });
  const table = await fluxgate("schedule", "preview", "--file", RECURRENCE, ...range);
  assert.equal(table.code, 0, table.stderr);
  assert.ok(
    table.stdout.split("\n").some((l) => /^Sun 2026-12-13 00:00 CET\s+Mon 2026-12-14 00:00 CET\s+Year-end release$/.test(l)),
    table.stdout,
  ); // Each rule in words under the range, to check against a calendar.
  assert.deepEqual(table.stdout.split("\n").slice(2, 4), [
    "Rule   FREQ=MONTHLY;BYDAY=2SU at 02:00 → +4h: the second Sunday of each month",
    "Rule   freeze FREQ=YEARLY;BYMONTH=12;BYMONTHDAY=13 at 00:00 → +24h: day 13 of December, each year",
  ]);
});

test("a window file with a recurrence a window cannot mean: exit 2, the field and the part named, nothing on stdout", async () => {
  const dir = await mkdtemp(join(tmpdir(), "fluxgate-preview-"));
  const file = join(dir, "w.yaml");
  await writeFile(file, (await readFile(RECURRENCE, "utf8")).replace("FREQ=MONTHLY;BYDAY=2SU", "FREQ=MONTHLY;BYDAY=2SU;BYSECOND=30"));
  const r = await fluxgate("schedule", "preview", "--file", file, "--from", "2026-10-01T00:00:00Z", "--to", "2027-01-01T00:00:00Z");
  await rm(dir, { recursive: true });
  assert.equal(r.code, 2);
  assert.equal(r.stdout, "");
  assert.match(r.stderr, /spec\.schedules\[0\]\.recurrence: BYSECOND is not allowed: a window is at minute precision/);
});

test("--recurrence with --at and --duration previews one schedule by rule; a wrong part names its flag", async () => {
  const r = await fluxgate(
    "schedule",
    "preview",
    "--recurrence",
    "FREQ=WEEKLY;INTERVAL=2;BYDAY=TU",
    "--at",
    "09:00",
    "--duration",
    "1h",
    "--dtstart",
    "2026-01-06",
    "--exdate",
    "2026-01-20",
    "--from",
    "2026-01-01T00:00:00Z",
    "--to",
    "2026-02-10T00:00:00Z",
    "-o",
    "json",
  );
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout).open, [
    { start: "2026-01-06T09:00:00Z", end: "2026-01-06T10:00:00Z" },
    { start: "2026-02-03T09:00:00Z", end: "2026-02-03T10:00:00Z" },
  ]);
  const bad = await fluxgate("schedule", "preview", "--recurrence", "FREQ=SECONDLY", "--at", "09:00", "--duration", "1h");
  assert.equal(bad.code, 2);
  assert.equal(bad.stdout, "");
  assert.match(bad.stderr, /--recurrence: FREQ=SECONDLY is not allowed: a window is at minute precision/);
});

test("--holidays DE-BY freezes Bavaria's public holidays beside the schedule, each named; a file's own holiday freeze too", async () => {
  const range = ["--from", "2026-05-31T22:00:00Z", "--to", "2026-06-07T22:00:00Z"];
  const r = await fluxgate("schedule", "preview", "--start", "0 8 * * MON-FRI", "--duration", "9h", "--tz", "Europe/Berlin", "--holidays", "DE-BY", ...range);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /FROZEN FROM \(Europe\/Berlin\) +UNTIL +REASON\nThu 2026-06-04 00:00 CEST +Fri 2026-06-05 00:00 CEST +Fronleichnam\n/);
  const json = await fluxgate(
    "schedule",
    "preview",
    "--start",
    "0 8 * * MON-FRI",
    "--duration",
    "9h",
    "--tz",
    "Europe/Berlin",
    "--holidays",
    "DE-BY",
    ...range,
    "-o",
    "json",
  );
  assert.equal(JSON.parse(json.stdout).open.length, 4, "Thursday is frozen");

  const dir = await mkdtemp(join(tmpdir(), "fluxgate-preview-"));
  const file = join(dir, "w.yaml");
  const window = {
    apiVersion: "fluxgate.io/v1alpha1",
    kind: "ReconciliationWindow",
    metadata: { name: "christmas", namespace: "flux-system" },
    spec: {
      timeZone: "Europe/Berlin",
      schedules: [{ start: "0 0 * * *", duration: "24h" }],
      freezes: [{ holidays: { country: "DE" }, reason: "Public holiday" }],
      targets: [{ kind: "Kustomization", name: "apps" }],
    },
  };
  await writeFile(file, stringify(window));
  const days = await fluxgate("schedule", "preview", "--file", file, "--from", "2026-12-24T00:00:00Z", "--to", "2026-12-28T00:00:00Z");
  await rm(dir, { recursive: true });
  assert.equal(days.code, 0, days.stderr);
  // Two holidays in a row: one frozen stretch, a row per holiday.
  assert.match(
    days.stdout,
    /Fri 2026-12-25 00:00 CET +Sat 2026-12-26 00:00 CET +Public holiday: 1\. Weihnachtstag\nSat 2026-12-26 00:00 CET +Sun 2026-12-27 00:00 CET +Public holiday: 2\. Weihnachtstag\n/,
  );
});

test("--holidays with an unknown country or subdivision: exit 2, the flag and the closest codes named, nothing on stdout", async () => {
  const base = ["schedule", "preview", "--start", "0 8 * * MON-FRI", "--duration", "9h", "--tz", "Europe/Berlin"];
  const country = await fluxgate(...base, "--holidays", "Germany");
  assert.equal(country.code, 2);
  assert.equal(country.stdout, "");
  assert.match(country.stderr, /--holidays Germany: unknown country "Germany": .*did you mean "DE" \(Germany\)\?/);
  const sub = await fluxgate(...base, "--holidays", "DE-BYY");
  assert.equal(sub.code, 2);
  assert.match(sub.stderr, /--holidays DE-BYY: unknown subdivision "BYY" of DE: give one of BB, BE, BW, BY,.*did you mean "BY" \(Bayern\)\?/);
  const withFile = await fluxgate("schedule", "preview", "--file", SAMPLE, "--holidays", "DE");
  assert.equal(withFile.code, 2);
  assert.match(withFile.stderr, /--holidays goes with --start or --recurrence/);
});
