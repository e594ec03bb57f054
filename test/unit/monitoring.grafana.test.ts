// The Grafana dashboard is a valid dashboard of the schema version it declares: type-checked against @grafana/schema's Dashboard type (Grafana's own schema, as
// TypeScript), whose defaults carry that schema version.

import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test } from "node:test";
import ts from "typescript";
import { defaultDashboard } from "@grafana/schema";
import { repoRoot } from "../../src/devenv/paths.ts";

const DASHBOARD = join(repoRoot, "config", "monitoring", "dashboards", "fluxgate.json");

/** The type declarations of @grafana/schema, as installed. */
function schemaTypes(): string {
  const pkg = createRequire(import.meta.url).resolve("@grafana/schema/package.json");
  return join(dirname(pkg), "dist", "types", "index.d.ts");
}

/**
 * Type-checks `dashboard` against @grafana/schema's Dashboard: a generated module that declares it
 * with `satisfies Dashboard`, so a missing field, a wrong type or an unknown field is an error.
 * JSON cannot name TypeScript's string enums (MappingType.ValueToText is "value" in JSON), so they
 * are read as the strings they stand for.
 */
async function typeErrors(dashboard: unknown): Promise<string[]> {
  const dir = await mkdtemp(join(tmpdir(), "fluxgate-grafana-"));
  try {
    const file = join(dir, "dashboard.ts");
    await writeFile(
      file,
      `import type { Dashboard } from "@grafana/schema";
type Json<T> = T extends string ? \`\${T}\` : T extends readonly (infer U)[] ? Json<U>[] : T extends object ? { [K in keyof T]: Json<T[K]> } : T;
export const dashboard = ${JSON.stringify(dashboard, null, 2)} satisfies Json<Dashboard>;
`,
    );
    const program = ts.createProgram([file], {
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      types: [],
      paths: { "@grafana/schema": [schemaTypes()] },
    });
    return ts.getPreEmitDiagnostics(program).map((d) => {
      const where =
        d.file !== undefined && d.start !== undefined
          ? `${d.file.fileName === file ? "dashboard" : d.file.fileName}:${d.file.getLineAndCharacterOfPosition(d.start).line + 1}: `
          : "";
      return where + ts.flattenDiagnosticMessageText(d.messageText, "\n");
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function dashboard(): Promise<Record<string, unknown>> {
  return JSON.parse(await readFile(DASHBOARD, "utf8")) as Record<string, unknown>;
}

test("the dashboard declares the schema version of @grafana/schema's dashboard", async () => {
  assert.equal((await dashboard())["schemaVersion"], defaultDashboard.schemaVersion);
});

test("the dashboard type-checks against @grafana/schema's Dashboard type", async () => {
  assert.deepEqual(await typeErrors(await dashboard()), []);
});

test("the type check finds what is wrong: an unknown field, a field of the wrong type, a missing one", async () => {
  const d = await dashboard();
  const panels = d["panels"] as Record<string, unknown>[];
  const wrong = (change: (copy: Record<string, unknown>, panels: Record<string, unknown>[]) => void): Record<string, unknown> => {
    const copy = structuredClone(d);
    change(copy, copy["panels"] as Record<string, unknown>[]);
    return copy;
  };
  assert.ok(panels.length > 0);
  const unknownField = await typeErrors(wrong((c) => (c["schemaVerison"] = 42)));
  assert.ok(
    unknownField.some((e) => /schemaVerison/.test(e)),
    unknownField.join("\n"),
  );
  const wrongType = await typeErrors(wrong((_, p) => ((p[0] as { gridPos: { w: unknown } }).gridPos.w = "24")));
  assert.ok(
    wrongType.some((e) => /not assignable to type 'number'/.test(e)),
    wrongType.join("\n"),
  );
  const missing = await typeErrors(wrong((c) => delete c["schemaVersion"]));
  assert.ok(
    missing.some((e) => /schemaVersion/.test(e)),
    missing.join("\n"),
  );
  const badMapping = await typeErrors(
    wrong(
      (_, p) =>
        ((
          (p.find((x) => x["type"] === "stat") as { fieldConfig: { defaults: { mappings: { type: string }[] } } }).fieldConfig.defaults.mappings[0] as {
            type: string;
          }
        ).type = "values"),
    ),
  );
  assert.ok(badMapping.length > 0, "a value mapping of an unknown type");
});
