// config/monitoring: the alerting rules pass promtool's checks and unit tests, and the rules and the Grafana dashboard query only metrics fluxgate exports.
import assert from "node:assert/strict";
import { copyFile, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { parse, parseAllDocuments, stringify } from "yaml";
import { Metrics, STATES } from "../../src/controller/metrics.ts";
import { repoRoot } from "../../src/devenv/paths.ts";
import { kustomizeBuild } from "../../src/devenv/install.ts";
import { runPromtool } from "../harness/promtool.ts";

const MONITORING = join(repoRoot, "config", "monitoring");

interface Rule {
  alert?: string;
  expr: string;
  labels?: Record<string, string>;
}

interface RuleTests {
  tests: { alert_rule_test?: { alertname: string; exp_alerts?: unknown[] }[] }[];
}

interface Panel {
  id: number;
  type: string;
  title: string;
  gridPos: { x: number; y: number; w: number; h: number };
  datasource?: { type: string; uid: string };
  targets?: { refId: string; expr: string }[];
  fieldConfig: { defaults: { mappings?: { options: Record<string, { text: string }> }[] } };
}

interface Dashboard {
  uid: string;
  title: string;
  schemaVersion: number;
  panels: Panel[];
  templating: { list: { name: string; type: string; query?: unknown }[] };
}

async function rules(): Promise<{ groups: { name: string; rules: Rule[] }[] }> {
  const doc = parse(await readFile(join(MONITORING, "prometheusrule.yaml"), "utf8")) as { kind: string; spec: { groups: { name: string; rules: Rule[] }[] } };
  assert.equal(doc.kind, "PrometheusRule");
  return { groups: doc.spec.groups };
}

async function dashboard(): Promise<Dashboard> {
  return JSON.parse(await readFile(join(MONITORING, "dashboards", "fluxgate.json"), "utf8")) as Dashboard;
}

/** Every fluxgate_* series name the controller exports (a histogram as its _bucket, _sum and _count). */
async function exported(): Promise<Set<string>> {
  const names = new Set<string>();
  for (const m of await new Metrics().registry.getMetricsAsJSON()) {
    if (String(m.type) === "histogram") for (const suffix of ["_bucket", "_sum", "_count"]) names.add(m.name + suffix);
    else names.add(m.name);
  }
  return names;
}

function metricsIn(expr: string): string[] {
  return [...expr.matchAll(/\bfluxgate_[a-z_]+\b/g)].map((m) => m[0]);
}

test("the alerting rules pass promtool check rules and their unit tests (promtool test rules)", async () => {
  const dir = await mkdtemp(join(tmpdir(), "fluxgate-rules-"));
  try {
    // The rules as Prometheus reads them: the PrometheusRule's spec, and the unit tests next to them.
    await writeFile(join(dir, "fluxgate.rules.yaml"), stringify(await rules()));
    await copyFile(join(MONITORING, "rules.test.yaml"), join(dir, "rules.test.yaml"));
    const check = await runPromtool(["check", "rules", join(dir, "fluxgate.rules.yaml")]);
    assert.equal(check.code, 0, check.output);
    assert.match(check.output, /SUCCESS: \d+ rules found/);
    const unit = await runPromtool(["test", "rules", join(dir, "rules.test.yaml")]);
    assert.equal(unit.code, 0, unit.output);
    assert.match(unit.output, /SUCCESS/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("every alert has a unit test in which it fires and one in which it does not, and a severity", async () => {
  const tests = parse(await readFile(join(MONITORING, "rules.test.yaml"), "utf8")) as RuleTests;
  const cases = tests.tests.flatMap((t) => t.alert_rule_test ?? []);
  const alerts = (await rules()).groups.flatMap((g) => g.rules).filter((r) => r.alert !== undefined);
  assert.ok(alerts.length >= 6, `${alerts.length} alerts`);
  // What an operator must know: a target kept suspended past its window, SuspendReverted fights, a window
  // invalid, the controller not leading, transitions failing (errors, or late).
  const required = [
    "FluxgateTargetSuspendedPastWindow",
    "FluxgateSuspendReverted",
    "FluxgateWindowInvalid",
    "FluxgateNoLeader",
    "FluxgateReconcileErrors",
    "FluxgateTransitionsLate",
  ];
  for (const name of required)
    assert.ok(
      alerts.some((r) => r.alert === name),
      `the rules have ${name}`,
    );
  for (const rule of alerts) {
    const name = rule.alert as string;
    assert.ok(
      cases.some((c) => c.alertname === name && (c.exp_alerts ?? []).length > 0),
      `${name}: a test where it fires`,
    );
    assert.ok(
      cases.some((c) => c.alertname === name && (c.exp_alerts ?? []).length === 0),
      `${name}: a test where it stays quiet`,
    );
    assert.ok(["critical", "warning", "info"].includes(rule.labels?.severity ?? ""), `${name}: severity ${rule.labels?.severity ?? "missing"}`);
  }
});

test("the rules and every dashboard query name only metrics the controller exports", async () => {
  const names = await exported();
  const used = [
    ...(await rules()).groups.flatMap((g) => g.rules).map((r) => ({ where: `rule ${r.alert ?? "?"}`, expr: r.expr })),
    ...(await dashboard()).panels.flatMap((p) => (p.targets ?? []).map((t) => ({ where: `panel "${p.title}"`, expr: t.expr }))),
  ];
  assert.ok(used.length > 10);
  for (const { where, expr } of used) {
    const metrics = metricsIn(expr);
    assert.ok(metrics.length > 0, `${where} queries no fluxgate metric: ${expr}`);
    for (const m of metrics) assert.ok(names.has(m), `${where} queries ${m}, which the controller does not export`);
  }
});

test("the Grafana dashboard: schema version 42, unique panel ids, a 24-column grid without overlaps, every query on the data source variable, every window state mapped", async () => {
  const d = await dashboard();
  assert.equal(d.schemaVersion, 42);
  assert.equal(d.uid, "fluxgate");
  assert.ok(d.title.length > 0);
  const ids = d.panels.map((p) => p.id);
  assert.equal(new Set(ids).size, ids.length, "panel ids are unique");
  const variables = d.templating.list.map((v) => v.name);
  assert.ok(variables.includes("datasource") && variables.includes("namespace"));
  for (const [i, p] of d.panels.entries()) {
    const g = p.gridPos;
    assert.ok(g.x >= 0 && g.w > 0 && g.x + g.w <= 24 && g.h > 0, `panel "${p.title}" fits the grid`);
    for (const q of d.panels.slice(i + 1)) {
      const o = q.gridPos;
      const overlap = g.x < o.x + o.w && o.x < g.x + g.w && g.y < o.y + o.h && o.y < g.y + g.h;
      assert.ok(!overlap, `panels "${p.title}" and "${q.title}" overlap`);
    }
    assert.equal(p.datasource?.uid, "${datasource}", `panel "${p.title}" uses the data source variable`);
    const refIds = (p.targets ?? []).map((t) => t.refId);
    assert.equal(new Set(refIds).size, refIds.length, `panel "${p.title}": unique refIds`);
  }
  const timeline = d.panels.find((p) => p.type === "state-timeline");
  const mapped = Object.values(timeline?.fieldConfig.defaults.mappings?.[0]?.options ?? {}).map((o) => o.text);
  assert.deepEqual(mapped, [...STATES], "the state timeline names every state fluxgate_window_state has");
});

test("kustomize build config/monitoring: a PodMonitor, the PrometheusRule, and the dashboard as a ConfigMap for Grafana's sidecar", async () => {
  const docs = parseAllDocuments(await kustomizeBuild("config/monitoring")).map(
    (d) => d.toJS() as { kind: string; metadata: { name: string; namespace: string; labels?: Record<string, string> }; data?: Record<string, string> },
  );
  assert.deepEqual(docs.map((d) => d.kind).sort(), ["ConfigMap", "PodMonitor", "PrometheusRule"]);
  const cm = docs.find((d) => d.kind === "ConfigMap");
  assert.equal(cm?.metadata.labels?.grafana_dashboard, "1");
  assert.deepEqual(JSON.parse(cm?.data?.["fluxgate.json"] ?? "{}"), await dashboard());
  for (const d of docs) assert.equal(d.metadata.namespace, "fluxgate-system");
});
