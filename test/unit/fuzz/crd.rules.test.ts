// Fuzzing the CRD's CEL shape rules against the time engine: the API server never refuses a cron expression, duration or date-time that the engine accepts.
//
// The rules are read from the generated CRD and run as JavaScript regular expressions: the
// patterns use nothing on which RE2 (the API server's dialect) and JavaScript differ.

import assert from "node:assert/strict";
import fc from "fast-check";
import { MAX_NOTICE, windowCrd, type JSONSchemaProps } from "../../../src/api/index.ts";
import { parseCron, parseDuration, parseLocalDateTime, zoneRules } from "../../../src/schedule/index.ts";
import { fuzz } from "./harness.ts";
import { cronText, dateTimeText, durationText, validCronText } from "./inputs.ts";

interface Shape {
  pattern: RegExp;
  /** True when the rule says the value must match; false when it must not. */
  must: boolean;
}

/** The plain `self.matches(r'...')` rules of a field (compound rules, which need CEL functions, are left out). */
function shapes(field: JSONSchemaProps | undefined): Shape[] {
  const rules = field?.["x-kubernetes-validations"] ?? [];
  const out = rules.flatMap(({ rule }) => {
    const m = /^(!?)self\.matches\(r'([^']*)'\)$/.exec(rule);
    return m === null ? [] : [{ pattern: new RegExp(m[2] as string), must: m[1] === "" }];
  });
  assert.ok(out.length > 0, "the field has shape rules");
  return out;
}

const spec = windowCrd().spec.versions[0]?.schema.openAPIV3Schema.properties?.["spec"]?.properties;
const freeze = spec?.["freezes"]?.items?.properties;
const CRON = shapes(spec?.["schedules"]?.items?.properties?.["start"]);
const DURATION = shapes(freeze?.["duration"]);
const LOCAL = shapes(freeze?.["from"]);
const NOTICE = shapes(spec?.["notice"]);

/** Every shape rule admits `value`. */
function admitted(rules: Shape[], value: string): void {
  for (const { pattern, must } of rules) {
    assert.equal(pattern.test(value), must, `${JSON.stringify(value)} ${must ? "does not match" : "matches"} ${pattern.source}`);
  }
}

function fail(): never {
  throw new Error("refused");
}

/** Runs `parse`; true when the engine accepts `value`. */
function accepts(parse: (value: string) => unknown, value: string): boolean {
  try {
    parse(value);
    return true;
  } catch {
    return false;
  }
}

fuzz(import.meta.url, {
  "a cron expression the engine accepts passes the CRD's cron rules": {
    arbitrary: fc.oneof(validCronText, cronText),
    numRuns: 3000,
    check: (text: string) => {
      if (accepts(parseCron, text)) admitted(CRON, text);
    },
  },

  "a duration the engine accepts passes the CRD's duration rules": {
    arbitrary: durationText,
    numRuns: 3000,
    check: (text: string) => {
      if (accepts(parseDuration, text)) admitted(DURATION, text);
    },
  },

  "a notice the schema accepts passes the CRD's notice rules": {
    arbitrary: durationText,
    numRuns: 3000,
    check: (text: string) => {
      if (accepts((v) => parseDuration(v) <= parseDuration(MAX_NOTICE) || fail(), text)) admitted(NOTICE, text);
    },
  },

  "a local date-time the engine accepts passes the CRD's date-time rule": {
    arbitrary: dateTimeText,
    numRuns: 3000,
    check: (text: string) => {
      if (accepts((v) => parseLocalDateTime(v, zoneRules("UTC")), text)) admitted(LOCAL, text);
    },
  },
});
