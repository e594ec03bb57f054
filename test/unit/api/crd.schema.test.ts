// The generated CRDs: structural schemas with descriptions, defaults equal to the accessors', printer columns that point at real fields.

import assert from "node:assert/strict";
import { test } from "node:test";
import { z } from "zod";
import {
  closeGracePeriodOf,
  CrdSchemaError,
  modeOf,
  overrideCrd,
  parseWith,
  ReconciliationWindowSpecSchema,
  structuralSchema,
  timeZoneOf,
  windowCrd,
  type JSONSchemaProps,
} from "../../../src/api/index.ts";

const crds = [windowCrd(), overrideCrd()];
const root = (c: (typeof crds)[number]): JSONSchemaProps => c.spec.versions[0]!.schema.openAPIV3Schema;

function* nodes(n: JSONSchemaProps, path: string): Generator<[string, JSONSchemaProps]> {
  yield [path, n];
  for (const [k, v] of Object.entries(n.properties ?? {})) yield* nodes(v, `${path}.${k}`);
  if (n.items) yield* nodes(n.items, `${path}[]`);
  if (n.additionalProperties) yield* nodes(n.additionalProperties, `${path}.*`);
}

/** The schema node at a printer column's JSON path (`.status.targets.matched`). */
function at(n: JSONSchemaProps, jsonPath: string): JSONSchemaProps | undefined {
  let cur: JSONSchemaProps | undefined = n;
  for (const key of jsonPath.split(".").slice(1)) cur = cur?.properties?.[key];
  return cur;
}

test("every schema node has one type and nothing a structural schema forbids", () => {
  for (const c of crds) {
    for (const [path, n] of nodes(root(c), c.spec.names.kind)) {
      assert.equal(typeof n.type, "string", `${path} has no type`);
      const raw = n as Record<string, unknown>;
      for (const forbidden of ["$ref", "anyOf", "oneOf", "allOf", "not", "const", "$schema", "propertyNames"]) {
        assert.equal(raw[forbidden], undefined, `${path} has ${forbidden}`);
      }
      assert.ok(typeof raw["additionalProperties"] !== "boolean", `${path} has additionalProperties: ${String(raw["additionalProperties"])}`);
      assert.ok(!(n.properties && n.additionalProperties), `${path} has both properties and additionalProperties`);
    }
  }
});

test("every named field of spec and status is described (kubectl explain shows it)", () => {
  for (const c of crds) {
    for (const part of ["spec", "status"]) {
      for (const [path, n] of nodes(root(c).properties![part]!, `${c.spec.names.kind}.${part}`)) {
        if (path.endsWith("[]") || path.endsWith(".*")) continue;
        assert.ok(n.description, `${path} has no description`);
      }
    }
  }
});

test("the CRD's defaults are the accessors' defaults", () => {
  const spec = root(windowCrd()).properties!["spec"]!.properties!;
  const minimal = parseWith(ReconciliationWindowSpecSchema, { targets: [{ kind: "Kustomization", name: "a" }] });
  const defaulted = parseWith(ReconciliationWindowSpecSchema, {
    targets: [{ kind: "Kustomization", name: "a" }],
    timeZone: spec["timeZone"]!.default,
    mode: spec["mode"]!.default,
    closeGracePeriod: spec["closeGracePeriod"]!.default,
  });
  assert.equal(spec["timeZone"]!.default, "UTC");
  assert.equal(timeZoneOf(defaulted), timeZoneOf(minimal));
  assert.equal(modeOf(defaulted), modeOf(minimal));
  assert.equal(closeGracePeriodOf(defaulted), closeGracePeriodOf(minimal));
  assert.equal(closeGracePeriodOf(defaulted), 300_000);
});

test("printer columns point at fields of the schema, of the column's type", () => {
  const types: Record<string, string> = { string: "string", integer: "integer", date: "string" };
  for (const c of crds) {
    const version = c.spec.versions[0]!;
    for (const col of version.additionalPrinterColumns) {
      if (col.jsonPath === ".metadata.creationTimestamp") continue;
      const field = at(version.schema.openAPIV3Schema, col.jsonPath);
      assert.ok(field, `${c.spec.names.kind} column ${col.name}: ${col.jsonPath} is not in the schema`);
      assert.equal(field.type, types[col.type], `${c.spec.names.kind} column ${col.name}`);
    }
  }
  assert.deepEqual(
    windowCrd()
      .spec.versions[0]!.additionalPrinterColumns.filter((c) => c.priority === undefined)
      .map((c) => c.name.toUpperCase()),
    ["STATE", "NEXT", "TARGETS", "PENDING", "AGE"],
  );
});

test("names, scope and status subresource", () => {
  const w = windowCrd();
  assert.equal(w.metadata.name, "reconciliationwindows.fluxgate.io");
  assert.deepEqual(w.spec.names.shortNames, ["rwin"]);
  assert.deepEqual(overrideCrd().spec.names.shortNames, ["wo"]);
  for (const c of crds) {
    assert.equal(c.spec.scope, "Namespaced");
    assert.deepEqual(c.spec.names.categories, ["fluxgate"]);
    assert.deepEqual(c.spec.versions[0]!.subresources, { status: {} });
  }
});

test("a schema with no structural equivalent is refused, naming the field", () => {
  assert.throws(
    () => structuralSchema(z.strictObject({ spec: z.strictObject({ at: z.union([z.string(), z.number()]) }) })),
    (e: unknown) => e instanceof CrdSchemaError && e.path === "spec.at" && /anyOf/.test(e.message),
  );
  assert.throws(() => structuralSchema(z.strictObject({ anything: z.any() })), /anything: has no single type/);
  assert.throws(() => structuralSchema(z.strictObject({ pair: z.tuple([z.string(), z.number()]) })), /pair\[\]: "anyOf" is not supported/);
});
