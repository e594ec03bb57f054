// The file changes of `fluxgate migrate --write`: new windows in, CronJobs with their RBAC and patches out (pure).

import type { FileChange } from "./changes.ts";
import { KUSTOMIZATION_FILES, join2 } from "./files.ts";
import { windowFile, windowsDir, windowsKustomizationFile, type ClusterEntry } from "./layout.ts";
import type { PlannedWindow } from "./migrate.ts";
import { field, isJson, refKey, str, type Json, type ObjectRef } from "./objects.ts";
import { kustomizationId, type RenderedCluster, type RenderedObject } from "./render.ts";
import { fluxObjects, selects } from "./windows.ts";
import { documentTargets, editList, joinDocuments, listItems, removeField, splitDocuments } from "./yaml-edit.ts";

export interface WritePlan {
  changes: FileChange[];
  /** What was left in place, and why (a file another cluster uses, a source not found). */
  notes: string[];
}

/**
 * Plans the edits: each window into `<cluster>/windows/` (listed in its kustomization.yaml), each
 * replaced CronJob removed from its file, with its ServiceAccount, RoleBindings and Roles when
 * nothing else uses them, and with the patches that target them. Files that another cluster also
 * renders (`shared`) are left as they are, with a note. `texts` holds the current content of every
 * file of the cluster (`inputs`) and of the windows directory.
 */
export function planMigrationWrite(
  cluster: RenderedCluster,
  entry: Pick<ClusterEntry, "path">,
  windows: readonly PlannedWindow[],
  texts: ReadonlyMap<string, string | null>,
  shared: ReadonlySet<string>,
): WritePlan {
  const notes: string[] = [];
  const after = new Map<string, string | null>();
  const read = (p: string): string | null => (after.has(p) ? (after.get(p) as string | null) : (texts.get(p) ?? null));
  const write = (p: string, text: string | null): void => {
    after.set(p, text);
  };
  const fake = { name: "", timeZone: "", path: entry.path };

  // 1. The windows.
  const listed: string[] = [];
  for (const w of windows) {
    const file = windowFile(fake, w.name);
    if (read(file) !== null) {
      notes.push(`${file} exists: window ${w.name} was not written; choose another name or remove it`);
      continue;
    }
    write(file, w.text);
    listed.push(`${w.name}.yaml`);
  }
  const wk = windowsKustomizationFile(fake);
  const wkText = read(wk);
  if (listed.length > 0) {
    if (wkText === null) {
      write(wk, ["apiVersion: kustomize.config.k8s.io/v1beta1", "kind: Kustomization", "resources:", ...listed.map((l) => `  - ${l}`), ""].join("\n"));
      const rootK = KUSTOMIZATION_FILES.map((n) => join2(entry.path, n)).find((p) => read(p) !== null);
      if (rootK !== undefined) {
        const have = listItems(read(rootK) as string, "resources", rootK).some(
          (i) => typeof i.value === "string" && join2(entry.path, i.value) === windowsDir(fake),
        );
        if (!have)
          write(
            rootK,
            editList(read(rootK) as string, "resources", rootK, () => "keep", ["windows"]),
          );
      }
    } else {
      write(
        wk,
        editList(wkText, "resources", wk, () => "keep", listed),
      );
    }
  }

  // 2. The targets' spec.suspend in Git: the window owns the field now, and a value in Git
  // would be re-applied by the Kustomization that applies the target, undoing the window.
  const flux = fluxObjects(cluster);
  const unsuspend = new Map<string, RenderedObject>();
  for (const w of windows) {
    for (const o of flux) {
      if (o.object === null || field(o.object.body, "spec", "suspend") === undefined) continue;
      if (w.replaces.some((g) => g.selections.some((sel) => selects(sel, o)))) unsuspend.set(refKey(o.ref), o.object);
    }
  }
  for (const o of unsuspend.values()) {
    const what = `${o.ref.kind} ${o.ref.namespace}/${o.ref.name}`;
    const text = o.file === null ? null : read(o.file);
    if (o.file === null || text === null)
      notes.push(`${what} declares spec.suspend in Git, and kustomize did not say which file it comes from; remove the field by hand`);
    else if (shared.has(o.file))
      notes.push(
        `${o.file}: another cluster uses it too, so ${what} keeps its spec.suspend there; remove the field by hand once the other clusters are migrated`,
      );
    else {
      const edited = removeField(text, o.file, o.ref.kind, o.ref.name, ["spec", "suspend"]);
      if (edited === null)
        notes.push(`${o.file}: could not remove spec.suspend of ${what} (written as a flow mapping, or renamed by a prefix or suffix?); remove it by hand`);
      else write(o.file, edited);
    }
  }

  // 3. What goes: the CronJobs, then RBAC that nothing else uses.
  const all = cluster.kustomizations.flatMap((k) => k.objects);
  const removed = new Map<string, RenderedObject>();
  for (const w of windows) for (const g of w.replaces) removed.set(refKey(g.object.ref), g.object);
  const podUsers = all.filter((o) => !removed.has(refKey(o.ref)));
  const accounts = new Map<string, RenderedObject>();
  for (const w of windows) {
    for (const g of w.replaces) {
      const sa = str(field(g.object.body, "spec", "jobTemplate", "spec", "template", "spec", "serviceAccountName"));
      if (sa === undefined || sa === "default") continue;
      const stillUsed = podUsers.some((o) => o.ref.namespace === g.object.ref.namespace && serviceAccountOf(o.body) === sa);
      if (stillUsed) continue;
      const obj = all.find((o) => o.ref.kind === "ServiceAccount" && o.ref.namespace === g.object.ref.namespace && o.ref.name === sa);
      if (obj !== undefined) accounts.set(refKey(obj.ref), obj);
    }
  }
  for (const [k, v] of accounts) removed.set(k, v);
  const bindings = all.filter((o) => (o.ref.kind === "RoleBinding" || o.ref.kind === "ClusterRoleBinding") && o.ref.group === "rbac.authorization.k8s.io");
  const goneBindings = bindings.filter((b) => {
    const subjects = field(b.body, "subjects");
    return (
      Array.isArray(subjects) &&
      subjects.length > 0 &&
      subjects.every(
        (s) =>
          str(field(s, "kind")) === "ServiceAccount" &&
          [...accounts.values()].some((a) => a.ref.name === str(field(s, "name")) && a.ref.namespace === (str(field(s, "namespace")) ?? b.ref.namespace)),
      )
    );
  });
  for (const b of goneBindings) removed.set(refKey(b.ref), b);
  const keptBindings = bindings.filter((b) => !goneBindings.includes(b));
  for (const b of goneBindings) {
    const kind = str(field(b.body, "roleRef", "kind"));
    const name = str(field(b.body, "roleRef", "name"));
    const namespace = kind === "ClusterRole" ? "" : b.ref.namespace;
    const role = all.find((o) => o.ref.kind === kind && o.ref.name === name && o.ref.namespace === namespace);
    const stillBound = keptBindings.some(
      (k) =>
        str(field(k.body, "roleRef", "kind")) === kind &&
        str(field(k.body, "roleRef", "name")) === name &&
        (kind === "ClusterRole" || k.ref.namespace === namespace),
    );
    if (role !== undefined && !stillBound) removed.set(refKey(role.ref), role);
  }

  // 4. A directory that another cluster shares and whose every object goes here is no longer
  // included by this cluster's own kustomizations; it stays for the others.
  const kustomizations = [...texts.keys()].filter((p) => KUSTOMIZATION_FILES.some((n) => p === n || p.endsWith(`/${n}`)));
  const isKustomizationDir = (dir: string): boolean => KUSTOMIZATION_FILES.some((n) => texts.has(join2(dir, n)));
  const excluded = new Map<string, string[]>();
  for (const kfile of kustomizations) {
    const text = read(kfile);
    if (text === null || shared.has(kfile)) continue;
    const dir = kfile.split("/").slice(0, -1).join("/");
    for (const key of ["resources", "bases"]) {
      for (const item of listItems(text, key, kfile)) {
        if (typeof item.value !== "string") continue;
        const target = join2(dir, item.value);
        if (!isKustomizationDir(target)) continue;
        const from = all.filter((o) => o.file !== null && o.file.startsWith(`${target}/`));
        if (from.length === 0 || !from.every((o) => removed.has(refKey(o.ref))) || !from.some((o) => shared.has(o.file as string))) continue;
        excluded.set(target, [...(excluded.get(target) ?? []), kfile]);
      }
    }
  }
  for (const [target, by] of excluded) {
    for (const kfile of by) {
      const dir = kfile.split("/").slice(0, -1).join("/");
      write(
        kfile,
        editList(
          editList(read(kfile) as string, "resources", kfile, (v) => (typeof v === "string" && join2(dir, v) === target ? [] : "keep")),
          "bases",
          kfile,
          (v) => (typeof v === "string" && join2(dir, v) === target ? [] : "keep"),
        ),
      );
      notes.push(`${kfile}: no longer includes ${target}, whose every object here was replaced; it stays for the other clusters that use it`);
    }
  }
  const inExcluded = (file: string): boolean => [...excluded.keys()].some((d) => file.startsWith(`${d}/`));

  // 5. Remove their documents from their source files.
  const byFile = new Map<string, RenderedObject[]>();
  for (const o of removed.values()) {
    if (o.file !== null && inExcluded(o.file)) continue;
    if (o.file === null) {
      notes.push(`${o.ref.kind} ${o.ref.namespace}/${o.ref.name}: kustomize did not say which file it comes from; remove it by hand`);
      continue;
    }
    if (shared.has(o.file)) {
      notes.push(`${o.file}: another cluster uses it too, so ${o.ref.kind} ${o.ref.name} stays there; remove it with that cluster's migration`);
      continue;
    }
    byFile.set(o.file, [...(byFile.get(o.file) ?? []), o]);
  }
  const deletedFiles: string[] = [];
  for (const [file, objects] of byFile) {
    const text = read(file);
    if (text === null) continue;
    const chunks = splitDocuments(text, file);
    const keep = chunks.filter((c) => !objects.some((o) => matchesDoc(c.value, o.ref)));
    const missing = objects.filter((o) => !chunks.some((c) => matchesDoc(c.value, o.ref)));
    for (const o of missing) notes.push(`${file}: found no document of ${o.ref.kind} ${o.ref.name} (renamed by a prefix or suffix?); remove it by hand`);
    if (keep.every((c) => c.value === null)) {
      write(file, null);
      deletedFiles.push(file);
    } else if (keep.length !== chunks.length) write(file, joinDocuments(keep));
  }

  // 6. Kustomizations of the cluster: drop deleted files from resources, and patches of removed objects.
  const removedRefs = [...removed.values()].map((o) => o.ref);
  for (const kfile of kustomizations) {
    if (shared.has(kfile)) continue;
    let text = read(kfile);
    if (text === null) continue;
    const dir = kfile.split("/").slice(0, -1).join("/");
    for (const key of ["resources", "bases"])
      text = editList(text, key, kfile, (v) => (typeof v === "string" && deletedFiles.includes(join2(dir, v)) ? [] : "keep"));
    const droppedPatchFiles: string[] = [];
    text = editList(
      text,
      "patches",
      kfile,
      (v) => {
        const kind = str(field(v, "target", "kind"));
        const name = str(field(v, "target", "name"));
        const path = str(field(v, "path"));
        const inline = str(field(v, "patch"));
        const body = path !== undefined ? read(join2(dir, path)) : inline;
        const hits =
          (kind !== undefined && name !== undefined && removedRefs.some((r) => r.kind === kind && r.name === name)) ||
          (kind === undefined &&
            body !== null &&
            body !== undefined &&
            documentTargets(body).some((t) => removedRefs.some((r) => r.kind === t.kind && r.name === t.name)));
        if (hits && path !== undefined) droppedPatchFiles.push(join2(dir, path));
        return hits ? [] : "keep";
      },
      [],
      { dropEmpty: true },
    );
    text = editList(
      text,
      "patchesStrategicMerge",
      kfile,
      (v) => {
        if (typeof v !== "string") return "keep";
        const isFile = !v.includes("\n") && read(join2(dir, v)) !== null;
        const body = isFile ? read(join2(dir, v)) : v;
        const hits = body !== null && documentTargets(body).some((t) => removedRefs.some((r) => r.kind === t.kind && r.name === t.name));
        if (hits && isFile) droppedPatchFiles.push(join2(dir, v));
        return hits ? [] : "keep";
      },
      [],
      { dropEmpty: true },
    );
    // The older JSON 6902 patches name their target; one left without it would fail the build.
    text = editList(
      text,
      "patchesJson6902",
      kfile,
      (v) => {
        const kind = str(field(v, "target", "kind"));
        const name = str(field(v, "target", "name"));
        const hits = kind !== undefined && name !== undefined && removedRefs.some((r) => r.kind === kind && r.name === name);
        const path = str(field(v, "path"));
        if (hits && path !== undefined) droppedPatchFiles.push(join2(dir, path));
        return hits ? [] : "keep";
      },
      [],
      { dropEmpty: true },
    );
    if (text !== read(kfile)) write(kfile, text);
    for (const p of droppedPatchFiles) if (!shared.has(p)) write(p, null);
  }

  // 7. A kustomization left with nothing to build goes, and so do the references to its directory;
  // not one that is the path of a Flux Kustomization, which would fail without it.
  const fluxPaths = new Set(cluster.kustomizations.map((k) => k.path));
  for (let again = true; again;) {
    again = false;
    for (const kfile of kustomizations) {
      const text = read(kfile);
      if (text === null || text === texts.get(kfile) || shared.has(kfile) || !isEmptyKustomization(text)) continue;
      const dir = kfile.split("/").slice(0, -1).join("/");
      if (dir === join2(entry.path) || dir === windowsDir(fake) || fluxPaths.has(dir)) continue;
      write(kfile, null);
      for (const other of kustomizations) {
        const otherText = read(other);
        if (otherText === null || other === kfile || shared.has(other)) continue;
        const otherDir = other.split("/").slice(0, -1).join("/");
        let edited = otherText;
        for (const key of ["resources", "bases"])
          edited = editList(edited, key, other, (v) => (typeof v === "string" && join2(otherDir, v) === dir ? [] : "keep"));
        if (edited !== otherText) write(other, edited);
      }
      again = true;
    }
  }
  // kustomize refuses a kustomization with nothing in it ("kustomization.yaml is empty"); one
  // that a Flux Kustomization applies says `resources: []` instead, and the note says why.
  for (const k of cluster.kustomizations) {
    const kfile = KUSTOMIZATION_FILES.map((n) => join2(k.path, n)).find((p) => read(p) !== null);
    if (kfile === undefined || shared.has(kfile)) continue;
    const text = read(kfile) as string;
    if (text === texts.get(kfile) || !isEmptyKustomization(text)) continue;
    const kept = text.replace(/^(bases|resources):[ \t]*\[\][ \t]*(#.*)?\n?/gm, "");
    write(kfile, `${kept}${kept === "" || kept.endsWith("\n") ? "" : "\n"}resources: []\n`);
    notes.push(
      `${kfile}: builds nothing now, so Kustomization ${kustomizationId(k)}${k.file === null ? "" : ` (${k.file})`} applies nothing; remove it when you no longer need it`,
    );
  }

  const changes: FileChange[] = [...after.entries()].map(([path, text]) => ({ path, before: texts.get(path) ?? null, after: text }));
  return { changes, notes: [...new Set(notes)] };
}

function serviceAccountOf(body: Json): string | undefined {
  const kind = str(body.kind);
  const pod =
    kind === "CronJob"
      ? field(body, "spec", "jobTemplate", "spec", "template", "spec")
      : kind === "Pod"
        ? field(body, "spec")
        : field(body, "spec", "template", "spec");
  return str(field(pod, "serviceAccountName"));
}

function matchesDoc(value: unknown, ref: ObjectRef): boolean {
  return isJson(value) && str(value.kind) === ref.kind && str(field(value, "metadata", "name")) === ref.name;
}

/** True when a kustomization builds nothing: no resources, generators or components left. */
function isEmptyKustomization(text: string): boolean {
  let k: unknown;
  try {
    k = splitDocuments(text, "kustomization")[0]?.value;
  } catch {
    return false;
  }
  if (!isJson(k)) return false;
  const builds = ["resources", "bases", "components", "configMapGenerator", "secretGenerator", "generators", "helmCharts", "crds"];
  return builds.every((key) => k[key] === undefined || k[key] === null || (Array.isArray(k[key]) && k[key].length === 0));
}
