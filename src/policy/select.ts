// Which windows select which Flux objects: by kind, namespace, and a name or a Kubernetes label selector.

import { fluxKindOf } from "../api/kinds.ts";

/** A Kubernetes label selector (matchLabels and matchExpressions). */
export interface LabelSelector {
  matchLabels?: Readonly<Record<string, string>> | undefined;
  matchExpressions?: ReadonlyArray<{ key: string; operator: string; values?: readonly string[] | undefined }> | undefined;
}

/** One entry of a window's `spec.targets`. */
export interface TargetSelector {
  kind: string;
  name?: string | undefined;
  /** Defaults to the window's namespace. */
  namespace?: string | undefined;
  labelSelector?: LabelSelector | undefined;
}

/** A Flux object as selection sees it. `group`, when known, must be the kind's Flux group (a `Kustomization` of kustomize itself is not one). */
export interface TargetIdentity {
  kind: string;
  namespace: string;
  name: string;
  labels: Readonly<Record<string, string>>;
  group?: string | undefined;
}

const OPERATORS = ["In", "NotIn", "Exists", "DoesNotExist"] as const;

/**
 * A label selector that cannot be read: the API server refuses it, so a valid window never has
 * one. Thrown rather than guessed, since either guess (matches all, matches none) would govern
 * objects nobody meant.
 */
export class SelectorError extends Error {
  readonly path: string;

  constructor(path: string, message: string) {
    super(`${path}: ${message}`);
    this.name = "SelectorError";
    this.path = path;
  }
}

/** Why the selector cannot be read, or null when it can. Paths are relative to the selector (`matchExpressions[0].operator`). */
export function selectorProblem(selector: LabelSelector): SelectorError | null {
  for (const [i, e] of (selector.matchExpressions ?? []).entries()) {
    const path = `matchExpressions[${i}]`;
    if (!(OPERATORS as readonly string[]).includes(e.operator)) {
      return new SelectorError(`${path}.operator`, `"${e.operator}" is not a label selector operator: use one of ${OPERATORS.join(", ")}`);
    }
    const values = e.values ?? [];
    if ((e.operator === "In" || e.operator === "NotIn") && values.length === 0)
      return new SelectorError(`${path}.values`, `must not be empty with operator ${e.operator}`);
    if ((e.operator === "Exists" || e.operator === "DoesNotExist") && values.length > 0)
      return new SelectorError(`${path}.values`, `must be empty with operator ${e.operator}`);
  }
  return null;
}

/**
 * True when `labels` satisfy the selector (Kubernetes semantics; an empty selector matches
 * everything). Throws a SelectorError for a selector the API server would refuse.
 *
 * @example matchesSelector({ matchLabels: { "fluxgate.io/type": "rw" } }, { "fluxgate.io/type": "rw" }) // true
 */
export function matchesSelector(selector: LabelSelector, labels: Readonly<Record<string, string>>): boolean {
  // Called for every window a target meets, at every reconcile and watch event of a transition: no arrays made per call.
  const expressions = selector.matchExpressions;
  if (expressions !== undefined && expressions.length > 0) {
    const problem = selectorProblem(selector);
    if (problem !== null) throw problem;
  }
  const matchLabels = selector.matchLabels;
  if (matchLabels !== undefined) for (const k in matchLabels) if (Object.hasOwn(matchLabels, k) && labels[k] !== matchLabels[k]) return false;
  for (const e of expressions ?? []) {
    const has = Object.hasOwn(labels, e.key);
    const inValues = has && (e.values ?? []).includes(labels[e.key] as string);
    const ok = e.operator === "In" ? inValues : e.operator === "NotIn" ? !inValues : e.operator === "Exists" ? has : !has;
    if (!ok) return false;
  }
  return true;
}

/** True when one entry of `spec.targets` selects the object; an entry with neither a name nor a selector selects nothing. */
export function entrySelects(windowNamespace: string, t: TargetSelector, obj: TargetIdentity): boolean {
  if (t.kind !== obj.kind || (t.namespace ?? windowNamespace) !== obj.namespace) return false;
  const group = fluxKindOf(t.kind)?.group;
  if (obj.group !== undefined && group !== undefined && obj.group !== group) return false;
  if (t.name !== undefined) return t.name === obj.name;
  return t.labelSelector !== undefined && matchesSelector(t.labelSelector, obj.labels);
}

/** True when one of the window's targets selects the object. */
export function selects(windowNamespace: string, targets: readonly TargetSelector[], obj: TargetIdentity): boolean {
  return targets.some((t) => entrySelects(windowNamespace, t, obj));
}

/** `kind/namespace/name`, the key of a target or source. */
export function objectKey(kind: string, namespace: string, name: string): string {
  return `${kind}/${namespace}/${name}`;
}

/** The parts of a Kubernetes object selection reads. */
export interface ObjectLike {
  kind?: string | undefined;
  metadata?: { namespace?: string | undefined; name?: string | undefined; labels?: Readonly<Record<string, string>> | undefined } | undefined;
}

/** A Kubernetes object as selection sees it. */
export function identityOf(obj: ObjectLike): TargetIdentity {
  return { kind: obj.kind ?? "", namespace: obj.metadata?.namespace ?? "", name: obj.metadata?.name ?? "", labels: obj.metadata?.labels ?? {} };
}

/**
 * Reads `spec.targets` from a window that may not be valid, as far as it can be read, so that an
 * invalid window still protects the targets it names from being changed. An entry whose label
 * selector cannot be read (see SelectorError) selects nothing: the window's own validation says why.
 */
export function rawTargets(spec: unknown): TargetSelector[] {
  const targets = (spec as { targets?: unknown } | undefined)?.targets;
  if (!Array.isArray(targets)) return [];
  return targets.flatMap((t): TargetSelector[] => {
    if (typeof t !== "object" || t === null) return [];
    const r = t as { kind?: unknown; name?: unknown; namespace?: unknown; labelSelector?: unknown };
    if (typeof r.kind !== "string") return [];
    const selector = readSelector(r.labelSelector);
    if (selector === null) return [];
    return [
      {
        kind: r.kind,
        ...(typeof r.name === "string" ? { name: r.name } : {}),
        ...(typeof r.namespace === "string" ? { namespace: r.namespace } : {}),
        ...(selector === undefined ? {} : { labelSelector: selector }),
      },
    ];
  });
}

/** A label selector read from unchecked input: undefined when absent, null when it cannot be read. */
function readSelector(value: unknown): LabelSelector | undefined | null {
  if (value === undefined) return undefined;
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const v = value as { matchLabels?: unknown; matchExpressions?: unknown };
  const matchLabels: Record<string, string> = {};
  if (v.matchLabels !== undefined) {
    if (typeof v.matchLabels !== "object" || v.matchLabels === null) return null;
    for (const [k, l] of Object.entries(v.matchLabels)) {
      if (typeof l !== "string") return null;
      matchLabels[k] = l;
    }
  }
  const matchExpressions: { key: string; operator: string; values?: string[] }[] = [];
  if (v.matchExpressions !== undefined) {
    if (!Array.isArray(v.matchExpressions)) return null;
    for (const e of v.matchExpressions as unknown[]) {
      const x = e as { key?: unknown; operator?: unknown; values?: unknown } | null;
      if (typeof x?.key !== "string" || typeof x.operator !== "string") return null;
      if (x.values !== undefined && !(Array.isArray(x.values) && x.values.every((s) => typeof s === "string"))) return null;
      matchExpressions.push({ key: x.key, operator: x.operator, ...(x.values === undefined ? {} : { values: x.values }) });
    }
  }
  const selector: LabelSelector = { matchLabels, matchExpressions };
  return selectorProblem(selector) === null ? selector : null;
}

/**
 * The candidate closest to a name that was not found, for "did you mean …?": at most a third of
 * the name's length apart (at least 2 edits), ties to the first; undefined when none is that close.
 *
 * @example closestName("apps-rww", ["apps-rt", "apps-rw"]) // → "apps-rw"
 */
export function closestName(name: string, candidates: Iterable<string>): string | undefined {
  const limit = Math.max(2, Math.floor(name.length / 3));
  let best: { name: string; distance: number } | undefined;
  for (const c of candidates) {
    const d = editDistance(name, c);
    if (d <= limit && (best === undefined || d < best.distance)) best = { name: c, distance: d };
  }
  return best?.name;
}

/** Levenshtein distance: insertions, deletions and substitutions of one character each count one. */
function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next.push(Math.min((row[j] ?? 0) + 1, (next[j - 1] ?? 0) + 1, (row[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1)));
    row = next;
  }
  return row[b.length] ?? 0;
}
