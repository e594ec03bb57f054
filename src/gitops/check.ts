// The rules of `fluxgate check`: pure functions from a rendered cluster to findings.

import { display, field, refKey, str, type ObjectRef } from "./objects.ts";
import { kustomizationId, objectsByKey, type RenderedCluster, type RenderedKustomization, type RenderedObject } from "./render.ts";
import { kustomizationName, TYPE_LABEL, type RepositoryFile } from "./layout.ts";
import { ScheduleError } from "../schedule/index.ts";
import { cronJobRuns, cronJobSchedule, firstTie, type LegacyJob } from "./proof.ts";
import { fluxObjects, governance, governors, selects, type Governor } from "./windows.ts";
import { latePrerequisites, latePrerequisiteText } from "./prerequisites.ts";

export type Severity = "error" | "warning";

/** Every rule, in the order they are documented. */
export const RULES = {
  "duplicate-object": { severity: "error", summary: "One object is rendered by two Kustomizations of a cluster." },
  "suspend-in-git": { severity: "error", summary: "A Flux object that a window governs declares spec.suspend in Git." },
  "window-in-window": { severity: "error", summary: "A window is applied by a Kustomization that a window governs." },
  "cross-type-reference": { severity: "warning", summary: "An object references a ConfigMap, Secret, Service, PVC or ServiceAccount of another type." },
  "prerequisite-applied-later": {
    severity: "error",
    summary:
      "An object's Namespace or CRD is applied only by Kustomizations that run after the object's own (they depend on it): on a new cluster neither ever applies.",
  },
  "prerequisite-unordered": {
    severity: "warning",
    summary: "An object's Namespace or CRD is applied only by Kustomizations in no order with the object's own: on a new cluster it fails until they have run.",
  },
  "unmatched-target": { severity: "warning", summary: "A window targets a Flux object that the cluster does not have." },
  "ungoverned-window-type": { severity: "warning", summary: "A Kustomization of a window type is governed by no window." },
  "invalid-schedule": { severity: "error", summary: "A window is not valid: its schedule, zone or another field." },
  "mode-conflict": { severity: "error", summary: "A Flux object is governed by windows of different modes, or by a window and a CronJob." },
  "pinned-ref-in-git": { severity: "error", summary: "The gated source of a Gate window is declared (and pinned) in Git." },
  "source-not-gated": { severity: "error", summary: "A Kustomization that a Gate window governs takes its artifact from another source than the gated one." },
  "cronjob-window": { severity: "warning", summary: "A CronJob suspends or resumes Flux objects: a legacy window; fluxgate migrate replaces it." },
  "cronjob-window-ambiguous": {
    severity: "warning",
    summary: "Two CronJobs resume and suspend the same Flux object at the same instant: which runs last is not defined.",
  },
  "cronjob-window-never-runs": {
    severity: "warning",
    summary: "A CronJob that would suspend or resume Flux objects has spec.suspend: true: a legacy window that never runs.",
  },
  "kustomize-build-failed": { severity: "error", summary: "kustomize could not build a Kustomization's path." },
  "fleet-patch-not-applied": {
    severity: "error",
    summary:
      "A cluster's patch of a window (of a fleet window, typically) no longer applies: its windows folder does not build, or the window it targets is not there.",
  },
  "fleet-window-unselected": { severity: "warning", summary: "A cluster includes a fleet window whose selector its labels no longer match." },
  "fleet-window-not-included": { severity: "warning", summary: "A cluster whose labels match a fleet window's selector does not include it." },
  "fleet-folder-not-included": {
    severity: "error",
    summary: "A cluster's windows/kustomization.yaml does not include the fleet folder (fleet/) once: it runs no fleet window and no fleet freeze.",
  },
  "cluster-identity-missing": {
    severity: "error",
    summary:
      "A cluster of a repository with the fleet folder renders no identity (ConfigMap flux-system/fluxgate-cluster): its controller opens by no fleet window and honours every fleet freeze.",
  },
  "cluster-identity-mismatch": {
    severity: "error",
    summary:
      "A cluster's identity (ConfigMap flux-system/fluxgate-cluster) is not valid, or its name or labels disagree with fluxgate.yaml: its controller matches fleet windows and freezes by what the identity says.",
  },
} as const satisfies Record<string, { severity: Severity; summary: string }>;

export type RuleId = keyof typeof RULES;

/** One problem found in a cluster. */
export interface Finding {
  rule: RuleId;
  severity: Severity;
  cluster: string;
  /** Repository path of the file to change. */
  file: string;
  /** The object concerned, as `Kind namespace/name`. */
  object: string;
  message: string;
}

function finding(rule: RuleId, cluster: RenderedCluster, file: string | null, object: string, message: string): Finding {
  return { rule, severity: RULES[rule].severity, cluster: cluster.name, file: file ?? cluster.path, object, message };
}

function kustomizationDisplay(k: RenderedKustomization): string {
  return `Kustomization ${kustomizationId(k)}`;
}

function governorName(g: Governor): string {
  return g.kind === "CronJob" ? `CronJob ${g.object.ref.namespace}/${g.object.ref.name}` : `window ${g.object.ref.namespace}/${g.object.ref.name}`;
}

/** `a`, `a and b`, `a, b and c`. */
function inWords(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} and ${items[items.length - 1] as string}`;
}

/** Who governs, with the verb that agrees: `window ns/a governs`, `windows ns/a and ns/b govern`, `window ns/a and CronJob ns/c govern`. */
function governedBy(gs: readonly Governor[]): string {
  if (gs.length === 1) return `${governorName(gs[0] as Governor)} governs`;
  const kinds = new Set(gs.map((g) => g.kind === "CronJob"));
  if (kinds.size > 1) return `${inWords(gs.map(governorName))} govern`;
  return `${gs[0]?.kind === "CronJob" ? "CronJobs" : "windows"} ${inWords(gs.map((g) => `${g.object.ref.namespace}/${g.object.ref.name}`))} govern`;
}

function kustomizationRef(k: RenderedKustomization): ObjectRef {
  return { group: "kustomize.toolkit.fluxcd.io", kind: "Kustomization", namespace: k.namespace, name: k.name };
}

/** ` and the schedule "…"` of a CronJob, for messages. */
function scheduleNote(g: Governor): string {
  const schedule = str(field(g.object.body, "spec", "schedule"));
  return schedule === undefined ? "" : ` (schedule "${schedule}")`;
}

/** Kinds a pod template may reference by name, and where. */
function podReferences(body: unknown): Array<{ kind: string; name: string }> {
  const kind = str(field(body, "kind"));
  const pod =
    kind === "Pod"
      ? field(body, "spec")
      : kind === "CronJob"
        ? field(body, "spec", "jobTemplate", "spec", "template", "spec")
        : field(body, "spec", "template", "spec");
  const out: Array<{ kind: string; name: string }> = [];
  const add = (k: string, n: unknown): void => {
    if (typeof n === "string" && n !== "") out.push({ kind: k, name: n });
  };
  if (pod === undefined) return out;
  add("ServiceAccount", field(pod, "serviceAccountName"));
  for (const s of arr(field(pod, "imagePullSecrets"))) add("Secret", field(s, "name"));
  for (const v of arr(field(pod, "volumes"))) {
    add("ConfigMap", field(v, "configMap", "name"));
    add("Secret", field(v, "secret", "secretName"));
    add("PersistentVolumeClaim", field(v, "persistentVolumeClaim", "claimName"));
    for (const p of arr(field(v, "projected", "sources"))) {
      add("ConfigMap", field(p, "configMap", "name"));
      add("Secret", field(p, "secret", "name"));
    }
  }
  for (const c of [...arr(field(pod, "containers")), ...arr(field(pod, "initContainers"))]) {
    for (const e of arr(field(c, "envFrom"))) {
      add("ConfigMap", field(e, "configMapRef", "name"));
      add("Secret", field(e, "secretRef", "name"));
    }
    for (const e of arr(field(c, "env"))) {
      add("ConfigMap", field(e, "valueFrom", "configMapKeyRef", "name"));
      add("Secret", field(e, "valueFrom", "secretKeyRef", "name"));
    }
  }
  return out;
}

/** Services an Ingress routes to, and ServiceAccounts a RoleBinding binds. */
function otherReferences(body: unknown): Array<{ kind: string; name: string }> {
  const kind = str(field(body, "kind"));
  const out: Array<{ kind: string; name: string }> = [];
  if (kind === "Ingress") {
    const service = field(body, "spec", "defaultBackend", "service", "name");
    if (typeof service === "string") out.push({ kind: "Service", name: service });
    for (const r of arr(field(body, "spec", "rules"))) {
      for (const p of arr(field(r, "http", "paths"))) {
        const name = field(p, "backend", "service", "name");
        if (typeof name === "string") out.push({ kind: "Service", name });
      }
    }
    for (const t of arr(field(body, "spec", "tls"))) {
      const name = field(t, "secretName");
      if (typeof name === "string") out.push({ kind: "Secret", name });
    }
  }
  return out;
}

function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

/**
 * Checks one rendered cluster. `repository` (fluxgate.yaml) names the types; without it, types
 * are told apart by the windows that govern them. `now` validates windows.
 */
export function checkCluster(cluster: RenderedCluster, repository: RepositoryFile | null, now: number): Finding[] {
  const out: Finding[] = [];
  const objects = objectsByKey(cluster);
  const flux = fluxObjects(cluster);
  // The cluster's labels in fluxgate.yaml, for a holiday freeze that takes its country from them.
  const entry = repository?.clusters.find((c) => c.name === cluster.name);
  const windows = governors(cluster, now, entry === undefined ? undefined : { name: entry.name, labels: entry.labels ?? {} });
  const governed = governance(flux, windows);

  for (const k of cluster.kustomizations) {
    if (k.error !== null)
      out.push(finding("kustomize-build-failed", cluster, k.file ?? k.path, kustomizationDisplay(k), `cannot build ./${k.path}: ${k.error}`));
  }

  for (const list of objects.values()) {
    const by = [...new Set(list.map((l) => kustomizationId(l.by)))];
    if (by.length < 2) continue;
    const first = list[0] as { object: RenderedObject; by: RenderedKustomization };
    out.push(
      finding(
        "duplicate-object",
        cluster,
        list.find((l) => l.object.file !== null)?.object.file ?? null,
        display(first.object.ref),
        `${display(first.object.ref)} is rendered by ${by.length} Kustomizations (${by.join(", ")}); each one applies and prunes it, so they fight over it: keep it in one`,
      ),
    );
  }

  for (const o of flux) {
    const by = governed.get(refKey(o.ref));
    if (by === undefined || o.object === null) continue;
    const suspend = field(o.object.body, "spec", "suspend");
    if (suspend !== undefined) {
      out.push(
        finding(
          "suspend-in-git",
          cluster,
          o.object.file,
          display(o.ref),
          `${display(o.ref)} declares spec.suspend: ${JSON.stringify(suspend)} in Git, and ${governedBy(by)} it: ${o.by === null ? "its parent" : `Kustomization ${kustomizationId(o.by)}`} re-applies the value and undoes the window; remove the field`,
        ),
      );
    }
    const modes = [...new Set(by.map((g) => g.mode))];
    if (modes.length > 1) {
      out.push(
        finding(
          "mode-conflict",
          cluster,
          by.find((g) => g.object.file !== null)?.object.file ?? o.object.file,
          display(o.ref),
          `${display(o.ref)} is governed by ${by.map((g) => `${governorName(g)} (${g.mode === "CronJob" ? "suspend/resume jobs" : `mode ${g.mode}`})`).join(" and ")}: they would fight over it; govern it by windows of one mode`,
        ),
      );
    }
  }

  for (const w of windows) {
    const name = governorName(w);
    // A CronJob that never runs governs nothing: this is the one thing to say about it.
    if (w.suspended) {
      const verbs = [...new Set(w.actions.map((a) => a.command))].join("; ");
      out.push(
        finding(
          "cronjob-window-never-runs",
          cluster,
          w.object.file,
          display(w.object.ref),
          `${name} would run "${verbs}", but it has spec.suspend: true${scheduleNote(w)}: it never runs, so it opens and closes nothing (a cluster overlay that forgot its schedule patch?); set its schedule and spec.suspend: false, or remove it`,
        ),
      );
      continue;
    }
    const applier = governed.get(refKey(kustomizationRef(w.by)));
    if (applier !== undefined) {
      const own = applier.includes(w);
      out.push(
        finding(
          "window-in-window",
          cluster,
          w.object.file,
          display(w.object.ref),
          `${name} is applied by Kustomization ${kustomizationId(w.by)}, which ${own ? "this window itself governs" : governedBy(applier)}: edits to its schedule wait for a window; apply windows from a real-time Kustomization`,
        ),
      );
    }
    for (const s of w.selections) {
      if (flux.some((o) => selects(s, o))) continue;
      const what = s.name !== null ? `${s.kind} ${s.namespace}/${s.name}` : `any ${s.kind} in ${s.namespace} matching its label selector`;
      out.push(finding("unmatched-target", cluster, w.object.file, display(w.object.ref), `${name} targets ${what}, which the cluster does not have`));
    }
    for (const p of w.problems) out.push(finding("invalid-schedule", cluster, w.object.file, display(w.object.ref), `${name} is not valid: ${p}`));
    if (w.kind === "CronJob") {
      const verbs = [...new Set(w.actions.map((a) => a.command))].join("; ");
      out.push(
        finding(
          "cronjob-window",
          cluster,
          w.object.file,
          display(w.object.ref),
          `${name} runs "${verbs}": a CronJob window misses or repeats runs across DST changes and leaves targets stuck when a run fails; fluxgate migrate replaces it with a ReconciliationWindow`,
        ),
      );
    }
    if (w.mode === "Gate") {
      const kind = str(field(w.object.body, "spec", "gate", "upstream", "kind")) ?? "GitRepository";
      const gated = str(field(w.object.body, "spec", "gate", "gatedName"));
      for (const o of flux) {
        if (o.ref.kind !== "Kustomization" || o.object === null || gated === undefined || !w.selections.some((s) => selects(s, o))) continue;
        const refKind = str(field(o.object.body, "spec", "sourceRef", "kind"));
        const refName = str(field(o.object.body, "spec", "sourceRef", "name"));
        const refNamespace = str(field(o.object.body, "spec", "sourceRef", "namespace")) ?? o.ref.namespace;
        if (refKind === kind && refName === gated && refNamespace === w.object.ref.namespace) continue;
        out.push(
          finding(
            "source-not-gated",
            cluster,
            o.object.file,
            display(o.ref),
            `${display(o.ref)} is governed by ${name} (mode Gate) but its sourceRef is ${refKind ?? "?"}/${refName ?? "?"}: the gate holds nothing for it, and every revision goes out at once; set spec.sourceRef to ${kind}/${gated}`,
          ),
        );
      }
      const declared =
        gated === undefined ? undefined : objects.get(refKey({ group: "source.toolkit.fluxcd.io", kind, namespace: w.object.ref.namespace, name: gated }));
      for (const d of declared ?? []) {
        const ref = field(d.object.body, "spec", "ref");
        const pin = ["commit", "digest", "tag", "semver", "name"].find((f) => field(ref, f) !== undefined);
        out.push(
          finding(
            "pinned-ref-in-git",
            cluster,
            d.object.file,
            display(d.object.ref),
            `${display(d.object.ref)} is the gated source of ${name}${pin === undefined ? "" : `, and Git pins it (spec.ref.${pin})`}: fluxgate creates and pins it; Kustomization ${kustomizationId(d.by)} would re-apply Git's version and undo the gate; remove it from Git`,
          ),
        );
      }
    }
  }

  // Two CronJobs due at one instant start in no defined order: whether their target is left open is anyone's guess.
  const running = windows.filter((w) => w.kind === "CronJob" && !w.suspended);
  for (const close of running.filter((w) => w.actions.every((a) => a.action === "close"))) {
    for (const open of running.filter((w) => w.actions.every((a) => a.action === "open"))) {
      const shared = close.selections.filter((s) => open.selections.some((o) => JSON.stringify(o) === JSON.stringify(s)));
      if (shared.length === 0) continue;
      const timing = (g: Governor, action: "open" | "close"): LegacyJob | null => {
        const read = cronJobSchedule(str(field(g.object.body, "spec", "schedule")), str(field(g.object.body, "spec", "timeZone")));
        const job = { name: `${g.object.ref.namespace}/${g.object.ref.name}`, schedule: read.schedule, zone: read.zone ?? "UTC", action };
        try {
          cronJobRuns(job.schedule, job.zone, now, now + 1);
          return job;
        } catch (e) {
          if (e instanceof ScheduleError) return null; // a schedule CronJob refuses never runs at all
          throw e;
        }
      };
      const a = timing(open, "open");
      const b = timing(close, "close");
      const tie = a === null || b === null ? null : firstTie([a, b], now, now + 366 * 86_400_000);
      if (tie === null) continue;
      const what = shared.map((s) => (s.name === null ? `every ${s.kind} in ${s.namespace}` : `${s.kind} ${s.namespace}/${s.name}`)).join(", ");
      out.push(
        finding(
          "cronjob-window-ambiguous",
          cluster,
          close.object.file,
          display(close.object.ref),
          `${governorName(open)} resumes and ${governorName(close)} suspends ${what} at the same instant (first ${new Date(tie.at).toISOString().replace(".000Z", "Z")}): Kubernetes starts them in no defined order, so whether it is left open is ambiguous; give the jobs different times`,
        ),
      );
    }
  }

  // Types: a Kustomization's type is its fluxgate.io/type label, or its name apps-<type>.
  const typeName = (k: RenderedKustomization): string | null => {
    const label = k.body === null ? undefined : str(field(k.body, "metadata", "labels", TYPE_LABEL));
    if (label !== undefined) return label;
    const byName = repository?.types.find((t) => kustomizationName(t.name) === k.name);
    return byName?.name ?? null;
  };
  const timing = (k: RenderedKustomization): string => {
    const by = governed.get(refKey(kustomizationRef(k)));
    return by === undefined ? "real time" : by.map(governorName).sort().join(", ");
  };
  if (repository !== null) {
    for (const k of cluster.kustomizations) {
      const t = typeName(k);
      const type = repository.types.find((x) => x.name === t);
      if (type?.window === true && !governed.has(refKey(kustomizationRef(k)))) {
        out.push(
          finding(
            "ungoverned-window-type",
            cluster,
            k.file ?? k.path,
            kustomizationDisplay(k),
            `${kustomizationDisplay(k)} is of window type ${type.name}, but no window governs it: it applies every commit at once; add a window that targets it`,
          ),
        );
      }
    }
  }

  for (const list of objects.values()) {
    for (const { object, by } of list) {
      for (const r of [...podReferences(object.body), ...otherReferences(object.body)]) {
        // Every kind referenced here is in the core API group.
        const target = objects.get(refKey({ group: "", kind: r.kind, namespace: object.ref.namespace, name: r.name }));
        if (target === undefined) continue;
        const other = target.find((t) => timing(t.by) !== timing(by));
        if (other === undefined || target.some((t) => t.by === by)) continue;
        const label = (k: RenderedKustomization): string => {
          const t = typeName(k);
          return `${t === null ? "" : `type ${t}, `}Kustomization ${kustomizationId(k)}, ${timing(k) === "real time" ? "real time" : `governed by ${timing(k)}`}`;
        };
        out.push(
          finding(
            "cross-type-reference",
            cluster,
            object.file,
            display(object.ref),
            `${display(object.ref)} (${label(by)}) references ${display(other.object.ref)} (${label(other.by)}): a change to both reaches them at different times; keep them in one type`,
          ),
        );
      }
    }
  }

  for (const p of latePrerequisites(cluster)) {
    out.push(
      finding(
        p.order === "after" ? "prerequisite-applied-later" : "prerequisite-unordered",
        cluster,
        p.prerequisite.file ?? p.appliedBy.find((b) => b.file !== null)?.file ?? null,
        display(p.prerequisite.ref),
        latePrerequisiteText(p),
      ),
    );
  }

  return out.sort(compareFindings);
}

/** Findings in a stable order: cluster, file, rule, object, message. */
export function compareFindings(a: Finding, b: Finding): number {
  for (const k of ["cluster", "file", "rule", "object", "message"] as const) {
    if (a[k] < b[k]) return -1;
    if (a[k] > b[k]) return 1;
  }
  return 0;
}
