// Pure planning of the file changes behind each write: window files and kustomization.yaml edited with comments kept.

import { inContext } from "../../errors.ts";
import { Document, isMap, isScalar, isSeq, parseDocument, visit, type Node } from "yaml";
import { API_VERSION, type ReconciliationWindowSpec, type WindowOverrideSpec, validateWindow } from "../../api/index.ts";
import type { ClusterContext } from "../../schedule/index.ts";
import { committedOverrideManifest } from "../../gitops/fleet/overrides.ts";
import { FLUX_NAMESPACE, overrideFile, windowFile, windowsKustomizationFile } from "../../gitops/layout.ts";
import { ConflictError } from "../model/errors.ts";
import type { ClusterModel } from "../model/model.ts";
import { readYaml } from "../../gitops/yaml-read.ts";

/** New contents per repository path; null deletes the file. */
export type FileChanges = Record<string, string | null>;

/** Fields double-quoted in new nodes: YAML 1.1 readers would take `02:00` for a number and `2026-12-13` for a timestamp. */
const TIME_FIELDS = new Set(["start", "end", "from", "to", "at", "endAt", "dtstart"]);
/** Lists whose items are double-quoted (a recurrence's left-out dates). */
const TIME_LISTS = new Set(["exdates"]);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Sets `value` into an existing YAML node, changing only what differs, so comments on the keys
 * and items that stay are kept. Returns the node to put in the parent (new when the shape changed).
 */
function mergeInto(doc: Document, node: unknown, value: unknown): unknown {
  if (isPlainObject(value) && isMap(node)) {
    for (const pair of [...node.items]) {
      const key = isScalar(pair.key) ? pair.key.value : pair.key;
      if (typeof key !== "string" || value[key] === undefined) node.delete(pair.key);
    }
    for (const [key, v] of Object.entries(value)) {
      if (v === undefined) continue;
      const existing = node.get(key, true);
      node.set(key, existing === undefined ? createNode(doc, v) : mergeInto(doc, existing, v));
    }
    return node;
  }
  if (Array.isArray(value) && isSeq(node)) {
    value.forEach((v, i) => {
      const existing = node.items[i];
      node.items[i] = existing === undefined ? createNode(doc, v) : mergeInto(doc, existing, v);
    });
    node.items.length = value.length;
    return node;
  }
  if (isScalar(node) && (value === null || typeof value !== "object")) {
    if (node.value !== value) {
      if (typeof node.value !== typeof value) node.type = undefined;
      node.value = value;
    }
    return node;
  }
  return createNode(doc, value);
}

/** A new node; cron expressions, times of day, dates and date-times are double-quoted, as people write them. */
function createNode(doc: Document, value: unknown): Node {
  const node = doc.createNode(value);
  visit(node, {
    Pair(_, pair) {
      const key = isScalar(pair.key) ? String(pair.key.value) : "";
      if (TIME_FIELDS.has(key) && isScalar(pair.value) && typeof pair.value.value === "string") pair.value.type = "QUOTE_DOUBLE";
      if (TIME_LISTS.has(key) && isSeq(pair.value)) {
        for (const item of pair.value.items) if (isScalar(item) && typeof item.value === "string") item.type = "QUOTE_DOUBLE";
      }
    },
  });
  return node;
}

/** The manifest of a window file, as the service writes it. */
export function windowManifest(name: string, spec: ReconciliationWindowSpec): Record<string, unknown> {
  return { apiVersion: API_VERSION, kind: "ReconciliationWindow", metadata: { name, namespace: FLUX_NAMESPACE }, spec };
}

/**
 * The text of a window file holding `manifest`: the existing file edited in place (its comments,
 * key order and other metadata kept) or a new file.
 */
export function windowText(existing: string | null, manifest: Record<string, unknown>): string {
  // A file that cannot be read safely (invalid YAML, an alias bomb, not a map) is replaced by a new one.
  const current = existing === null ? null : readYaml(existing).value;
  if (existing !== null && isPlainObject(current)) {
    const doc = parseDocument(existing);
    if (isMap(doc.contents)) {
      // Keep metadata the file has (labels, annotations) and set what the service owns.
      const metadata = { ...(isPlainObject(current.metadata) ? current.metadata : {}), ...(manifest.metadata as object) };
      doc.contents = mergeInto(doc, doc.contents, { ...current, ...manifest, metadata }) as typeof doc.contents;
      try {
        return doc.toString();
      } catch {
        // An alias whose anchor the edit replaced cannot be written back; the new file below holds the same manifest.
      }
    }
  }
  const doc = new Document();
  doc.contents = createNode(doc, manifest);
  return doc.toString();
}

const NEW_KUSTOMIZATION = "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: []\n";

/** kustomization.yaml with `entry` added to or removed from `resources`; everything else kept. */
export function kustomizationText(existing: string | null, entry: string, present: boolean): string | null {
  const doc = parseDocument(existing ?? NEW_KUSTOMIZATION);
  if (doc.errors.length > 0 || !isMap(doc.contents)) {
    throw new Error(`kustomization.yaml is not a YAML map: ${doc.errors[0]?.message ?? "fix it by hand"}`);
  }
  let resources = doc.get("resources", true);
  if (!isSeq(resources)) {
    resources = doc.createNode([]);
    doc.set("resources", resources);
  }
  const seq = resources as ReturnType<typeof doc.createNode> & { items: unknown[]; flow?: boolean };
  const same = (item: unknown): boolean => isScalar(item) && typeof item.value === "string" && item.value.replace(/^\.\//, "") === entry;
  const has = seq.items.some(same);
  if (present === has && existing !== null) return null;
  if (present && !has) seq.items.push(doc.createNode(entry));
  if (!present) seq.items = seq.items.filter((item) => !same(item));
  seq.flow = seq.items.length === 0;
  return doc.toString();
}

/** Files changed by putting a window (created or replaced). */
export function putWindowChanges(cluster: ClusterModel, name: string, spec: ReconciliationWindowSpec): FileChanges {
  const path = windowFile(cluster.entry, name);
  if (cluster.kustomizeInputs?.has(path) === true) {
    throw new ConflictError(
      `${path} is not a window: ${windowsKustomizationFile(cluster.entry)} reads it as a patch (or another input), and writing a window there would replace it; give the window another name`,
    );
  }
  const existing = cluster.windows.find((w) => w.name === name);
  const changes: FileChanges = {};
  const text = windowText(existing?.text ?? null, windowManifest(name, spec));
  if (existing?.text !== text) changes[path] = text;
  const kustomization = kustomizationText(cluster.kustomization?.text ?? null, `${name}.yaml`, true);
  if (kustomization !== null) changes[windowsKustomizationFile(cluster.entry)] = kustomization;
  return changes;
}

/** Files changed by deleting a window and the overrides named (those that refer to it). */
export function deleteWindowChanges(cluster: ClusterModel, name: string, overrides: readonly string[] = []): FileChanges {
  return removeChanges(cluster, [`${name}.yaml`, ...overrides.map((o) => `overrides/${o}.yaml`)]);
}

/** Files changed by deleting overrides. */
export function deleteOverrideChanges(cluster: ClusterModel, names: readonly string[]): FileChanges {
  return removeChanges(
    cluster,
    names.map((o) => `overrides/${o}.yaml`),
  );
}

/** Deletes files of a cluster's windows directory and their kustomization.yaml entries. */
function removeChanges(cluster: ClusterModel, entries: readonly string[]): FileChanges {
  const changes: FileChanges = {};
  let text = cluster.kustomization?.text ?? null;
  let changed = false;
  for (const entry of entries) {
    changes[`${cluster.windowsDir}/${entry}`] = null;
    const next = kustomizationText(text, entry, false);
    if (next !== null) {
      text = next;
      changed = true;
    }
  }
  if (changed && text !== null) changes[windowsKustomizationFile(cluster.entry)] = text;
  return changes;
}

/** The manifest of an override the service commits, stamped with when it was asked for and by whom (the one writer of gitops/fleet/overrides.ts). */
export function overrideManifest(name: string, spec: WindowOverrideSpec, requestedAt: number, requestedBy?: string): Record<string, unknown> {
  return committedOverrideManifest(name, spec, requestedAt, { requestedBy });
}

/** Files changed by adding an override. */
export function addOverrideChanges(cluster: ClusterModel, name: string, manifest: Record<string, unknown>): FileChanges {
  const changes: FileChanges = { [overrideFile(cluster.entry, name)]: windowText(null, manifest) };
  const kustomization = kustomizationText(cluster.kustomization?.text ?? null, `overrides/${name}.yaml`, true);
  if (kustomization !== null) changes[windowsKustomizationFile(cluster.entry)] = kustomization;
  return changes;
}

/**
 * Validates a spec as the controller would; 400 with field paths (`spec.schedules[0].start`)
 * otherwise. A spec whose holiday freeze takes its country from the cluster's labels is validated
 * for each of `clusters` (those that take the window): one without the label is refused by name.
 */
export function validSpec(name: string, spec: unknown, now: number, clusters: readonly ClusterContext[] = []): ReconciliationWindowSpec {
  const manifest = windowManifest(name, spec as ReconciliationWindowSpec);
  const perCluster = clusters.length > 0 && JSON.stringify(spec).includes('"fromClusterLabels"');
  return inContext({ heading: "the window is not valid" }, () => {
    let valid: ReconciliationWindowSpec | null = null;
    for (const cluster of perCluster ? clusters : [undefined]) valid = validateWindow(manifest, now, { cluster }).window.spec;
    return valid as ReconciliationWindowSpec;
  });
}
