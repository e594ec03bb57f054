// /openapi.json describes the recurrence form of schedules and freezes, from the zod schemas the server validates with, with examples the server accepts.
/* eslint-disable @typescript-eslint/no-unsafe-call -- the document is untyped JSON, checked field by field */

import assert from "node:assert/strict";
import { test } from "node:test";
import { createConfig, lintFromString } from "@redocly/openapi-core";
import { FreezeSchema, ScheduleSchema } from "../../../src/api/index.ts";
import { openApiDocument } from "../../../src/server/http/openapi.ts";
import { fromZod } from "../../../src/server/http/openapi-parts.ts";
import { assertUntouched, fixture } from "../../support/server.ts";

const RECURRENCE_FIELDS = ["recurrence", "at", "endAt", "dtstart", "exdates"];

test("schedules and freezes in the window spec have the recurrence fields, generated from the same zod schemas, with their admission rules", () => {
  const doc = openApiDocument("0.1.0") as any;
  const spec = doc.components.schemas.ReconciliationWindowSpec;
  const schedule = spec.properties.schedules.items;
  const freeze = spec.properties.freezes.items;
  assert.deepEqual(fromZod(ScheduleSchema), schedule);
  assert.deepEqual(fromZod(FreezeSchema), freeze);
  for (const item of [schedule, freeze]) {
    for (const field of RECURRENCE_FIELDS) assert.ok(item.properties[field], field);
    assert.equal(item.additionalProperties, false);
  }
  assert.match(schedule.properties.recurrence.description, /RFC 5545 recurrence rule .* "FREQ=MONTHLY;BYDAY=2SU"/);
  assert.deepEqual(
    schedule.properties.recurrence["x-kubernetes-validations"].map((v: { message: string }) => v.message),
    [
      'must be an RFC 5545 recurrence rule: parts NAME=VALUE separated by ";", e.g. "FREQ=MONTHLY;BYDAY=2SU"',
      'FREQ is required, e.g. "FREQ=WEEKLY;BYDAY=TU"',
      "BYSECOND is not allowed: a window is at minute precision",
      "FREQ=SECONDLY is not allowed: a window is at minute precision",
      // Months and days of the month that never meet (31 February; 30 or 31 February from the month's end, 31 April …).
      "never occurs: no day of any year matches all of its parts (e.g. BYMONTH=2 with BYMONTHDAY=30)",
      "never occurs: no day of any year matches all of its parts (e.g. BYMONTH=2 with BYMONTHDAY=30)",
    ],
  );
  assert.equal(schedule.properties.exdates.type, "array");
  assert.equal(schedule.properties.at.maxLength, 5);
});

async function lint(document: unknown): Promise<string[]> {
  const config = await createConfig({ extends: ["recommended"] });
  const problems = await lintFromString({ source: JSON.stringify(document), absoluteRef: "openapi.json", config });
  return problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? "?"}`);
}

test("the request examples of a recurrence window match the document's schema; one with a misspelt field does not", async () => {
  const doc = openApiDocument("0.1.0") as any;
  const examples = doc.paths["/api/v1/preview"].post.requestBody.content["application/json"].examples;
  assert.equal(examples.recurrence.value.spec.schedules[0].recurrence, "FREQ=MONTHLY;BYDAY=2SU");
  assert.deepEqual(await lint(doc), []);
  examples.recurrence.value.spec.schedules[0].rrule = "FREQ=MONTHLY;BYDAY=2SU";
  assert.ok(
    (await lint(doc)).some((p) => p.includes("no-invalid-media-type-examples") && p.includes("rrule")),
    "an unknown field in a recurrence entry is caught by the lint",
  );
});

test("the server accepts the document's examples: the recurrence window previews its second Sundays", async (t) => {
  const f = await fixture();
  t.after(f.cleanup);
  const before = await f.repository.head();
  const doc = openApiDocument("0.1.0") as any;
  for (const [name, example] of Object.entries(doc.paths["/api/v1/preview"].post.requestBody.content["application/json"].examples as Record<string, any>)) {
    const r = await f.call("POST", "/api/v1/preview", { token: f.tokens.viewer, body: example.value });
    assert.equal(r.status, 200, `${name}: ${JSON.stringify(r.body)}`);
    if (name === "recurrence")
      // 13 December is left out (exdates); the freezes fall on Tuesdays, never on these Sundays.
      assert.deepEqual(r.body.nextOpenings, [
        { start: "2027-01-10T01:00:00Z", end: "2027-01-10T05:00:00Z" },
        { start: "2027-02-14T01:00:00Z", end: "2027-02-14T05:00:00Z" },
        { start: "2027-03-14T01:00:00Z", end: "2027-03-14T05:00:00Z" },
      ]);
  }
  await assertUntouched(f, before);
});
