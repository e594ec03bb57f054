// What governs what in a rendered cluster: ReconciliationWindows and legacy CronJob windows, and the Flux objects they select.

import { InputError } from "../errors.ts";
import { API_VERSION, CLUSTER_IDENTITY_NAME, CLUSTER_IDENTITY_NAMESPACE, validateWindow } from "../api/index.ts";
import { FLUX_CLI_KIND_WORDS, fluxKindOf, kindOfResourceName } from "../api/kinds.ts";
import { entrySelects, fleetScope, rawTargets, readClusterIdentity, type LabelSelector } from "../policy/index.ts";
import type { ClusterContext } from "../schedule/index.ts";
import { field, isFluxObject, isJson, labelsOf, refKey, str, type Json, type ObjectRef } from "./objects.ts";
import type { RenderedCluster, RenderedKustomization, RenderedObject } from "./render.ts";

/** What a window selects, with its namespace resolved. */
export interface Selection {
  kind: string;
  namespace: string;
  /** One name, or null with a selector (an empty selector selects every object of the kind: `--all`). */
  name: string | null;
  labelSelector: LabelSelector | null;
}

/** A suspend or resume that a legacy CronJob runs. */
export interface LegacyAction {
  action: "open" | "close";
  target: Selection;
  /** The command as written, for messages. */
  command: string;
}

/** A ReconciliationWindow, or a CronJob that suspends or resumes Flux objects on a schedule. */
export interface Governor {
  kind: "ReconciliationWindow" | "CronJob";
  object: RenderedObject;
  /** The Kustomization that applies it. */
  by: RenderedKustomization;
  selections: Selection[];
  /** Suspend or Gate for a window; "CronJob" for a legacy window. */
  mode: "Suspend" | "Gate" | "CronJob";
  /** Why the window is invalid (`invalid-schedule`); empty when valid. */
  problems: string[];
  /** For a CronJob: what it runs. */
  actions: LegacyAction[];
  /** For a CronJob: `spec.suspend: true`, so it never runs and governs nothing. */
  suspended: boolean;
}

/** A Flux object of the cluster that a window may govern; roots not declared in Git have no body. */
export interface FluxObject {
  ref: ObjectRef;
  labels: Record<string, string>;
  object: RenderedObject | null;
  by: RenderedKustomization | null;
}

/** Every Flux object of the cluster: rendered ones, and the Kustomizations that are roots outside Git. */
export function fluxObjects(cluster: RenderedCluster): FluxObject[] {
  const out = new Map<string, FluxObject>();
  for (const k of cluster.kustomizations) {
    for (const o of k.objects) {
      if (isFluxObject(o.ref) && !out.has(refKey(o.ref))) out.set(refKey(o.ref), { ref: o.ref, labels: labelsOf(o.body), object: o, by: k });
    }
  }
  for (const k of cluster.kustomizations) {
    const ref: ObjectRef = { group: fluxKindOf("Kustomization")?.group ?? "", kind: "Kustomization", namespace: k.namespace, name: k.name };
    if (!out.has(refKey(ref))) out.set(refKey(ref), { ref, labels: k.body === null ? {} : labelsOf(k.body), object: null, by: null });
  }
  return [...out.values()];
}

/** True when the selection selects the object: the rule the controller applies (policy/select.ts). */
export function selects(s: Selection, o: { ref: ObjectRef; labels: Record<string, string> }): boolean {
  const entry = {
    kind: s.kind,
    namespace: s.namespace,
    ...(s.name !== null ? { name: s.name } : {}),
    ...(s.labelSelector !== null ? { labelSelector: s.labelSelector } : {}),
  };
  return entrySelects(s.namespace, entry, { kind: o.ref.kind, group: o.ref.group, namespace: o.ref.namespace, name: o.ref.name, labels: o.labels });
}

/** Every window and legacy CronJob window of the cluster. Windows are validated against `now`. */
export function governors(cluster: RenderedCluster, now: number, context?: ClusterContext): Governor[] {
  const out: Governor[] = [];
  // An object rendered by two Kustomizations (duplicate-object) is one window, not two.
  const seen = new Set<string>();
  // A fleet window (spec.clusterSelector) that the cluster's identity does not select governs nothing there, as on the cluster.
  const identity = readClusterIdentity(
    cluster.kustomizations
      .flatMap((k) => k.objects)
      .find((o) => o.ref.group === "" && o.ref.kind === "ConfigMap" && o.ref.name === CLUSTER_IDENTITY_NAME && o.ref.namespace === CLUSTER_IDENTITY_NAMESPACE)
      ?.body,
  );
  for (const k of cluster.kustomizations) {
    for (const o of k.objects) {
      if (seen.has(refKey(o.ref))) continue;
      seen.add(refKey(o.ref));
      const selector = field(o.body, "spec", "clusterSelector");
      if (o.ref.kind === "ReconciliationWindow" && isJson(selector) && fleetScope(selector, identity).kind === "not-selected") continue;
      if (o.ref.kind === "ReconciliationWindow" && o.ref.group === API_VERSION.split("/")[0]) out.push(windowGovernor(o, k, now, context));
      else if (o.ref.kind === "CronJob" && o.ref.group === "batch") {
        const actions = legacyActions(o.body, o.ref.namespace);
        const suspended = field(o.body, "spec", "suspend") === true;
        if (actions.length > 0)
          out.push({ kind: "CronJob", object: o, by: k, selections: actions.map((a) => a.target), mode: "CronJob", problems: [], actions, suspended });
      }
    }
  }
  return out;
}

/** `context`: the cluster of fluxgate.yaml it is checked for (a holiday freeze may take its country from the cluster's labels). */
function windowGovernor(o: RenderedObject, by: RenderedKustomization, now: number, context: ClusterContext | undefined): Governor {
  const problems: string[] = [];
  try {
    validateWindow(o.body, now, { cluster: context });
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    problems.push(...e.problems.map((p) => (p.path ? `${p.path}: ${p.message}` : p.message)));
  }
  // As the controller reads them, even from an invalid window: what it would protect.
  const selections: Selection[] = rawTargets(field(o.body, "spec")).map((t) => ({
    kind: t.kind,
    namespace: t.namespace ?? o.ref.namespace,
    name: t.name ?? null,
    labelSelector: t.name === undefined ? (t.labelSelector ?? null) : null,
  }));
  const mode = str(field(o.body, "spec", "mode")) === "Gate" ? "Gate" : "Suspend";
  return { kind: "ReconciliationWindow", object: o, by, selections, mode, problems, actions: [], suspended: false };
}

/** For each Flux object (by refKey), the windows that govern it; a suspended CronJob never runs, so it governs nothing. */
export function governance(objects: readonly FluxObject[], windows: readonly Governor[]): Map<string, Governor[]> {
  const out = new Map<string, Governor[]>();
  for (const o of objects) {
    const by = windows.filter((w) => !w.suspended && w.selections.some((s) => selects(s, o)));
    if (by.length > 0) out.set(refKey(o.ref), by);
  }
  return out;
}

/** Images whose entrypoint is the program CronJob windows run, so that `args` alone are its arguments. */
const ENTRYPOINTS: ReadonlyArray<[RegExp, string[]]> = [
  [/(^|\/)flux-cli(:|@|$)/, ["flux"]],
  [/(^|\/)kubectl(:|@|$)/, ["kubectl"]],
];

/** The suspends and resumes that a CronJob's containers run (`flux suspend|resume ...`, `kubectl patch ... suspend`). */
export function legacyActions(cronJob: Json, namespace: string): LegacyAction[] {
  const pod = field(cronJob, "spec", "jobTemplate", "spec", "template", "spec");
  const containers = [...arrayOf(field(pod, "initContainers")), ...arrayOf(field(pod, "containers"))];
  const out: LegacyAction[] = [];
  for (const c of containers) {
    const command = arrayOf(field(c, "command"));
    const args = arrayOf(field(c, "args"));
    // Without a command, the image's entrypoint runs the args: flux in flux-cli, kubectl in kubectl
    // images (args that name the program themselves are read as written).
    const known = command.length > 0 ? undefined : ENTRYPOINTS.find(([image]) => image.test(str(field(c, "image")) ?? ""))?.[1];
    const entrypoint = known === undefined || (typeof args[0] === "string" && args[0].split("/").pop() === known[0]) ? [] : known;
    const words = [...entrypoint, ...command, ...args].filter((w): w is string => typeof w === "string");
    const shell = words.findIndex((w, i) => w === "-c" && i > 0 && /(^|\/)(ba|da|a)?sh$/.test(words[0] ?? ""));
    const scripts = shell >= 0 ? words.slice(shell + 1, shell + 2) : [words.map(shellWord).join(" ")];
    for (const script of scripts) for (const command of commands(script)) out.push(...parseCommand(command, namespace));
  }
  return out;
}

function arrayOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** A word as a POSIX shell reads it back: as it is when it is safe, else in single quotes. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'"'"'`)}'`;
}

/** Simple commands of a shell script, each as words: split on newlines, `;`, `&&`, `||` and `|`. */
function commands(script: string): string[][] {
  const out: string[][] = [];
  let words: string[] = [];
  let word = "";
  let inWord = false;
  let q: string | null = null;
  const endWord = (): void => {
    if (inWord) words.push(word);
    word = "";
    inWord = false;
  };
  const endCommand = (): void => {
    endWord();
    if (words.length > 0) out.push(words);
    words = [];
  };
  for (let i = 0; i < script.length; i++) {
    const c = script[i] as string;
    if (q !== null) {
      if (c === q) q = null;
      else if (c === "\\" && q === '"' && i + 1 < script.length) word += script[++i];
      else word += c;
    } else if (c === "'" || c === '"') {
      q = c;
      inWord = true;
    } else if (c === "\\" && script[i + 1] === "\n") {
      i++;
    } else if (c === "\\" && i + 1 < script.length) {
      word += script[++i];
      inWord = true;
    } else if (c === "#" && !inWord) {
      while (i + 1 < script.length && script[i + 1] !== "\n") i++;
    } else if (c === "\n" || c === ";" || c === "|" || c === "&") {
      endCommand();
    } else if (/\s/.test(c)) {
      endWord();
    } else {
      word += c;
      inWord = true;
    }
  }
  endCommand();
  return out;
}

function flagValue(words: string[], i: number, names: readonly string[]): { value: string; skip: number } | null {
  const w = words[i] as string;
  for (const n of names) {
    if (w === n && i + 1 < words.length) return { value: words[i + 1] as string, skip: 1 };
    if (w.startsWith(`${n}=`)) return { value: w.slice(n.length + 1), skip: 0 };
  }
  return null;
}

function parseCommand(words: string[], defaultNamespace: string): LegacyAction[] {
  while (words.length > 0 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0] as string)) words = words.slice(1);
  if (words[0] === "exec") words = words.slice(1);
  const program = (words[0] ?? "").split("/").pop();
  const text = words.join(" ");
  if (program === "flux") return parseFlux(words.slice(1), defaultNamespace, text);
  if (program === "kubectl") return parseKubectlPatch(words.slice(1), defaultNamespace, text);
  return [];
}

function parseFlux(words: string[], defaultNamespace: string, text: string): LegacyAction[] {
  let namespace = defaultNamespace;
  let all = false;
  const rest: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const ns = flagValue(words, i, ["-n", "--namespace"]);
    if (ns !== null) {
      namespace = ns.value;
      i += ns.skip;
    } else if (words[i] === "--all" || words[i] === "-A" || words[i] === "--all-namespaces") {
      all = true;
    } else if ((words[i] as string).startsWith("-")) {
      // other flags (--context, --timeout=...): a separate value never looks like a name we need
      if (!(words[i] as string).includes("=") && ["--context", "--kubeconfig", "--timeout", "--label-selector", "-l"].includes(words[i] as string)) i++;
    } else rest.push(words[i] as string);
  }
  const verb = rest[0];
  if (verb !== "suspend" && verb !== "resume") return [];
  const kinds = FLUX_CLI_KIND_WORDS.find(([w]) => w.every((x, j) => rest[1 + j] === x));
  if (kinds === undefined) return [];
  const names = rest.slice(1 + kinds[0].length);
  const action = verb === "suspend" ? "close" : "open";
  const targets: Selection[] =
    all || names.length === 0
      ? [{ kind: kinds[1], namespace, name: null, labelSelector: {} }]
      : names.map((name) => ({ kind: kinds[1], namespace, name, labelSelector: null }));
  return targets.map((target) => ({ action, target, command: text }));
}

function parseKubectlPatch(words: string[], defaultNamespace: string, text: string): LegacyAction[] {
  let namespace = defaultNamespace;
  let patch: string | null = null;
  const rest: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const ns = flagValue(words, i, ["-n", "--namespace"]);
    const p = flagValue(words, i, ["-p", "--patch"]);
    if (ns !== null) {
      namespace = ns.value;
      i += ns.skip;
    } else if (p !== null) {
      patch = p.value;
      i += p.skip;
    } else if ((words[i] as string).startsWith("-")) {
      if (["--type", "--context", "--kubeconfig"].includes(words[i] as string)) i++;
    } else rest.push(words[i] as string);
  }
  if (rest[0] !== "patch" || patch === null) return [];
  const m = /"?suspend"?\s*:\s*(true|false)/.exec(patch) ?? /\/spec\/suspend"?[^}]*"?value"?\s*:\s*(true|false)/.exec(patch);
  if (m === null) return [];
  let resource = rest[1] ?? "";
  let names = rest.slice(2);
  if (resource.includes("/")) {
    names = [resource.slice(resource.indexOf("/") + 1)];
    resource = resource.slice(0, resource.indexOf("/"));
  }
  const kind = kindOfResourceName(resource.split(".")[0] ?? "");
  if (kind === undefined || names.length === 0) return [];
  const action = m[1] === "true" ? "close" : "open";
  return names.map((name) => ({ action, target: { kind, namespace, name, labelSelector: null }, command: text }));
}
