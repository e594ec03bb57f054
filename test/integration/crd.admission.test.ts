// The generated CRDs on the real kube-apiserver: accepted, samples admitted, malformed objects refused with the field and the reason, defaults applied, printer
// columns served.
// What CEL cannot see is not here: an override's until more than 7 days after its creation (CEL has no clock and no
// creation time), a cron date that never exists, an unknown zone; the controller checks those (docs/api.md).
import { ApiException, ApiextensionsV1Api, CustomObjectsApi } from "@kubernetes/client-node";
import type { KubeConfig } from "@kubernetes/client-node";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { request } from "node:https";
import type { RequestOptions } from "node:https";
import { test } from "node:test";
import { parse } from "yaml";
import { closeGracePeriodOf, onRevertOf, modeOf, parseWith, timeZoneOf, validateWindow, ValidationError, WindowOverrideSchema } from "../../src/api/index.ts";
import { freshNamespace, installCrds, sharedControlPlane } from "../harness/index.ts";
import type { ControlPlane } from "../harness/index.ts";

const plane = sharedControlPlane();
const ROOT = new URL("../../", import.meta.url);
const NOW = Date.parse("2026-11-22T10:00:00Z");

const windows = { group: "fluxgate.io", version: "v1alpha1", plural: "reconciliationwindows" };
const overrides = { group: "fluxgate.io", version: "v1alpha1", plural: "windowoverrides" };

const sample = (kind: "reconciliationwindow" | "windowoverride"): Record<string, any> =>
  parse(readFileSync(new URL(`config/samples/fluxgate.io_v1alpha1_${kind}.yaml`, ROOT), "utf8")) as Record<string, any>;

let installed: Promise<unknown> | undefined;

/** The shared control plane with the generated CRDs installed (once per file, by the first test that asks). */
async function cluster(): Promise<ControlPlane> {
  const cp = plane();
  const files = ["reconciliationwindows", "windowoverrides"].map((p) => new URL(`config/crd/bases/fluxgate.io_${p}.yaml`, ROOT).pathname);
  installed ??= installCrds(cp.kubeConfig, files);
  await installed;
  return cp;
}

/** Creates `body` with strict field validation; returns the server's refusal (status code and message), or undefined when it was created. */
async function refusal(kc: KubeConfig, resource: typeof windows, namespace: string, body: object): Promise<{ code: number; message: string } | undefined> {
  try {
    await kc.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({ ...resource, namespace, body, fieldValidation: "Strict" });
    return undefined;
  } catch (err) {
    if (!(err instanceof ApiException)) throw err;
    const e = err as ApiException<unknown>;
    const body: unknown = typeof e.body === "string" ? JSON.parse(e.body) : e.body;
    return { code: e.code, message: (body as { message?: string }).message ?? String(e.body) };
  }
}

/** GET `path` as a server-side Table, the way kubectl asks for printer columns. */
async function table(kc: KubeConfig, path: string): Promise<{ columnDefinitions: { name: string; priority: number }[]; rows: { cells: unknown[] }[] }> {
  const server = kc.getCurrentCluster()?.server;
  assert.ok(server !== undefined);
  const options: RequestOptions = { method: "GET", headers: { accept: "application/json;as=Table;v=v1;g=meta.k8s.io" } };
  await kc.applyToHTTPSOptions(options);
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, server), options, (res) => {
      let text = "";
      res.on("data", (chunk: Buffer) => (text += chunk.toString()));
      res.on("end", () => (res.statusCode === 200 ? resolve(JSON.parse(text)) : reject(new Error(`GET ${path}: ${res.statusCode}: ${text}`))));
    });
    req.on("error", reject);
    req.end();
  });
}

test("the API server accepts the generated CRDs with their CEL rules and serves both kinds", async () => {
  const api = (await cluster()).kubeConfig.makeApiClient(ApiextensionsV1Api);
  const crd = await api.readCustomResourceDefinition({ name: "reconciliationwindows.fluxgate.io" });
  const spec = crd.spec.versions[0]?.schema?.openAPIV3Schema?.properties?.["spec"];
  assert.equal(spec?.x_kubernetes_validations?.length, 2, "the spec-level CEL rules reached the server");
  assert.deepEqual(crd.spec.names.shortNames, ["rwin"]);
  const override = await api.readCustomResourceDefinition({ name: "windowoverrides.fluxgate.io" });
  assert.ok(override.status?.conditions?.some((c) => c.type === "Established" && c.status === "True"));
});

test("the samples are admitted, and the schemas accept them too", async () => {
  const cp = await cluster();
  const namespace = await freshNamespace(cp, "samples");
  const window = { ...sample("reconciliationwindow"), metadata: { ...sample("reconciliationwindow").metadata, namespace } };
  const override = { ...sample("windowoverride"), metadata: { ...sample("windowoverride").metadata, namespace } };
  validateWindow(window, NOW);
  parseWith(WindowOverrideSchema, override);
  assert.equal(await refusal(cp.kubeConfig, windows, namespace, window), undefined);
  assert.equal(await refusal(cp.kubeConfig, overrides, namespace, override), undefined);
});

test("CronJob's own forms (?, */2 in a day field, a + sign, *-N, an empty list item) are admitted, and the schema accepts them too", async () => {
  const cp = await cluster();
  const namespace = await freshNamespace(cp, "cronjob-forms");
  for (const [i, start] of ["0 8 ? * MON", "0 0 */2 * MON", "0 +12 * * *", "*-5 8 * * *", "0 8 1,,15 * *"].entries()) {
    const window = sample("reconciliationwindow");
    window.metadata = { ...window.metadata, name: `forms-${i}`, namespace };
    window.spec.schedules[0].start = start;
    validateWindow(window, NOW);
    assert.equal(await refusal(cp.kubeConfig, windows, namespace, window), undefined, start);
  }
});

type Mutation = (o: Record<string, any>) => void;

const malformedWindows: [string, Mutation, RegExp][] = [
  [
    "end and duration",
    (w) => (w.spec.schedules[0].duration = "2h"),
    /spec\.schedules\[0\]: Invalid value: "object": has both end and duration: give exactly one/,
  ],
  ["neither end nor duration", (w) => delete w.spec.schedules[0].end, /spec\.schedules\[0\]: Invalid value: "object": needs an end \(cron\) or a duration/],
  [
    "a cron with seconds",
    (w) => (w.spec.freezes[0].start = "0 0 0 * * FRI"),
    /spec\.freezes\[0\]\.start: Invalid value: "string": must be a cron expression with 5 fields/,
  ],
  ["a cron with 3 fields", (w) => (w.spec.schedules[0].start = "0 8 *"), /spec\.schedules\[0\]\.start: .*must be a cron expression with 5 fields/],
  ["a duration in days", (w) => (w.spec.schedules[1].duration = "2d"), /spec\.schedules\[1\]\.duration: .*must be a positive Go duration/],
  ["a negative duration", (w) => (w.spec.schedules[1].duration = "-2h"), /spec\.schedules\[1\]\.duration: .*must be a positive Go duration/],
  ["a zero duration", (w) => (w.spec.freezes[0].duration = "0s"), /spec\.freezes\[0\]\.duration: .*is zero: a window must last a positive time/],
  ["a bad closeGracePeriod", (w) => (w.spec.closeGracePeriod = "five minutes"), /spec\.closeGracePeriod: .*must be a positive Go duration/],
  ["an offset for a zone", (w) => (w.spec.timeZone = "+01:00"), /spec\.timeZone: .*must be an IANA time zone name/],
  [
    "a mixed freeze",
    (w) => (w.spec.freezes[1].start = "0 0 * * *"),
    /spec\.freezes\[1\]: .*mixes a recurring freeze \(start, end, duration, recurrence\) with a one-off freeze/,
  ],
  ["from without to", (w) => delete w.spec.freezes[1].to, /spec\.freezes\[1\]\.to: .*is required with from/],
  ["to without from", (w) => delete w.spec.freezes[1].from, /spec\.freezes\[1\]\.from: .*is required with to/],
  ["to before from", (w) => (w.spec.freezes[1].to = "2026-12-01T00:00"), /spec\.freezes\[1\]\.to: .*must be after from/],
  [
    "a freeze that is neither kind",
    (w) => (w.spec.freezes[0] = { reason: "?" }),
    /spec\.freezes\[0\]: .*needs start with end or duration \(recurring\), a recurrence with at, from and to \(one-off\), or holidays/,
  ],
  ["a date-time in words", (w) => (w.spec.freezes[1].from = "20 Dec 2026"), /spec\.freezes\[1\]\.from: .*must be a date-time such as "2026-12-20T00:00"/],
  ["an empty freeze reason", (w) => (w.spec.freezes[0].reason = ""), /spec\.freezes\[0\]\.reason: .*at least 1 chars long/],
  ["a target with neither name nor selector", (w) => delete w.spec.targets[0].name, /spec\.targets\[0\]: .*needs a name or a labelSelector/],
  ["a target with name and selector", (w) => (w.spec.targets[1].name = "apps"), /spec\.targets\[1\]: .*has both name and labelSelector: give exactly one/],
  [
    "an unknown target kind",
    (w) => (w.spec.targets[0].kind = "Deployment"),
    /spec\.targets\[0\]\.kind: Unsupported value: "Deployment": supported values: "Kustomization", "HelmRelease"/,
  ],
  ["no targets", (w) => (w.spec.targets = []), /spec\.targets: .*should have at least 1 items/],
  [
    "65 schedules",
    (w) => (w.spec.schedules = Array.from({ length: 65 }, () => ({ start: "@daily", duration: "1h" }))),
    /spec\.schedules: Too many: 65: must have at most 64 items/,
  ],
  ["an unknown mode", (w) => (w.spec.mode = "Pause"), /spec\.mode: Unsupported value: "Pause": supported values: "Suspend", "Gate"/],
  ["mode Gate without gate", (w) => (w.spec.mode = "Gate"), /spec\.gate: .*is required when mode is Gate/],
  [
    "a gate without mode Gate",
    (w) => (w.spec.gate = { upstream: { kind: "GitRepository", name: "gitops" }, gatedName: "gitops-weekday" }),
    /spec\.gate: .*is only allowed when mode is Gate/,
  ],
  ["an unknown field", (w) => (w.spec.schedules[0].stop = "0 17 * * THU"), /unknown field "spec\.schedules\[0\]\.stop"/],
  ["no spec", (w) => delete w.spec, /spec: Required value/],
  // Cron expressions CronJob would not run, in schedules and in freezes.
  [
    "L in a freeze's cron",
    (w) => (w.spec.freezes[0].start = "0 0 L * *"),
    /spec\.freezes\[0\]\.start: .*must be a cron expression .*seconds, L, W and # are not supported/,
  ],
  ["# in a schedule's cron", (w) => (w.spec.schedules[0].start = "0 8 * * 1#2"), /spec\.schedules\[0\]\.start: .*must be a cron expression with 5 fields/],
  ["W in a schedule's end", (w) => (w.spec.schedules[0].end = "0 17 15W * *"), /spec\.schedules\[0\]\.end: .*must be a cron expression with 5 fields/],
  [
    "a name in the hour field",
    (w) => (w.spec.schedules[1].start = "0 MON * * *"),
    /spec\.schedules\[1\]\.start: .*names \(MON, JAN\) only in month and day of week/,
  ],
  ["@every as a cron", (w) => (w.spec.freezes[0].start = "@every 24h"), /spec\.freezes\[0\]\.start: .*must be a cron expression/],
  [
    "a cron of 257 characters",
    (w) => (w.spec.schedules[0].start = `0 8 * * ${"1,".repeat(124)}1`),
    /spec\.schedules\[0\]\.start: Too long: may not be more than 256 bytes/,
  ],
  // end and duration, in freezes too.
  [
    "end and duration in a freeze",
    (w) => (w.spec.freezes[0].end = "0 0 * * SAT"),
    /spec\.freezes\[0\]: Invalid value: "object": has both end and duration: give exactly one/,
  ],
  [
    "neither end nor duration in a freeze",
    (w) => delete w.spec.freezes[0].duration,
    /spec\.freezes\[0\]: Invalid value: "object": needs an end \(cron\) or a duration/,
  ],
  ["a duration of 999999h", (w) => (w.spec.schedules[1].duration = "999999h"), /spec\.schedules\[1\]\.duration: .*is longer than 366 days \(8784h\)/],
  ["a freeze of 9000h", (w) => (w.spec.freezes[0].duration = "9000h"), /spec\.freezes\[0\]\.duration: .*is longer than 366 days \(8784h\)/],
  ["a closeGracePeriod of 527041m", (w) => (w.spec.closeGracePeriod = "527041m"), /spec\.closeGracePeriod: .*is longer than 366 days/],
  ["a zero notice", (w) => (w.spec.notice = "0m"), /spec\.notice: .*is zero: give a positive lead time such as "15m"/],
  ["a negative notice", (w) => (w.spec.notice = "-15m"), /spec\.notice: .*must be a positive Go duration/],
  ["a notice in days", (w) => (w.spec.notice = "7d"), /spec\.notice: .*must be a positive Go duration/],
  ["a notice of 169h", (w) => (w.spec.notice = "169h"), /spec\.notice: .*is longer than 7 days \(168h\)/],
  ["a notice of 1000000s", (w) => (w.spec.notice = "1000000s"), /spec\.notice: .*is longer than 7 days \(168h\)/],
  // Local date-times with parts out of range.
  ["month 13 in from", (w) => (w.spec.freezes[1].from = "2026-13-01T00:00"), /spec\.freezes\[1\]\.from: .*must be a date-time such as "2026-12-20T00:00"/],
  ["hour 24 in to", (w) => (w.spec.freezes[1].to = "2027-01-05T24:00"), /spec\.freezes\[1\]\.to: .*must be a date-time such as "2026-12-20T00:00"/],
  // Lists beyond their bounds, strings beyond their lengths.
  [
    "65 freezes",
    (w) => (w.spec.freezes = Array.from({ length: 65 }, () => ({ start: "@daily", duration: "1h" }))),
    /spec\.freezes: Too many: 65: must have at most 64 items/,
  ],
  [
    "65 targets",
    (w) => (w.spec.targets = Array.from({ length: 65 }, (_, i) => ({ kind: "Kustomization", name: `t${i}` }))),
    /spec\.targets: Too many: 65: must have at most 64 items/,
  ],
  [
    "a freeze reason of 1025 characters",
    (w) => (w.spec.freezes[0].reason = "r".repeat(1025)),
    /spec\.freezes\[0\]\.reason: Too long: may not be more than 1024 bytes/,
  ],
  ["a target name of 254 characters", (w) => (w.spec.targets[0].name = "a".repeat(254)), /spec\.targets\[0\]\.name: Too long: may not be more than 253 bytes/],
  ["a time zone of 65 characters", (w) => (w.spec.timeZone = `Europe/${"B".repeat(58)}`), /spec\.timeZone: Too long: may not be more than 64 bytes/],
  [
    "a schedule that is a string",
    (w) => (w.spec.schedules[0] = "0 8 * * MON"),
    /spec\.schedules\[0\]: Invalid value: "string": spec\.schedules\[0\] in body must be of type object/,
  ],
  // Names and namespaces that Kubernetes would not give an object.
  [
    "a target name with capitals",
    (w) => (w.spec.targets[0].name = "Apps_RW"),
    /spec\.targets\[0\]\.name: .*must be a Kubernetes object name: lower-case letters, digits, '-' and '\.'/,
  ],
  ["a target name that is a path", (w) => (w.spec.targets[0].name = "../apps-rw"), /spec\.targets\[0\]\.name: .*must be a Kubernetes object name/],
  ["a namespace with capitals", (w) => (w.spec.targets[0].namespace = "Flux_System"), /spec\.targets\[0\]\.namespace: .*must be a namespace name/],
  [
    "a namespace of 64 characters",
    (w) => (w.spec.targets[0].namespace = "a".repeat(64)),
    /spec\.targets\[0\]\.namespace: Too long: may not be more than 63 bytes/,
  ],
  // Gates that cannot work.
  [
    "a gated source named like its upstream",
    (w) => void Object.assign(w.spec, { mode: "Gate", gate: { upstream: { kind: "GitRepository", name: "gitops" }, gatedName: "gitops" } }),
    /spec\.gate\.gatedName: .*must differ from upstream\.name/,
  ],
  [
    "a gate upstream of another kind",
    (w) => void Object.assign(w.spec, { mode: "Gate", gate: { upstream: { kind: "Bucket", name: "gitops" }, gatedName: "gated" } }),
    /spec\.gate\.upstream\.kind: Unsupported value: "Bucket": supported values: "GitRepository", "OCIRepository"/,
  ],
  ["a gate without upstream", (w) => void Object.assign(w.spec, { mode: "Gate", gate: { gatedName: "gated" } }), /spec\.gate\.upstream: Required value/],
  [
    "a gatedName that is not a name",
    (w) => void Object.assign(w.spec, { mode: "Gate", gate: { upstream: { kind: "GitRepository", name: "gitops" }, gatedName: "Gitops Gated" } }),
    /spec\.gate\.gatedName: .*must be a Kubernetes object name/,
  ],
  // Label selectors the API server would refuse for its own objects.
  [
    "In without values",
    (w) => (w.spec.targets[1].labelSelector = { matchExpressions: [{ key: "tier", operator: "In" }] }),
    /spec\.targets\[1\]\.labelSelector\.matchExpressions\[0\]\.values: .*In and NotIn need values; Exists and DoesNotExist take none/,
  ],
  [
    "Exists with values",
    (w) => (w.spec.targets[1].labelSelector = { matchExpressions: [{ key: "tier", operator: "Exists", values: ["web"] }] }),
    /matchExpressions\[0\]\.values: .*In and NotIn need values; Exists and DoesNotExist take none/,
  ],
  [
    "an unknown operator",
    (w) => (w.spec.targets[1].labelSelector = { matchExpressions: [{ key: "tier", operator: "Equals", values: ["web"] }] }),
    /matchExpressions\[0\]\.operator: Unsupported value: "Equals"/,
  ],
  [
    "a label key with spaces",
    (w) => (w.spec.targets[1].labelSelector = { matchLabels: { "fluxgate type": "window" } }),
    /spec\.targets\[1\]\.labelSelector\.matchLabels: .*keys must be label keys/,
  ],
  [
    "a label value with a slash",
    (w) => (w.spec.targets[1].labelSelector = { matchLabels: { "fluxgate.io/type": "window/rw" } }),
    /spec\.targets\[1\]\.labelSelector\.matchLabels\[fluxgate\.io\/type\]: .*must be a label value/,
  ],
  [
    "33 labels",
    (w) => (w.spec.targets[1].labelSelector = { matchLabels: Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`l${i}`, "x"])) }),
    /spec\.targets\[1\]\.labelSelector\.matchLabels: Too many: 33: must have at most 32 items/,
  ],
  // Recurrence rules (RFC 5545): what CEL can see of them.
  [
    "BYSECOND in a recurrence",
    (w) => (w.spec.schedules[1] = { recurrence: "FREQ=DAILY;BYSECOND=30", at: "22:00", duration: "2h" }),
    /spec\.schedules\[1\]\.recurrence: .*BYSECOND is not allowed: a window is at minute precision/,
  ],
  [
    "FREQ=SECONDLY in a freeze",
    (w) => (w.spec.freezes[0] = { recurrence: "freq=secondly", at: "00:00", duration: "24h" }),
    /spec\.freezes\[0\]\.recurrence: .*FREQ=SECONDLY is not allowed: a window is at minute precision/,
  ],
  [
    "a recurrence without FREQ",
    (w) => (w.spec.schedules[1] = { recurrence: "BYDAY=MO", at: "22:00", duration: "2h" }),
    /spec\.schedules\[1\]\.recurrence: .*FREQ is required/,
  ],
  [
    "a recurrence that is not NAME=VALUE parts",
    (w) => (w.spec.schedules[1] = { recurrence: "every monday", at: "22:00", duration: "2h" }),
    /spec\.schedules\[1\]\.recurrence: .*must be an RFC 5545 recurrence rule/,
  ],
  [
    "a rule that never occurs (31 February)",
    (w) => (w.spec.schedules[1] = { recurrence: "FREQ=MONTHLY;BYMONTHDAY=31;BYMONTH=2", at: "02:00", duration: "4h" }),
    /spec\.schedules\[1\]\.recurrence: .*never occurs: no day of any year matches all of its parts \(e\.g\. BYMONTH=2 with BYMONTHDAY=30\)/,
  ],
  [
    "a rule that never occurs (30 February, counted from the month's end)",
    (w) => (w.spec.freezes[0] = { recurrence: "FREQ=YEARLY;BYMONTH=02;BYMONTHDAY=30,-31", at: "00:00", duration: "24h" }),
    /spec\.freezes\[0\]\.recurrence: .*never occurs: no day of any year matches all of its parts/,
  ],
  [
    "a rule that never occurs (31 April, June, September and November)",
    (w) => (w.spec.schedules[1] = { recurrence: "freq=yearly;bymonth=4,6,9,11;bymonthday=31", at: "02:00", duration: "4h" }),
    /spec\.schedules\[1\]\.recurrence: .*never occurs: no day of any year matches all of its parts/,
  ],
  [
    "a recurrence without at",
    (w) => (w.spec.schedules[1] = { recurrence: "FREQ=DAILY", duration: "2h" }),
    /spec\.schedules\[1\]\.at: .*is required with recurrence/,
  ],
  [
    "a recurrence without a length",
    (w) => (w.spec.schedules[1] = { recurrence: "FREQ=DAILY", at: "22:00" }),
    /spec\.schedules\[1\]: .*needs a duration \(e\.g\. "4h"\) or an endAt time of day/,
  ],
  [
    "a recurrence with endAt and duration",
    (w) => (w.spec.freezes[0] = { recurrence: "FREQ=DAILY", at: "00:00", endAt: "06:00", duration: "6h" }),
    /spec\.freezes\[0\]: .*has both endAt and duration: give exactly one/,
  ],
  [
    "a recurrence with a cron start",
    (w) => (w.spec.schedules[1] = { recurrence: "FREQ=DAILY", start: "0 22 * * *", at: "22:00", duration: "2h" }),
    /spec\.schedules\[1\]: .*mixes a cron schedule \(start, end\) with a recurrence/,
  ],
  ["at without a recurrence", (w) => (w.spec.schedules[1].at = "22:00"), /spec\.schedules\[1\]\.at: .*is only used with recurrence/],
  [
    "a schedule with neither start nor recurrence",
    (w) => (w.spec.schedules[1] = { duration: "2h" }),
    /spec\.schedules\[1\]\.start: .*is required: a cron expression/,
  ],
  [
    "an at of 24:00",
    (w) => (w.spec.schedules[1] = { recurrence: "FREQ=DAILY", at: "24:00", duration: "2h" }),
    /spec\.schedules\[1\]\.at: .*must be a time of day such as "02:00"/,
  ],
  [
    "a dtstart with a time",
    (w) => (w.spec.schedules[1] = { recurrence: "FREQ=DAILY", at: "22:00", duration: "2h", dtstart: "2026-01-06T22:00" }),
    /spec\.schedules\[1\]\.dtstart: .*(must be a date such as "2026-01-06"|Too long)/,
  ],
  [
    "an exdate in words",
    (w) => (w.spec.schedules[1] = { recurrence: "FREQ=DAILY", at: "22:00", duration: "2h", exdates: ["christmas"] }),
    /spec\.schedules\[1\]\.exdates\[0\]: .*must be a date such as "2026-12-13"/,
  ],
  [
    "a holiday freeze with a lower-case country",
    (w) => (w.spec.freezes[0] = { holidays: { country: "de" } }),
    /spec\.freezes\[0\]\.holidays\.country: .*must be an ISO 3166-1 alpha-2 country code in capitals/,
  ],
  [
    "a holiday freeze with both country and fromClusterLabels",
    (w) => (w.spec.freezes[0] = { holidays: { country: "DE", fromClusterLabels: { country: "country" } } }),
    /spec\.freezes\[0\]\.holidays: .*needs country \(a code such as "DE"\) or fromClusterLabels, not both/,
  ],
  [
    "a holiday freeze with a duration",
    (w) => (w.spec.freezes[0] = { holidays: { country: "DE" }, duration: "24h" }),
    /spec\.freezes\[0\]: .*mixes a holiday freeze with another kind/,
  ],
  [
    "a holiday type that does not exist",
    (w) => (w.spec.freezes[0] = { holidays: { country: "DE", types: ["national"] } }),
    /spec\.freezes\[0\]\.holidays\.types\[0\]: Unsupported value: "national"/,
  ],
  [
    "9 match expressions",
    (w) => (w.spec.targets[1].labelSelector = { matchExpressions: Array.from({ length: 9 }, (_, i) => ({ key: `l${i}`, operator: "Exists" })) }),
    /matchExpressions: Too many: 9: must have at most 8 items/,
  ],
];

const malformedOverrides: [string, Mutation, RegExp][] = [
  ["until in words", (o) => (o.spec.until = "tomorrow"), /spec\.until: .*must be an RFC 3339 date-time with a zone, e\.g\. "2026-12-01T18:00:00Z"/],
  ["until without a zone", (o) => (o.spec.until = "2026-11-27T18:00:00"), /spec\.until: .*must be an RFC 3339 date-time with a zone/],
  ["no until", (o) => delete o.spec.until, /spec\.until: Required value/],
  ["an unknown action", (o) => (o.spec.action = "Close"), /spec\.action: Unsupported value: "Close": supported values: "Open", "Freeze"/],
  ["no reason", (o) => delete o.spec.reason, /spec\.reason: Required value/],
  ["an empty reason", (o) => (o.spec.reason = ""), /spec\.reason: .*at least 1 chars long/],
  ["no windowRef", (o) => delete o.spec.windowRef, /spec\.windowRef: .*give exactly one of windowRef and windowSelector/],
  ["both windowRef and windowSelector", (o) => (o.spec.windowSelector = {}), /spec\.windowRef: .*give exactly one of windowRef and windowSelector/],
  [
    "a clusterSelector with an unknown operator",
    (o) => (o.spec.clusterSelector = { matchExpressions: [{ key: "ring", operator: "Near", values: ["prod"] }] }),
    /spec\.clusterSelector\.matchExpressions\[0\]\.operator: Unsupported value: "Near"/,
  ],
  ["an empty window name", (o) => (o.spec.windowRef.name = ""), /spec\.windowRef\.name: .*at least 1 chars long/],
  ["until on February 31st", (o) => (o.spec.until = "2026-02-31T18:00:00Z"), /spec\.until: .*is not a real date-time: that day does not exist in that month/],
  ["until at hour 24", (o) => (o.spec.until = "2026-11-27T24:00:00Z"), /spec\.until: .*must be an RFC 3339 date-time with a zone/],
  ["until with an offset of +24:00", (o) => (o.spec.until = "2026-11-27T18:00:00+24:00"), /spec\.until: .*must be an RFC 3339 date-time with a zone/],
  ["a window name that is a path", (o) => (o.spec.windowRef.name = "../weekday-changes"), /spec\.windowRef\.name: .*must be a Kubernetes object name/],
  ["a window in another namespace", (o) => (o.spec.windowRef.namespace = "other"), /unknown field "spec\.windowRef\.namespace"/],
  ["a reason of 1025 characters", (o) => (o.spec.reason = "r".repeat(1025)), /spec\.reason: Too long: may not be more than 1024 bytes/],
];

const kinds = [
  { article: "a window", kind: "reconciliationwindow", resource: windows, cases: malformedWindows, check: (o: object) => validateWindow(o, NOW) },
  { article: "an override", kind: "windowoverride", resource: overrides, cases: malformedOverrides, check: (o: object) => parseWith(WindowOverrideSchema, o) },
] as const;

for (const { article, kind, resource, cases, check } of kinds) {
  for (const [name, mutate, expected] of cases) {
    test(`${article} with ${name} is refused by the API server and by the schema`, async () => {
      const cp = await cluster();
      const namespace = await freshNamespace(cp, "malformed");
      const object = sample(kind);
      object.metadata.namespace = namespace;
      mutate(object);
      assert.throws(() => check(object), ValidationError, "the zod schema refuses it too");
      const refused = await refusal(cp.kubeConfig, resource, namespace, object);
      assert.ok(refused !== undefined, "the API server admitted it");
      assert.ok([400, 422].includes(refused.code), `status ${refused.code}`);
      assert.match(refused.message, expected);
    });
  }
}

test("a window with two invalid freezes: the API server and validateWindow both name each freeze's field at once", async () => {
  const cp = await cluster();
  const namespace = await freshNamespace(cp, "malformed");
  const object = sample("reconciliationwindow");
  object.metadata.namespace = namespace;
  object.spec.freezes[0] = { from: "2026-12-20T00:00", to: "2026-12-01T00:00", reason: "first" };
  object.spec.freezes[1] = { start: "0 0 * * FRI", duration: "0s", reason: "second" };
  const refused = await refusal(cp.kubeConfig, windows, namespace, object);
  assert.ok(refused !== undefined, "the API server admitted it");
  assert.match(refused.message, /spec\.freezes\[0\]\.to: .*must be after from/);
  assert.match(refused.message, /spec\.freezes\[1\]\.duration: .*is zero/);
  try {
    validateWindow(object, NOW);
    assert.fail("validateWindow admitted it");
  } catch (e) {
    assert.ok(e instanceof ValidationError, String(e));
    assert.deepEqual(
      e.problems.map((p) => p.path),
      ["spec.freezes[0].to", "spec.freezes[1].duration"],
    );
  }
});

test("recurrence entries the engine accepts are admitted, in schedules and freezes", async () => {
  const cp = await cluster();
  const namespace = await freshNamespace(cp, "recurrence");
  const entries = [
    { recurrence: "FREQ=MONTHLY;BYDAY=2SU", at: "02:00", endAt: "06:00" },
    {
      recurrence: "RRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=TU;WKST=SU",
      at: "09:00",
      duration: "8h",
      dtstart: "2026-01-06",
      exdates: ["2026-03-31", "2026-04-14T09:00"],
    },
    { recurrence: "freq=monthly;byday=-1fr;until=20271231T235959Z", at: "18:00", duration: "3h" },
    // Near the rules admission refuses, but possible: 29 February (leap years), 30 of a 30-day month, 31 in a list with a long month, a 12th month.
    { recurrence: "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29", at: "02:00", duration: "4h" },
    { recurrence: "FREQ=YEARLY;BYMONTH=4;BYMONTHDAY=30,31", at: "02:00", duration: "4h" },
    { recurrence: "FREQ=MONTHLY;BYMONTH=4,12;BYMONTHDAY=31", at: "02:00", duration: "4h" },
    { recurrence: "FREQ=YEARLY;BYMONTH=12;BYMONTHDAY=30", at: "02:00", duration: "4h" },
  ];
  for (const [i, entry] of entries.entries()) {
    const window = sample("reconciliationwindow");
    window.metadata = { ...window.metadata, name: `recurrence-${i}`, namespace };
    window.spec.schedules[1] = entry;
    window.spec.freezes[0] = { ...entry, reason: "maintenance" };
    validateWindow(window, NOW);
    assert.equal(await refusal(cp.kubeConfig, windows, namespace, window), undefined, JSON.stringify(entry));
  }
});

test("holiday freezes of a known shape are admitted; an unknown country is the controller's to refuse, naming the field", async () => {
  const cp = await cluster();
  const namespace = await freshNamespace(cp, "holidays");
  const entries = [
    { holidays: { country: "DE", subdivision: "BY" }, reason: "Public holiday" },
    { holidays: { country: "US", types: ["public", "observance"] } },
    { holidays: { fromClusterLabels: { country: "country", subdivision: "fluxgate.io/subdivision" } } },
    { holidays: { country: "XX" } },
  ];
  for (const [i, entry] of entries.entries()) {
    const window = sample("reconciliationwindow");
    window.metadata = { ...window.metadata, name: `holidays-${i}`, namespace };
    window.spec.freezes[0] = entry;
    assert.equal(await refusal(cp.kubeConfig, windows, namespace, window), undefined, JSON.stringify(entry));
  }
  const unknown = sample("reconciliationwindow");
  unknown.spec.freezes[0] = entries[3];
  assert.throws(() => validateWindow(unknown, NOW), /spec\.freezes\[0\]\.holidays\.country: unknown country "XX"/);
  validateWindow({ ...unknown, spec: { ...unknown.spec, freezes: [entries[0]] } }, NOW);
});

test("the API server fills in the same defaults as the accessors", async () => {
  const cp = await cluster();
  const namespace = await freshNamespace(cp, "defaults");
  const custom = cp.kubeConfig.makeApiClient(CustomObjectsApi);
  const minimal = {
    apiVersion: "fluxgate.io/v1alpha1",
    kind: "ReconciliationWindow",
    metadata: { name: "minimal", namespace },
    spec: { targets: [{ kind: "Kustomization", name: "apps" }] },
  };
  const created = (await custom.createNamespacedCustomObject({ ...windows, namespace, body: minimal })) as Record<string, any>;
  assert.deepEqual(created.spec, {
    targets: [{ kind: "Kustomization", name: "apps" }],
    timeZone: "UTC",
    mode: "Suspend",
    closeGracePeriod: "5m",
    onRevert: "Hold",
  });
  const fromServer = validateWindow(created, NOW).window.spec;
  const unset = validateWindow(minimal, NOW).window.spec;
  assert.equal(timeZoneOf(fromServer), timeZoneOf(unset));
  assert.equal(modeOf(fromServer), modeOf(unset));
  assert.equal(closeGracePeriodOf(fromServer), closeGracePeriodOf(unset));
  assert.equal(onRevertOf(fromServer), onRevertOf(unset));
});

test("status is a subresource, and kubectl's table shows the printer columns", async () => {
  const cp = await cluster();
  const namespace = await freshNamespace(cp, "columns");
  const custom = cp.kubeConfig.makeApiClient(CustomObjectsApi);
  const window = sample("reconciliationwindow");
  window.metadata.namespace = namespace;
  window.status = { state: "Open" };
  const created = (await custom.createNamespacedCustomObject({ ...windows, namespace, body: window })) as Record<string, any>;
  assert.equal(created.status, undefined, "a create does not write status");

  const status = {
    state: "Closed",
    reason: "Outside every schedule",
    nextTransition: "2026-11-23T07:00:00Z",
    targets: { matched: 3, open: 0, closed: 3, pending: 1, conflicts: 0 },
    pending: [
      {
        kind: "Kustomization",
        namespace,
        name: "apps-rw",
        appliedRevision: "main@sha1:aaa",
        pendingRevision: "main@sha1:bbb",
        waitingSince: "2026-11-22T09:00:00Z",
      },
    ],
    conditions: [{ type: "Ready", status: "True", lastTransitionTime: "2026-11-22T09:00:00Z", reason: "Reconciled", message: "3 targets closed" }],
  };
  await custom.replaceNamespacedCustomObjectStatus({ ...windows, namespace, name: "weekday-changes", body: { ...created, status } });

  const windowTable = await table(cp.kubeConfig, `/apis/fluxgate.io/v1alpha1/namespaces/${namespace}/reconciliationwindows`);
  const names = windowTable.columnDefinitions.map((c) => c.name);
  assert.deepEqual(names, ["Name", "State", "Next", "Targets", "Pending", "Age", "Reason"]);
  assert.equal(windowTable.columnDefinitions.find((c) => c.name === "Reason")?.priority, 1, "REASON only with -o wide");
  const [row] = windowTable.rows;
  assert.deepEqual(row?.cells.slice(0, 5), ["weekday-changes", "Closed", "2026-11-23T07:00:00Z", 3, 1]);
  assert.equal(row?.cells[6], "Outside every schedule");

  const override = sample("windowoverride");
  override.metadata.namespace = namespace;
  const createdOverride = (await custom.createNamespacedCustomObject({ ...overrides, namespace, body: override })) as Record<string, any>;
  await custom.replaceNamespacedCustomObjectStatus({
    ...overrides,
    namespace,
    name: override.metadata.name,
    body: { ...createdOverride, status: { phase: "Active", startedAt: "2026-11-22T10:00:00Z" } },
  });
  const overrideTable = await table(cp.kubeConfig, `/apis/fluxgate.io/v1alpha1/namespaces/${namespace}/windowoverrides`);
  assert.deepEqual(
    overrideTable.columnDefinitions.map((c) => c.name),
    ["Name", "Window", "Action", "Until", "Phase", "Age", "Reason"],
  );
  assert.deepEqual(overrideTable.rows[0]?.cells.slice(0, 5), ["hotfix-payment-timeout", "weekday-changes", "Open", "2026-11-27T18:00:00Z", "Active"]);
});

test("a status the controller could not have written is refused too", async () => {
  const cp = await cluster();
  const namespace = await freshNamespace(cp, "bad-status");
  const custom = cp.kubeConfig.makeApiClient(CustomObjectsApi);
  const window = sample("reconciliationwindow");
  window.metadata.namespace = namespace;
  const created = (await custom.createNamespacedCustomObject({ ...windows, namespace, body: window })) as Record<string, any>;
  const writeStatus = async (status: object): Promise<string> => {
    try {
      await custom.replaceNamespacedCustomObjectStatus({ ...windows, namespace, name: "weekday-changes", body: { ...created, status } });
      return "";
    } catch (err) {
      assert.ok(err instanceof ApiException, String(err));
      return (JSON.parse(String((err as ApiException<unknown>).body)) as { message: string }).message;
    }
  };
  assert.match(await writeStatus({ state: "Shut" }), /status\.state: Unsupported value: "Shut"/);
  const tooMany = Array.from({ length: 51 }, (_, i) => ({ kind: "Kustomization", namespace, name: `t${i}`, pendingRevision: "main@sha1:bbb" }));
  assert.match(await writeStatus({ state: "Closed", pending: tooMany }), /status\.pending: Too many: 51: must have at most 50 items/);
  assert.match(await writeStatus({ state: "Closed", targets: { matched: 1 } }), /status\.targets\.open: Required value/);
});
