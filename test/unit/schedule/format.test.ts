// rfc3339 and rfc3339Exact write, for any instant a Date holds (and those it does not), what Date's UTC fields say.

import assert from "node:assert/strict";
import { test } from "node:test";
import { rfc3339, rfc3339Exact } from "../../../src/schedule/format.ts";

const pad = (n: number): string => String(n).padStart(2, "0");
/** The times as Date writes them, field by field. */
function byDate(t: number): string {
  const d = new Date(t);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}Z`;
}
function byDateExact(t: number): string {
  const ms = new Date(t).getUTCMilliseconds();
  return ms === 0 ? byDate(t) : `${byDate(t).slice(0, -1)}.${String(ms).padStart(3, "0")}Z`;
}

test("rfc3339 and rfc3339Exact agree with Date's UTC fields: years 0-99, before year 0, the Date edges, fractions, NaN, and runs of minutes", () => {
  const instants = [
    0,
    -1,
    -999,
    -1000,
    -1001,
    8.64e15,
    -8.64e15,
    8.64e15 + 1,
    Number.NaN,
    Infinity,
    1.5,
    -1.5,
    Date.UTC(2026, 2, 29, 1, 0, 0, 500),
    -62198755200000,
    -62198755200001,
    Date.UTC(50, 0, 1) - 3_155_673_600_000,
  ];
  let seed = 42;
  const random = (): number => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  for (let i = 0; i < 20_000; i++) instants.push(Math.round((random() - 0.5) * 2 * 8.64e15), Math.round((random() - 0.3) * 4e12), 1.7e12 + i * 60_000);
  for (const t of instants) {
    assert.equal(rfc3339(t), byDate(t), String(t));
    assert.equal(rfc3339Exact(t), byDateExact(t), String(t));
  }
});
