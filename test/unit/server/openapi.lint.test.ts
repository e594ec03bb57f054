// The OpenAPI document passes Redocly's recommended rules (the library behind `redocly lint`) with no error and no warning.

import assert from "node:assert/strict";
import { test } from "node:test";
import { createConfig, lintFromString } from "@redocly/openapi-core";
import { openApiDocument } from "../../../src/server/http/openapi.ts";

/** Redocly's findings (errors and warnings) in `document`, with the recommended rules `redocly lint` applies by default. */
async function lint(document: unknown): Promise<string[]> {
  const config = await createConfig({ extends: ["recommended"] });
  const problems = await lintFromString({ source: JSON.stringify(document), absoluteRef: "openapi.json", config });
  return problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? "?"}`);
}

test("redocly lint (recommended) finds nothing in /openapi.json", async () => {
  assert.deepEqual(await lint(openApiDocument("0.1.0")), []);
});

test("the lint can fail: without a license, or with a health route answering only 200, it warns", async () => {
  const unlicensed = openApiDocument("0.1.0") as any;
  delete unlicensed.info.license;
  assert.ok(
    (await lint(unlicensed)).some((p) => p.startsWith("warn info-license")),
    "a missing license is a warning",
  );
  const healthOnly200 = openApiDocument("0.1.0") as any;
  healthOnly200.paths["/healthz"].get.responses = { "200": healthOnly200.paths["/healthz"].get.responses["200"] };
  assert.ok(
    (await lint(healthOnly200)).some((p) => p.startsWith("warn operation-4xx-response") && p.includes("/paths/~1healthz/")),
    "a route without a 4xx answer is a warning",
  );
});

test("the document states the license, the calendar's access_token and the health routes' errors", () => {
  const doc = openApiDocument("0.1.0") as any;
  assert.equal(doc.info.license.identifier, "Apache-2.0");
  assert.deepEqual(doc.components.securitySchemes.accessToken, {
    ...doc.components.securitySchemes.accessToken,
    type: "apiKey",
    in: "query",
    name: "access_token",
  });
  assert.deepEqual(doc.paths["/api/v1/clusters/{cluster}/calendar.ics"].get.security, [{ bearer: [] }, { accessToken: [] }]);
  for (const path of ["/healthz", "/readyz", "/metrics"])
    assert.ok(
      Object.keys(doc.paths[path].get.responses).some((code) => code.startsWith("4")),
      path,
    );
});
