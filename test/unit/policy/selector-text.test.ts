// Label selectors as text: kubectl's syntax read into the LabelSelector that the one matcher (select.ts) matches, and refused with the requirement at fault.

import assert from "node:assert/strict";
import { test } from "node:test";
import { formatSelector, matchesSelector, parseSelector, SelectorSyntaxError } from "../../../src/policy/index.ts";
import { InputError } from "../../../src/errors.ts";

test("every requirement kind is read into matchLabels and matchExpressions", () => {
  assert.deepEqual(parseSelector("ring=prod, region in (eu, us),tier!=db,site notin (a,b),gpu,!legacy,zone==x"), {
    matchLabels: { ring: "prod", zone: "x" },
    matchExpressions: [
      { key: "region", operator: "In", values: ["eu", "us"] },
      { key: "tier", operator: "NotIn", values: ["db"] },
      { key: "site", operator: "NotIn", values: ["a", "b"] },
      { key: "gpu", operator: "Exists" },
      { key: "legacy", operator: "DoesNotExist" },
    ],
  });
  assert.deepEqual(parseSelector(""), { matchLabels: {}, matchExpressions: [] });
  assert.deepEqual(parseSelector("example.com/ring=prod"), { matchLabels: { "example.com/ring": "prod" }, matchExpressions: [] });
});

test("parsed selectors match labels with Kubernetes semantics", () => {
  const labels = { ring: "prod", region: "eu" };
  const cases: Array<[string, boolean]> = [
    ["ring=prod", true],
    ["ring=canary", false],
    ["region in (eu,us)", true],
    ["region notin (eu)", false],
    ["tier!=db", true], // a missing label is not "db"
    ["tier", false],
    ["!tier", true],
    ["ring=prod,region=us", false],
    ["", true],
  ];
  for (const [text, expected] of cases) assert.equal(matchesSelector(parseSelector(text), labels), expected, text);
});

test("formatSelector writes back what parseSelector reads", () => {
  for (const text of ["ring=prod", "ring=prod,region in (eu,us)", "tier!=db", "site notin (a,b)", "gpu", "!legacy"]) {
    assert.equal(formatSelector(parseSelector(text)), text);
    assert.deepEqual(parseSelector(formatSelector(parseSelector(text))), parseSelector(text));
  }
});

test("a selector that cannot be read is refused with the flag and the requirement at fault", () => {
  const cases: Array<[string, RegExp]> = [
    ["ring=prod,,x", /a requirement between commas is empty/],
    ["ring in (eu", /parentheses do not match/],
    ["ring in ()", /"ring in \(\)": in needs at least one value/],
    ["Ring!=bad value", /is not a requirement|must be a label value/],
    ["-ring=prod", /"-ring" must be a label key/],
    ["ring=pr@d", /"pr@d" must be a label value/],
    ["ring=a,ring=b", /"ring" cannot equal both "a" and "b"/],
    ["ring >= 3", /is not a requirement/],
  ];
  for (const [text, message] of cases) {
    assert.throws(
      () => parseSelector(text, "--selector"),
      (e: unknown) =>
        e instanceof SelectorSyntaxError && e instanceof InputError && e.message.startsWith(`--selector ${JSON.stringify(text)}: `) && message.test(e.message),
      text,
    );
  }
});
