// The plan of `fluxgate split`: an application cut into one variant per type, and the kustomizations that use it re-pointed (pure).
//
// Variants are siblings of the application (apps/podinfo → apps/podinfo-rt, apps/podinfo-rw), so
// every relative path that leaves the application's directory stays valid in a variant; files
// inside it move with the objects, patches and generators that use them.

import { posix } from "node:path";
import type { FileChange } from "./changes.ts";
import { RepositoryInputError } from "./errors.ts";
import { KUSTOMIZATION_FILES, join2 } from "./files.ts";
import { TYPE_LABEL, variantDir } from "./layout.ts";
import { field, isJson, refOf, str } from "./objects.ts";
import { documentTargets, editList, joinDocuments, listItems, RawItem, splitDocuments, type DocChunk } from "./yaml-edit.ts";

/** How objects are given a type: `--type rt=ConfigMap,Secret` (kinds) or `--type rt=config/*.yaml` (files). */
export interface TypeRule {
  type: string;
  kinds: string[];
  files: string[];
}

/** Parses one `--type NAME=KIND,KIND,FILE-GLOB` flag. */
export function parseTypeRule(text: string): TypeRule {
  const m = /^([a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)=(.+)$/.exec(text);
  if (m === null) throw new RepositoryInputError(`--type ${text}: give TYPE=KIND,... or TYPE=FILE-GLOB,..., e.g. rt=ConfigMap,Secret or rw=deployment.yaml`);
  const items = (m[3] as string)
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  const isFile = (s: string): boolean => /[/.*?]/.test(s);
  return { type: m[1] as string, kinds: items.filter((s) => !isFile(s)), files: items.filter(isFile) };
}

/** What split needs to know about the repository, read by the caller. */
export interface SplitInput {
  /** The application directory (repository path). */
  app: string;
  /** The types in the order variants are listed. */
  types: readonly string[];
  rules: readonly TypeRule[];
  /** Type of objects no rule and no label assigns; absent: such objects are an error. */
  fallback: string | undefined;
  /** Current text of every file split may read: the app's files and every kustomization file of the repository. */
  texts: ReadonlyMap<string, string | null>;
  /** Kustomization files whose references to the app may be rewritten (those of the selected clusters). */
  rewritable: ReadonlySet<string>;
  /** Entry directories by cluster and type: `typedEntries.get(dir)` = {cluster, type}; `entryOf(cluster, type)` = dir. */
  typedEntries: ReadonlyMap<string, { cluster: string; type: string }>;
  /**
   * Whether the Kustomization of type `a` is applied before that of type `b` (`b` depends on `a`)
   * on the clusters; absent: no type is known to come before another.
   */
  appliedBefore?: ((a: string, b: string) => boolean) | undefined;
}

export interface SplitPlan {
  changes: FileChange[];
  /** The variants made: type → directory. */
  variants: Map<string, string>;
  /** One line per referencing kustomization rewritten, and what stays. */
  notes: string[];
}

interface Unit {
  file: string;
  chunk: DocChunk;
  type: string;
  kind: string;
  name: string;
  /** What gave it its type. */
  by: "label" | "file" | "kind" | "default";
  /** Its namespace once built ("" for a cluster-scoped kind), and its API group. */
  namespace: string;
  group: string;
}

const REMOTE = /^[a-z][a-z0-9+.-]*:\/\/|^(github\.com|gitlab\.com|bitbucket\.org)\/|\?ref=|^git@/i;

/** Splits the application. Throws a RepositoryInputError when an object has no type or a resource cannot be split. */
export function planSplit(input: SplitInput): SplitPlan {
  const { app, texts } = input;
  const read = (p: string): string | null => texts.get(p) ?? null;
  const kfile = KUSTOMIZATION_FILES.map((n) => join2(app, n)).find((p) => read(p) !== null);
  if (kfile === undefined) throw new RepositoryInputError(`${app}: has no kustomization.yaml; split works on a kustomize directory`);
  const ktext = read(kfile) as string;
  const kvalue = splitDocuments(ktext, kfile)[0]?.value;
  if (!isJson(kvalue)) throw new RepositoryInputError(`${kfile}: is not a kustomization`);
  for (const t of [...input.rules.map((r) => r.type), ...(input.fallback === undefined ? [] : [input.fallback])]) {
    if (!input.types.includes(t)) throw new RepositoryInputError(`--type ${t}: not a type of this repository (${input.types.join(", ")})`);
  }

  // An application that builds on another kustomization cannot be cut by file: name it precisely.
  const bases = listItems(ktext, "bases", kfile)
    .map((i) => i.value)
    .filter((v): v is string => typeof v === "string");
  if (bases.length > 0)
    throw new RepositoryInputError(
      `${kfile}: bases ${bases.join(", ")} cannot be split by file, since each variant would include all of it; split ${join2(app, bases[0] as string)} first, or list its files in resources`,
    );

  // The kustomization's `namespace:` puts every namespaced object there.
  const appNamespace = str(kvalue.namespace);

  // 1. Every object of every resource file gets a type.
  const units: Unit[] = [];
  const resourceFiles: string[] = [];
  const unassigned: string[] = [];
  for (const item of listItems(ktext, "resources", kfile)) {
    const r = item.value;
    if (typeof r !== "string") continue;
    const path = join2(app, r);
    if (REMOTE.test(r)) throw new RepositoryInputError(`${kfile}: resource ${r} is remote; split works on local files`);
    const text = read(path);
    if (text === null)
      throw new RepositoryInputError(`${kfile}: resource ${r} is a directory or missing; split works on the files of one kustomization (split ${path} first)`);
    resourceFiles.push(path);
    for (const chunk of splitDocuments(text, path)) {
      if (!isJson(chunk.value)) continue;
      const kind = str(chunk.value.kind) ?? "";
      const name = str(field(chunk.value, "metadata", "name")) ?? "";
      const label = str(field(chunk.value, "metadata", "labels", TYPE_LABEL));
      const rel = path.slice(app.length + 1);
      const byFile = input.rules.find((rule) => rule.files.some((g) => posix.matchesGlob(rel, g)));
      const byKind = input.rules.find((rule) => rule.kinds.includes(kind));
      const type = label ?? byFile?.type ?? byKind?.type ?? input.fallback;
      if (label !== undefined && !input.types.includes(label))
        throw new RepositoryInputError(`${path}: ${kind} ${name} has ${TYPE_LABEL}: ${label}, not a type of this repository (${input.types.join(", ")})`);
      const ref = refOf(chunk.value, appNamespace ?? "default");
      const namespace = ref === null || ref.namespace === "" ? "" : (appNamespace ?? ref.namespace);
      const by = label !== undefined ? "label" : byFile !== undefined ? "file" : byKind !== undefined ? "kind" : "default";
      if (type === undefined) unassigned.push(`${kind} ${name} (${path})`);
      else units.push({ file: path, chunk, type, kind, name, by, namespace, group: ref?.group ?? "" });
    }
  }
  if (unassigned.length > 0) {
    throw new RepositoryInputError(`no type for ${unassigned.join(", ")}: add its kind or file to a --type, label it ${TYPE_LABEL}, or give --default TYPE`);
  }
  const notes: string[] = [];
  placePrerequisites(units, input, kvalue, appNamespace, notes);
  const types = input.types.filter((t) => units.some((u) => u.type === t));
  if (types.length < 2) throw new RepositoryInputError(`every object of ${app} is of type ${types[0] ?? "?"}: nothing to split`);
  const generated = (kind: string): string | undefined =>
    input.rules.find((r) => r.kinds.includes(kind))?.type ?? units.find((u) => u.kind === kind)?.type ?? input.fallback;

  // 2. The variants.
  const changes = new Map<string, string | null>();
  const variants = new Map<string, string>();
  const inApp = (p: string): boolean => p.startsWith(`${app}/`);
  for (const t of types) {
    const dir = variantDir(app, t);
    variants.set(t, dir);
    if (KUSTOMIZATION_FILES.some((n) => read(join2(dir, n)) !== null))
      throw new RepositoryInputError(`${dir} exists already: remove it or rename the application`);
    const mine = units.filter((u) => u.type === t);
    const files = resourceFiles.filter((f) => mine.some((u) => u.file === f));
    for (const f of files) {
      const chunks = splitDocuments(read(f) as string, f);
      const kept = chunks.filter((c) => !isJson(c.value) || mine.some((u) => u.file === f && u.chunk.start === c.start));
      const all = chunks.every((c) => !isJson(c.value) || mine.some((u) => u.file === f && u.chunk.start === c.start));
      changes.set(join2(dir, f.slice(app.length + 1)), all ? read(f) : joinDocuments(kept.filter((c) => isJson(c.value) || c.start === 0)));
    }
    const objectIn = (kind: string | undefined, name: string | undefined): boolean =>
      mine.some((u) => (kind === undefined || u.kind === kind) && (name === undefined || u.name === name));
    const patchTypes = (body: string | null | undefined, target: unknown): "mine" | "other" | "all" => {
      const kind = str(field(target, "kind"));
      const name = str(field(target, "name"));
      if (kind !== undefined || name !== undefined) return objectIn(kind, name) ? "mine" : "other";
      if (body === null || body === undefined) return "all";
      const targets = documentTargets(body);
      if (targets.length === 0) return "all";
      return targets.some((x) => objectIn(x.kind, x.name)) ? "mine" : "other";
    };
    let k = editList(ktext, "resources", kfile, (v) =>
      typeof v === "string" && !files.includes(join2(app, v)) && resourceFiles.includes(join2(app, v)) ? [] : "keep",
    );
    const used: string[] = [];
    k = editList(
      k,
      "patches",
      kfile,
      (v) => {
        const path = str(field(v, "path"));
        const verdict = patchTypes(path === undefined ? str(field(v, "patch")) : read(join2(app, path)), field(v, "target"));
        if (verdict !== "other" && path !== undefined) used.push(join2(app, path));
        return verdict === "other" ? [] : "keep";
      },
      [],
      { dropEmpty: true },
    );
    k = editList(
      k,
      "patchesStrategicMerge",
      kfile,
      (v) => {
        if (typeof v !== "string") return "keep";
        const isFile = !v.includes("\n") && read(join2(app, v)) !== null;
        const verdict = patchTypes(isFile ? read(join2(app, v)) : v, undefined);
        if (verdict !== "other" && isFile) used.push(join2(app, v));
        return verdict === "other" ? [] : "keep";
      },
      [],
      { dropEmpty: true },
    );
    k = editList(
      k,
      "patchesJson6902",
      kfile,
      (v) => {
        const path = str(field(v, "path"));
        const verdict = patchTypes(undefined, field(v, "target"));
        if (verdict !== "other" && path !== undefined) used.push(join2(app, path));
        return verdict === "other" ? [] : "keep";
      },
      [],
      { dropEmpty: true },
    );
    for (const gen of ["configMapGenerator", "secretGenerator"] as const) {
      const kind = gen === "configMapGenerator" ? "ConfigMap" : "Secret";
      k = editList(
        k,
        gen,
        kfile,
        (v) => {
          if (generated(kind) !== t) return [];
          for (const f of [
            ...arr(field(v, "files")).map((x) => (x.includes("=") ? x.slice(x.indexOf("=") + 1) : x)),
            ...arr(field(v, "envs")),
            ...(str(field(v, "env")) === undefined ? [] : [str(field(v, "env")) as string]),
          ])
            used.push(join2(app, f));
          return "keep";
        },
        [],
        { dropEmpty: true },
      );
    }
    for (const key of ["components", "crds", "configurations", "transformers", "generators", "validators"]) {
      for (const item of listItems(k, key, kfile)) if (typeof item.value === "string") used.push(join2(app, item.value));
    }
    for (const f of used) if (inApp(f) && read(f) !== null) changes.set(join2(dir, f.slice(app.length + 1)), read(f));
    changes.set(join2(dir, kfile.slice(app.length + 1)), k);
  }

  // 3. Kustomizations that use the app point at the variants.
  const kustomizations = [...texts.keys()].filter(
    (p) =>
      KUSTOMIZATION_FILES.some((n) => p === n || p.endsWith(`/${n}`)) && !p.startsWith(`${app}/`) && !types.some((t) => p.startsWith(`${variantDir(app, t)}/`)),
  );
  const current = (p: string): string | null => (changes.has(p) ? (changes.get(p) as string | null) : read(p));
  let remaining = 0;
  const appends = new Map<string, string[]>();
  const moved = new Map<string, RawItem[]>();
  for (const ref of kustomizations) {
    const text = current(ref);
    if (text === null) continue;
    const dir = ref.split("/").slice(0, -1).join("/");
    const rel = (p: string): string => relativePath(dir, p);
    const points = (v: unknown): boolean => typeof v === "string" && !REMOTE.test(v) && join2(dir, v) === app;
    const refers = ["resources", "bases", "components"].some((key) => listItems(text, key, ref).some((i) => points(i.value)));
    if (!refers) continue;
    if (!input.rewritable.has(ref)) {
      remaining++;
      continue;
    }
    const typed = input.typedEntries.get(dir);
    let edited = text;
    if (typed === undefined || !types.includes(typed.type)) {
      for (const key of ["resources", "bases"])
        edited = editList(edited, key, ref, (v) => (points(v) ? types.map((t) => rel(variants.get(t) as string)) : "keep"));
      notes.push(
        `${ref}: now lists ${types.map((t) => rel(variants.get(t) as string)).join(" and ")}${typed === undefined ? " (not an entry directory of a type; move each variant to the entry of its type)" : ""}`,
      );
    } else {
      for (const key of ["resources", "bases"]) edited = editList(edited, key, ref, (v) => (points(v) ? [rel(variants.get(typed.type) as string)] : "keep"));
      notes.push(`${ref}: now lists ${rel(variants.get(typed.type) as string)}`);
      for (const t of types) {
        if (t === typed.type) continue;
        const other = [...input.typedEntries.entries()].find(([, e]) => e.cluster === typed.cluster && e.type === t)?.[0];
        if (other === undefined)
          throw new RepositoryInputError(
            `${ref}: cluster ${typed.cluster} has no entry directory of type ${t} for ${variants.get(t) ?? ""}: run fluxgate init --cluster ${typed.cluster} first`,
          );
        const otherFile = KUSTOMIZATION_FILES.map((n) => join2(other, n)).find((p) => current(p) !== null);
        if (otherFile === undefined) throw new RepositoryInputError(`${other}: has no kustomization.yaml`);
        appends.set(otherFile, [...(appends.get(otherFile) ?? []), relativePath(other, variants.get(t) as string)]);
        // The cluster's patches of objects that moved to type t move with them.
        const hit = (x: { kind?: string | undefined; name?: string | undefined }, type: string): boolean =>
          units.some((u) => u.type === type && (x.kind === undefined || u.kind === x.kind) && (x.name === undefined || u.name === x.name));
        let count = 0;
        for (const key of ["patches", "patchesStrategicMerge"] as const) {
          const items = listItems(edited, key, ref);
          const fileOf = (v: unknown): string | undefined =>
            key === "patches" ? str(field(v, "path")) : typeof v === "string" && !v.includes("\n") && read(join2(dir, v)) !== null ? v : undefined;
          const leaving = items.filter((i) => {
            const kind = key === "patches" ? str(field(i.value, "target", "kind")) : undefined;
            const name = key === "patches" ? str(field(i.value, "target", "name")) : undefined;
            const path = fileOf(i.value);
            const body = path !== undefined ? read(join2(dir, path)) : key === "patches" ? str(field(i.value, "patch")) : str(i.value);
            const targets = kind !== undefined || name !== undefined ? [{ kind, name }] : documentTargets(body ?? "");
            return targets.length > 0 && targets.every((x) => hit(x, t) && !hit(x, typed.type));
          });
          if (leaving.length === 0) continue;
          for (const i of leaving) {
            const path = fileOf(i.value);
            if (path !== undefined) {
              changes.set(join2(other, path), read(join2(dir, path)));
              changes.set(join2(dir, path), null);
            }
            const target = `${otherFile}\0${key}`;
            moved.set(target, [...(moved.get(target) ?? []), RawItem.of(edited, i, ref)]);
          }
          edited = editList(edited, key, ref, (_v, index) => (leaving.some((l) => l === items[index]) ? [] : "keep"), [], { dropEmpty: true });
          count += leaving.length;
        }
        if (count > 0) notes.push(`${ref}: ${count} patch${count === 1 ? "" : "es"} moved to ${otherFile}`);
      }
    }
    changes.set(ref, edited);
  }
  for (const [file, add] of appends) {
    let text = current(file) as string;
    const have = new Set(listItems(text, "resources", file).map((i) => i.value));
    text = editList(
      text,
      "resources",
      file,
      () => "keep",
      add.filter((a) => !have.has(a)),
    );
    for (const key of ["patches", "patchesStrategicMerge"]) {
      const patches = moved.get(`${file}\0${key}`) ?? [];
      if (patches.length > 0) text = editList(text, key, file, () => "keep", patches);
    }
    changes.set(file, text);
    notes.push(`${file}: now lists ${add.join(", ")}`);
  }

  // 4. The application itself goes, unless a cluster that is not being split still uses it.
  if (remaining === 0) {
    const appFiles = [...texts.keys()].filter((p) => p.startsWith(`${app}/`) && read(p) !== null);
    for (const f of appFiles) if (!changes.has(f)) changes.set(f, null);
  } else {
    notes.push(`${app} stays: ${remaining} kustomization${remaining === 1 ? "" : "s"} of clusters not given with --cluster still use it`);
  }
  return {
    changes: [...changes.entries()].map(([path, after]) => ({ path, before: read(path), after })),
    variants,
    notes,
  };
}

const PREREQUISITE_KINDS = new Set(["Namespace", "CustomResourceDefinition"]);

/**
 * Puts each Namespace and CRD of the application where every object that needs it finds it on a
 * new cluster: in the objects' own type, or in one whose Kustomization is applied before theirs.
 * One that `--default` placed after an object that needs it moves (with a note); one that a label,
 * a file rule or a kind rule placed there is refused, with the type it needs.
 */
function placePrerequisites(units: Unit[], input: SplitInput, kvalue: Record<string, unknown>, appNamespace: string | undefined, notes: string[]): void {
  const before = input.appliedBefore;
  if (before === undefined) return;
  // Objects the generators make are of the generators' type, in the kustomization's namespace.
  const generated = (["configMapGenerator", "secretGenerator"] as const).flatMap((key) =>
    Array.isArray(kvalue[key]) && kvalue[key].length > 0
      ? [{ kind: key === "configMapGenerator" ? "ConfigMap" : "Secret", namespace: appNamespace ?? "default" }]
      : [],
  );
  for (const p of units.filter((u) => PREREQUISITE_KINDS.has(u.kind) && u.group === (u.kind === "Namespace" ? "" : "apiextensions.k8s.io"))) {
    const crd =
      p.kind === "CustomResourceDefinition"
        ? { group: str(field(p.chunk.value, "spec", "group")), kind: str(field(p.chunk.value, "spec", "names", "kind")) }
        : null;
    const needs = (u: { kind: string; namespace: string; group?: string }): boolean =>
      crd === null ? u.namespace === p.name && u.namespace !== "" : u.kind === crd.kind && u.group === crd.group;
    const needers = units.filter((u) => u !== p && needs(u));
    const needTypes = [
      ...new Set([
        ...needers.map((u) => u.type),
        ...generated
          .filter((g) => needs({ ...g, group: "" }))
          .map((g) => input.rules.find((r) => r.kinds.includes(g.kind))?.type ?? input.fallback)
          .filter((t): t is string => t !== undefined),
      ]),
    ];
    // Types whose Kustomization comes before this one's: their objects would find nothing.
    const fits = (t: string): boolean => needTypes.every((x) => x === t || before(t, x));
    if (fits(p.type)) continue;
    const target = input.types.filter(fits).sort((a, b) => Number(needTypes.includes(b)) - Number(needTypes.includes(a)))[0];
    const what = `${p.kind} ${p.name} (${p.file})`;
    const holds = crd === null ? "is in it" : "is of its kind";
    // Types whose Kustomization comes before this one's: their objects would find nothing, and this one would wait for them.
    const early = needTypes.filter((t) => t !== p.type && before(t, p.type));
    if (early.length === 0) {
      // Only types in no order with it: a new cluster heals once it has run (check warns). A type that --default chose moves where none waits.
      const apart = needTypes.find((t) => t !== p.type && !before(p.type, t)) as string;
      const first = needers.find((u) => u.type === apart);
      if (p.by === "default" && target !== undefined) {
        notes.push(
          `${what}: type ${target}, not ${p.type} (--default), since ${first === undefined ? "objects" : `${first.kind} ${first.name}`} of type ${apart} ${holds}, and the Kustomizations of types ${apart} and ${p.type} are in no order: on a new cluster the first would fail until the second had run`,
        );
        p.type = target;
      }
      continue;
    }
    const first = needers.find((u) => u.type === early[0]);
    const why = `${first === undefined ? "objects" : `${first.kind} ${first.name}`} of type ${early[0] as string} ${holds}, and the Kustomization of type ${early[0] as string} is applied before that of type ${p.type} (which depends on it): on a new cluster the first would fail and the second would wait for it for ever`;
    if (p.by !== "default" || target === undefined) {
      const how =
        p.by === "label"
          ? `its label ${TYPE_LABEL} gives it type ${p.type}`
          : p.by === "file"
            ? `its file's --type rule gives it type ${p.type}`
            : p.by === "kind"
              ? `--type ${p.type}=${p.kind} gives it type ${p.type}`
              : `--default ${p.type} gives it type ${p.type}`;
      throw new RepositoryInputError(
        `${what}: ${how}, but ${why}; ${target === undefined ? `no type is applied before all of ${needTypes.join(", ")}: give the objects in it one type` : `give it type ${target}`}`,
      );
    }
    notes.push(`${what}: type ${target}, not ${p.type} (--default), since ${why}`);
    p.type = target;
  }
}

function arr(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}

/** `to` relative to the directory `from`, both repository paths. */
export function relativePath(from: string, to: string): string {
  const a = from === "" ? [] : from.split("/");
  const b = to === "" ? [] : to.split("/");
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return [...a.slice(i).map(() => ".."), ...b.slice(i)].join("/") || ".";
}
