// The OpenAPI document passes Redocly's recommended rules (the library behind `redocly lint`) with no error and no warning.

import assert from "node:assert/strict";
import { test } from "node:test";
import { createConfig, lintFromString } from "@redocly/openapi-core";
import { openApiDocument } from "../../../src/server/openapi.ts";

test("redocly lint (recommended) finds nothing in /openapi.json", async () => {
  const config = await createConfig({ extends: ["recommended"] });
  const problems = await lintFromString({ source: JSON.stringify(openApiDocument("0.1.0")), absoluteRef: "openapi.json", config });
  const found = problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? "?"}`);
  assert.deepEqual(found, []);
});

test("the document states the license, the calendar's access_token and the health routes' errors", () => {
  const doc = openApiDocument("0.1.0") as any;
  assert.equal(doc.info.license.identifier, "Apache-2.0");
  assert.deepEqual(doc.components.securitySchemes.accessToken, { ...doc.components.securitySchemes.accessToken, type: "apiKey", in: "query", name: "access_token" });
  assert.deepEqual(doc.paths["/api/v1/clusters/{cluster}/calendar.ics"].get.security, [{ bearer: [] }, { accessToken: [] }]);
  for (const path of ["/healthz", "/readyz", "/metrics"]) assert.ok(Object.keys(doc.paths[path].get.responses).some((code) => code.startsWith("4")), path);
});
