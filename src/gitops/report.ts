// Findings of `fluxgate check` as text, JSON, or SARIF 2.1.0 for code-scanning UIs.

import { RULES, type Finding, type RuleId } from "./check.ts";
import { documentLine, splitDocuments } from "./yaml-edit.ts";
import { field, str } from "./objects.ts";

/** A finding with the line of the object in its file, when found. */
export interface LocatedFinding extends Finding {
  line?: number;
}

/** What was checked, for the summary line. */
export interface CheckSummary {
  clusters: number;
  kustomizations: number;
  /** Which kustomize rendered them (describeKustomize). */
  kustomize?: string | undefined;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** One line per finding, then a summary. */
export function textReport(findings: readonly LocatedFinding[], summary: CheckSummary): string {
  const lines = findings.map((f) => `${f.file}${f.line === undefined ? "" : `:${f.line}`}: ${f.severity} ${f.rule}: ${f.message} [cluster ${f.cluster}]`);
  const errors = findings.filter((f) => f.severity === "error").length;
  const warnings = findings.length - errors;
  const scope = `in ${plural(summary.clusters, "cluster")} (${plural(summary.kustomizations, "Kustomization")} rendered)`;
  lines.push(findings.length === 0 ? `No findings ${scope}.` : `${plural(errors, "error")}, ${plural(warnings, "warning")} ${scope}.`);
  if (summary.kustomize !== undefined) lines.push(`Rendered with ${summary.kustomize}.`);
  return `${lines.join("\n")}\n`;
}

/** `{"findings": [{"rule", "severity", "file", "object", "message", "cluster", "line"?}]}`. */
export function jsonReport(findings: readonly LocatedFinding[]): string {
  return `${JSON.stringify(
    {
      findings: findings.map((f) => ({
        rule: f.rule,
        severity: f.severity,
        file: f.file,
        object: f.object,
        message: f.message,
        cluster: f.cluster,
        ...(f.line === undefined ? {} : { line: f.line }),
      })),
    },
    null,
    2,
  )}\n`;
}

/** Where the rules are documented. */
const HELP = "docs/gitops.md#rules";

/** A SARIF 2.1.0 log with one run; file locations are relative to the repository root (%SRCROOT%). */
export function sarifReport(findings: readonly LocatedFinding[], toolVersion: string): string {
  const ids = Object.keys(RULES) as RuleId[];
  const log = {
    $schema: "https://json.schemastore.org/sarif-2.1.0.json",
    version: "2.1.0",
    runs: [
      {
        tool: {
          driver: {
            name: "fluxgate",
            version: toolVersion,
            semanticVersion: toolVersion,
            rules: ids.map((id) => ({
              id,
              name: id.replace(/(^|-)([a-z])/g, (_m, _d, c: string) => c.toUpperCase()),
              shortDescription: { text: RULES[id].summary },
              fullDescription: { text: RULES[id].summary },
              helpUri: `${HELP}`,
              help: { text: `${RULES[id].summary} See ${HELP} (rule ${id}).` },
              defaultConfiguration: { level: RULES[id].severity },
            })),
          },
        },
        columnKind: "unicodeCodePoints",
        results: findings.map((f) => ({
          ruleId: f.rule,
          ruleIndex: ids.indexOf(f.rule),
          level: f.severity,
          message: { text: f.message },
          locations: [
            {
              physicalLocation: {
                artifactLocation: { uri: encodeURI(f.file), uriBaseId: "%SRCROOT%" },
                ...(f.line === undefined ? {} : { region: { startLine: f.line } }),
              },
              logicalLocations: [{ name: f.object, kind: "object" }],
            },
          ],
          partialFingerprints: { "fluxgateFinding/v1": `${f.rule}|${f.cluster}|${f.object}` },
          properties: { cluster: f.cluster, object: f.object },
        })),
      },
    ],
  };
  return `${JSON.stringify(log, null, 2)}\n`;
}

/**
 * The line of each finding's object in its file: the document whose kind and name match
 * (`object` is `Kind namespace/name`). Files that cannot be read or parsed are left without lines.
 */
export async function locate(findings: readonly Finding[], read: (path: string) => Promise<string | null>): Promise<LocatedFinding[]> {
  const out: LocatedFinding[] = [];
  for (const f of findings) {
    const text = await read(f.file).catch(() => null);
    const [kind, id] = f.object.split(" ");
    const name = id?.split("/").pop();
    let line: number | undefined;
    if (text !== null) {
      try {
        const doc = splitDocuments(text, f.file).find((d) => str(field(d.value, "kind")) === kind && str(field(d.value, "metadata", "name")) === name);
        if (doc !== undefined) line = documentLine(text, doc);
      } catch {
        line = undefined;
      }
    }
    out.push(line === undefined ? { ...f } : { ...f, line });
  }
  return out;
}
