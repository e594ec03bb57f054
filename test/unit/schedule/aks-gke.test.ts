// Every AKS maintenance configuration shape and every GKE recurring window example, as a fluxgate window in an IANA zone,
// previewed over five years with `fluxgate schedule preview` (docs/schedules.md "AKS maintenance configurations" and
// "GKE maintenance windows"): each start has the intended weekday, day of the month and local time, every time.
//
// Local dates and times are read back with Intl (the ICU zone data), not with the engine that made them.

import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { stringify } from "yaml";
import { fluxgate } from "../../support/cli.ts";

const YEARS = [2027, 2028, 2029, 2030, 2031];
const DAY = 86_400_000;
let dir = "";
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "fluxgate-aks-gke-"));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface Interval {
  start: number;
  end: number;
}

/** A start or end as people in `zone` read it. */
interface Local {
  weekday: string;
  year: number;
  month: number;
  day: number;
  time: string;
}

function local(t: number, zone: string): Local {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      weekday: "short",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
    })
      .formatToParts(t)
      .map((p) => [p.type, p.value]),
  );
  return {
    weekday: parts.weekday as string,
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    time: `${parts.hour}:${parts.minute}`,
  };
}

const daysInMonth = (year: number, month: number): number => new Date(Date.UTC(year, month, 0)).getUTCDate();
/** Whether local midnight to midnight of that date is shorter than a day in `zone`: the clocks go forward that day. */
function springsForward(l: Local, zone: string): boolean {
  const noon = Date.UTC(l.year, l.month - 1, l.day, 12);
  const offset = (t: number): number => {
    const x = local(t, zone);
    return Date.UTC(x.year, x.month - 1, x.day, Number(x.time.slice(0, 2)), Number(x.time.slice(3))) - Math.floor(t / 60_000) * 60_000;
  };
  return offset(noon + 12 * 3_600_000) > offset(noon - 12 * 3_600_000);
}

/** The window's open intervals over 2027-2031, by `fluxgate schedule preview --file -o json` a year at a time (its longest range), stitched at the years' edges. */
async function preview(name: string, spec: Record<string, unknown>): Promise<Interval[]> {
  const file = join(dir, `${name}.yaml`);
  await writeFile(file, stringify({ apiVersion: "fluxgate.io/v1alpha1", kind: "ReconciliationWindow", metadata: { name }, spec }));
  const out: Interval[] = [];
  for (const year of YEARS) {
    const r = await fluxgate("schedule", "preview", "--file", file, "--from", `${year}-01-01T00:00:00Z`, "--to", `${year + 1}-01-01T00:00:00Z`, "-o", "json");
    assert.equal(r.code, 0, r.stderr);
    for (const o of (JSON.parse(r.stdout) as { open: { start: string; end: string }[] }).open) {
      const iv = { start: Date.parse(o.start), end: Date.parse(o.end) };
      const last = out[out.length - 1];
      if (last !== undefined && last.end === iv.start) last.end = iv.end;
      else out.push(iv);
    }
  }
  return out;
}

const targets = [{ kind: "Kustomization", name: "apps-rw" }];

test("AKS weekly {intervalWeeks: 2, dayOfWeek: Tuesday}, 22:00 for 4 h from 5 January 2027: every other Tuesday at 22:00 Berlin time", async () => {
  const zone = "Europe/Berlin";
  const open = await preview("aks-weekly", {
    timeZone: zone,
    schedules: [{ recurrence: "FREQ=WEEKLY;INTERVAL=2;BYDAY=TU", dtstart: "2027-01-05", at: "22:00", duration: "4h" }],
    targets,
  });
  assert.equal(open.length, 131);
  open.forEach((o, i) => {
    const s = local(o.start, zone);
    assert.deepEqual([s.weekday, s.time], ["Tue", "22:00"], JSON.stringify(s));
    assert.equal(o.end - o.start, 4 * 3_600_000, "4 h elapsed");
    const previous = open[i - 1];
    // 14 local days apart: 14 × 24 h, an hour more or less across a DST change.
    if (previous !== undefined) assert.ok(Math.abs(o.start - previous.start - 14 * DAY) <= 3_600_000);
  });
  assert.deepEqual(local(open[0]!.start, zone), { weekday: "Tue", year: 2027, month: 1, day: 5, time: "22:00" });
});

test("AKS absoluteMonthly {intervalMonths: 3, dayOfMonth: 15}, 03:00 for 6 h: the 15th of January, April, July and October at 03:00 Sydney time", async () => {
  const zone = "Australia/Sydney";
  const open = await preview("aks-absolute", {
    timeZone: zone,
    schedules: [{ recurrence: "FREQ=MONTHLY;INTERVAL=3;BYMONTHDAY=15", dtstart: "2027-01-15", at: "03:00", duration: "6h" }],
    targets,
  });
  assert.equal(open.length, 20);
  for (const o of open) {
    const s = local(o.start, zone);
    assert.deepEqual([s.day, [1, 4, 7, 10].includes(s.month), s.time], [15, true, "03:00"], JSON.stringify(s));
  }
});

test("AKS absoluteMonthly on the last day (BYMONTHDAY=-1): the 28th, 29th, 30th or 31st, whichever ends the month, at 01:00 New York time", async () => {
  const zone = "America/New_York";
  const open = await preview("aks-last-day", {
    timeZone: zone,
    schedules: [{ recurrence: "FREQ=MONTHLY;BYMONTHDAY=-1", at: "01:00", duration: "2h" }],
    targets,
  });
  assert.equal(open.length, 60);
  for (const o of open) {
    const s = local(o.start, zone);
    assert.deepEqual([s.day, s.time], [daysInMonth(s.year, s.month), "01:00"], JSON.stringify(s));
  }
  assert.ok(
    open.some((o) => local(o.start, zone).day === 29),
    "February of leap year 2028",
  );
});

test("AKS relativeMonthly {weekIndex: Second, dayOfWeek: Sunday}: a Sunday dated 8-14, at 02:00 Berlin time across every DST change", async () => {
  const zone = "Europe/Berlin";
  const open = await preview("aks-second-sunday", {
    timeZone: zone,
    schedules: [{ recurrence: "FREQ=MONTHLY;BYDAY=2SU", at: "02:00", endAt: "06:00" }],
    targets,
  });
  assert.equal(open.length, 60);
  const utcHours = new Set<number>();
  for (const o of open) {
    const s = local(o.start, zone);
    assert.deepEqual([s.weekday, s.day >= 8 && s.day <= 14, s.time, local(o.end, zone).time], ["Sun", true, "02:00", "06:00"], JSON.stringify(s));
    utcHours.add(new Date(o.start).getUTCHours());
  }
  assert.deepEqual([...utcHours].sort(), [0, 1], "00:00Z in summer (CEST), 01:00Z in winter (CET): the local time holds, the UTC time moves");
});

test("AKS relativeMonthly Second Sunday in New York: 02:00 every month but March, whose second Sunday has no 02:00 (RFC 5545: 03:00 EDT)", async () => {
  const zone = "America/New_York";
  const open = await preview("aks-second-sunday-ny", {
    timeZone: zone,
    schedules: [{ recurrence: "FREQ=MONTHLY;BYDAY=2SU", at: "02:00", duration: "4h" }],
    targets,
  });
  assert.equal(open.length, 60);
  for (const o of open) {
    const s = local(o.start, zone);
    assert.equal(s.weekday, "Sun");
    assert.ok(s.day >= 8 && s.day <= 14);
    assert.equal(s.time, s.month === 3 ? "03:00" : "02:00", JSON.stringify(s));
    if (s.month === 3) assert.ok(springsForward(s, zone), "that day the clocks go forward");
  }
});

test("AKS relativeMonthly {weekIndex: Last, dayOfWeek: Friday}: a Friday in the month's last seven days, at 22:00 Berlin time", async () => {
  const zone = "Europe/Berlin";
  const open = await preview("aks-last-friday", {
    timeZone: zone,
    schedules: [{ recurrence: "FREQ=MONTHLY;BYDAY=-1FR", at: "22:00", duration: "4h" }],
    targets,
  });
  assert.equal(open.length, 60);
  for (const o of open) {
    const s = local(o.start, zone);
    assert.deepEqual([s.weekday, s.day + 7 > daysInMonth(s.year, s.month), s.time], ["Fri", true, "22:00"], JSON.stringify(s));
  }
});

test("AKS daily {intervalDays: 2}, 01:00 for 4 h from 1 January 2027, London: every other local day at 01:00, at 02:00 BST on a day without 01:00", async () => {
  const zone = "Europe/London";
  const open = await preview("aks-daily", {
    timeZone: zone,
    schedules: [{ recurrence: "FREQ=DAILY;INTERVAL=2", dtstart: "2027-01-01", at: "01:00", duration: "4h" }],
    targets,
  });
  assert.equal(open.length, Math.ceil((Date.UTC(2032, 0, 1) - Date.UTC(2027, 0, 1)) / DAY / 2));
  let gaps = 0;
  open.forEach((o, i) => {
    const s = local(o.start, zone);
    if (s.time !== "01:00") {
      assert.ok(springsForward(s, zone) && s.time === "02:00", JSON.stringify(s));
      gaps++;
    }
    const previous = open[i - 1];
    if (previous !== undefined) {
      const p = local(previous.start, zone);
      assert.equal((Date.UTC(s.year, s.month - 1, s.day) - Date.UTC(p.year, p.month - 1, p.day)) / DAY, 2, JSON.stringify([p, s]));
    }
  });
  assert.ok(gaps >= 1, "some year's last Sunday of March is one of its days");
});

test("AKS notAllowedDates: a yearly freeze on 24-26 December (a recurrence), and one-off exdates, leave those days out of a daily window", async () => {
  const zone = "Europe/Berlin";
  const open = await preview("aks-not-allowed", {
    timeZone: zone,
    schedules: [{ recurrence: "FREQ=DAILY", at: "02:00", duration: "4h", exdates: ["2028-06-01", "2030-06-03"] }],
    freezes: [{ recurrence: "FREQ=YEARLY;BYMONTH=12;BYMONTHDAY=24,25,26", at: "00:00", endAt: "00:00", reason: "Christmas" }],
    targets,
  });
  const days = new Set(
    open.map((o) => {
      const s = local(o.start, zone);
      return `${s.year}-${s.month}-${s.day}`;
    }),
  );
  const all = (Date.UTC(2032, 0, 1) - Date.UTC(2027, 0, 1)) / DAY;
  assert.equal(open.length, all - 5 * 3 - 2, "every day but 3 a year and the 2 exdates");
  for (const year of YEARS) for (const d of [24, 25, 26]) assert.ok(!days.has(`${year}-12-${d}`), `${year}-12-${d}`);
  assert.ok(!days.has("2028-6-1") && !days.has("2030-6-3") && days.has("2029-6-1"));
  // 02:00, but 03:00 CEST on the last Sunday of March, which has no 02:00 (RFC 5545 reads it with the offset before the gap).
  for (const o of open) {
    const s = local(o.start, zone);
    assert.equal(s.time, springsForward(s, zone) ? "03:00" : "02:00", JSON.stringify(s));
  }
});

test("GKE FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR 09:00-17:00 at -04:00, in America/New_York: 09:00-17:00 local all year (13:00Z in summer, 14:00Z in winter)", async () => {
  const zone = "America/New_York";
  const open = await preview("gke-weekdays", {
    timeZone: zone,
    schedules: [{ recurrence: "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR", at: "09:00", endAt: "17:00" }],
    targets,
  });
  assert.equal(open.length, 1304);
  const utc = new Set<string>();
  for (const o of open) {
    const s = local(o.start, zone);
    assert.ok(["Mon", "Tue", "Wed", "Thu", "Fri"].includes(s.weekday));
    assert.deepEqual([s.time, local(o.end, zone).time], ["09:00", "17:00"]);
    utc.add(new Date(o.start).toISOString().slice(11, 16));
  }
  assert.deepEqual([...utc].sort(), ["13:00", "14:00"]);
});

test("GKE FREQ=DAILY, in Europe/Berlin at 03:00 for 4 h: every local day at 03:00, across both DST changes", async () => {
  const zone = "Europe/Berlin";
  const open = await preview("gke-daily", { timeZone: zone, schedules: [{ recurrence: "FREQ=DAILY", at: "03:00", duration: "4h" }], targets });
  assert.equal(open.length, (Date.UTC(2032, 0, 1) - Date.UTC(2027, 0, 1)) / DAY);
  for (const o of open) assert.equal(local(o.start, zone).time, "03:00");
});

test("GKE FREQ=MONTHLY;BYSETPOS=1;BYDAY=SA,SU (its 'first weekend'): the first Saturday or Sunday of each month, at 00:00 Tokyo time", async () => {
  const zone = "Asia/Tokyo";
  const open = await preview("gke-first-weekend", {
    timeZone: zone,
    schedules: [{ recurrence: "FREQ=MONTHLY;BYSETPOS=1;BYDAY=SA,SU", at: "00:00", duration: "24h" }],
    targets,
  });
  assert.equal(open.length, 60);
  let sundays = 0;
  for (const o of open) {
    const s = local(o.start, zone);
    assert.ok(s.weekday === "Sat" || s.weekday === "Sun", JSON.stringify(s));
    // No earlier day of the month is a Saturday or a Sunday.
    for (let d = 1; d < s.day; d++) assert.ok(![0, 6].includes(new Date(Date.UTC(s.year, s.month - 1, d)).getUTCDay()), JSON.stringify(s));
    assert.equal(s.time, "00:00");
    if (s.weekday === "Sun") sundays++;
  }
  assert.ok(sundays > 0, "a month that begins on a Sunday starts on that Sunday alone: one day, not a weekend");
});

test("GKE FREQ=WEEKLY;BYDAY=SA, Saturday 00:00 for the weekend (48 h), in Asia/Tokyo: Saturday 00:00 to Monday 00:00 local, every week", async () => {
  const zone = "Asia/Tokyo";
  const open = await preview("gke-weekend", { timeZone: zone, schedules: [{ recurrence: "FREQ=WEEKLY;BYDAY=SA", at: "00:00", duration: "48h" }], targets });
  assert.equal(open.length, 261);
  for (const o of open.slice(1)) {
    const [s, e] = [local(o.start, zone), local(o.end, zone)];
    assert.deepEqual([s.weekday, s.time, e.weekday, e.time], ["Sat", "00:00", "Mon", "00:00"]);
  }
});
