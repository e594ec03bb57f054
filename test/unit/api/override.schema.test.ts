// The WindowOverride schema: until is a real instant with a zone, the window is named as Kubernetes names objects.

import assert from "node:assert/strict";
import { test } from "node:test";
import { parseWith, ValidationError, WindowOverrideSchema } from "../../../src/api/index.ts";

const override = (spec: Record<string, unknown>): unknown => ({
  apiVersion: "fluxgate.io/v1alpha1",
  kind: "WindowOverride",
  metadata: { name: "hotfix" },
  spec: { windowRef: { name: "weekday-changes" }, action: "Open", until: "2026-11-27T18:00:00Z", reason: "hotfix", ...spec },
});

function problems(spec: Record<string, unknown>): string[] {
  try {
    parseWith(WindowOverrideSchema, override(spec));
    return [];
  } catch (e) {
    assert.ok(e instanceof ValidationError);
    return e.problems.map((p) => `${p.path}: ${p.message}`);
  }
}

test("until must be a day its month has: Date.parse would read February 31st as March 3rd", () => {
  assert.deepEqual(problems({ until: "2026-02-31T18:00:00Z" }), ["spec.until: is not a real date-time: that day does not exist in that month"]);
  assert.deepEqual(problems({ until: "2026-04-31T00:00:00+02:00" }), ["spec.until: is not a real date-time: that day does not exist in that month"]);
  assert.deepEqual(problems({ until: "2028-02-29T18:00:00Z" }), [], "a leap day");
  assert.deepEqual(
    problems({ until: "2100-02-29T18:00:00Z" }),
    ["spec.until: is not a real date-time: that day does not exist in that month"],
    "2100 is not a leap year",
  );
});

test("until's hour, minute and offset must be in range: 24:00 and +24:00 are not RFC 3339", () => {
  for (const until of ["2026-11-27T24:00:00Z", "2026-11-27T18:60:00Z", "2026-11-27T18:00:00+24:00", "2026-13-01T00:00:00Z"]) {
    assert.deepEqual(problems({ until }), ['spec.until: must be an RFC 3339 date-time with a zone, e.g. "2026-12-01T18:00:00Z"'], until);
  }
});

test("the window is named as Kubernetes names objects", () => {
  assert.match(problems({ windowRef: { name: "../weekday-changes" } })[0] ?? "", /^spec\.windowRef\.name: must be a Kubernetes object name/);
});
