// The fleet rules of `fluxgate check`: a cluster's patch of a fleet window that no longer applies, and clusters whose labels and fleet windows disagree.

import { RULES, type Finding, type RuleId } from "../check.ts";
import { FLUX_NAMESPACE, windowsKustomizationFile, type ClusterEntry } from "../layout.ts";
import { formatSelector, parseSelector, type LabelSelector } from "../../policy/index.ts";
import type { FleetWindows } from "./effective.ts";
import { FLEET_SELECTOR_ANNOTATION, FLEET_WINDOWS_DIR, fleetResourceEntry, fleetWindowDir, fleetWindowFile } from "./layout.ts";
import { clusterLabels, clusterMatches } from "./select.ts";
import { clusterFleetEntries, selectorOfFleetWindow } from "./windows.ts";
import { FLEET_FOLDER_FILE, fleetFolderEntries, fleetFolderEntry, identityFile, isFleetFolderEntry } from "./folder.ts";
import { CLUSTER_IDENTITY_NAME, CLUSTER_IDENTITY_NAMESPACE } from "../../api/index.ts";
import { canonicalJson } from "../../api/canonical.ts";
import { listItems } from "../yaml-edit.ts";
import { shellWord } from "../windows.ts";

/** The fleet windows of fleet/windows/ that fleet/kustomization.yaml does not list (none when it cannot be read: kustomize-build-failed says why). */
function outsideFolder(folder: string, names: readonly string[]): string[] {
  try {
    const listed = new Set(fleetFolderEntries(folder).windows);
    return names.filter((n) => !listed.has(n));
  } catch {
    return [];
  }
}

/**
 * What includes the fleet folder in a cluster that does not: fleet migrate where fleet windows are still outside the folder or the cluster includes fleet
 * windows one by one (it moves them into the folder and makes every cluster include it instead, with a proof that no cluster's windows change), else
 * init, which includes the folder wherever it exists, with the cluster's identity.
 */
function includeAdvice(cluster: ClusterEntry, outside: readonly string[], oneByOne: readonly string[], repo: string): string {
  if (outside.length === 0 && oneByOne.length === 0) return `fluxgate init ${shellWord(repo)} --cluster ${cluster.name} does, with the cluster's identity`;
  const shown = outside.slice(0, 3).map((n) => `${fleetWindowDir(n)}/`);
  const list = `${shown.join(", ")}${outside.length > shown.length ? ` and ${outside.length - shown.length} more` : ""}`;
  const moves = outside.length === 0 ? "" : `, and moves into the folder the fleet window${outside.length === 1 ? "" : "s"} still outside it (${list})`;
  return `fluxgate fleet migrate${repo === "." ? "" : ` --repo ${shellWord(repo)}`} does, in place of the fleet windows each cluster includes one by one${moves}, with a proof that no cluster's windows change`;
}

/**
 * The identity findings of a cluster: it includes the fleet folder once (when the repository has
 * one), renders its identity ConfigMap, and the identity is valid and agrees with fluxgate.yaml.
 */
async function identityFindings(
  fleet: FleetWindows,
  cluster: ClusterEntry,
  text: string | null,
  folder: { outside: readonly string[] } | null,
  now: number,
  repo: string,
): Promise<Finding[]> {
  const out: Finding[] = [];
  const file = windowsKustomizationFile(cluster);
  const object = `ConfigMap ${CLUSTER_IDENTITY_NAMESPACE}/${CLUSTER_IDENTITY_NAME}`;
  const of = (rule: RuleId, message: string, at = file): Finding => ({
    rule,
    severity: RULES[rule].severity,
    cluster: cluster.name,
    file: at,
    object,
    message,
  });
  if (folder !== null) {
    let includes: number;
    try {
      includes = text === null ? 0 : listItems(text, "resources", file).filter((i) => isFleetFolderEntry(cluster, i.value)).length;
    } catch {
      includes = 0; // kustomize-build-failed says why
    }
    if (includes !== 1)
      out.push({
        ...of(
          "fleet-folder-not-included",
          includes === 0
            ? `${file} does not include the fleet folder: list ${fleetFolderEntry(cluster)} once in resources (${includeAdvice(cluster, folder.outside, clusterFleetEntries(cluster, text).includes, repo)})`
            : `${file} includes the fleet folder ${includes} times: list ${fleetFolderEntry(cluster)} once in resources, and remove the other entries that name it`,
        ),
        object: `Kustomization ${file}`,
      });
  }
  const rendered = await fleet.of(cluster, now);
  if (rendered.error !== null) return out;
  const init = `run fluxgate init ${shellWord(repo)} --cluster ${cluster.name} to write it from fluxgate.yaml`;
  if (rendered.identityManifest === null) {
    out.push(
      of(
        "cluster-identity-missing",
        `cluster ${cluster.name} renders no ${object}: its controller opens by no fleet window and honours every fleet freeze; ${init}`,
      ),
    );
    return out;
  }
  const identity = rendered.identity;
  const at = identityFile(cluster);
  if (!identity.confirmed) {
    out.push(of("cluster-identity-mismatch", `${identity.problem}: its controller cannot confirm which fleet windows are its own; ${init}`, at));
    return out;
  }
  const labels = clusterLabels(cluster);
  const said: string[] = [];
  if (identity.cluster !== cluster.name) said.push(`names cluster ${identity.cluster}, not ${cluster.name}`);
  if (canonicalJson(identity.labels) !== canonicalJson(labels))
    said.push(`has labels ${formatSelector({ matchLabels: identity.labels }) || "none"}, fluxgate.yaml ${formatSelector({ matchLabels: labels }) || "none"}`);
  if (said.length > 0)
    out.push(
      of(
        "cluster-identity-mismatch",
        `the identity of cluster ${cluster.name} ${said.join(" and ")}: its controller matches fleet windows and freezes by the identity; ${init}`,
        at,
      ),
    );
  return out;
}

function finding(rule: RuleId, cluster: ClusterEntry, file: string, window: string, message: string): Finding {
  return { rule, severity: RULES[rule].severity, cluster: cluster.name, file, object: `ReconciliationWindow ${FLUX_NAMESPACE}/${window}`, message };
}

function labelsText(cluster: ClusterEntry): string {
  const labels = Object.entries(clusterLabels(cluster)).map(([k, v]) => `${k}=${v}`);
  return labels.length === 0 ? "no labels" : `labels ${labels.join(",")}`;
}

/** The innermost cause of a kustomize message (its chain repeats temporary paths), with the repository's root left out. */
function cause(message: string, root: string): string {
  const last = message.split("': ").pop() ?? message;
  return last.split(`${root}/`).join("");
}

/**
 * Checks the fleet windows of the given clusters (entries of fluxgate.yaml): each patch of a
 * fleet window in a cluster's windows/kustomization.yaml must apply (the folder builds with the
 * real kustomize, and renders the window it targets); a cluster that includes a fleet window must
 * match its selector, and a cluster that matches it must include it. `repo` is the repository
 * as the user named it: the commands the findings advise name it so.
 */
export async function checkFleet(fleet: FleetWindows, clusters: readonly ClusterEntry[], now: number, repo = "."): Promise<Finding[]> {
  const out: Finding[] = [];
  const names = ((await fleet.files.list(FLEET_WINDOWS_DIR)) ?? []).filter((e) => e.dir).map((e) => e.name);
  const selectors = new Map<string, { text: string; selector: LabelSelector } | null>();
  for (const name of names) {
    const text = selectorOfFleetWindow(await fleet.files.text(fleetWindowFile(name)));
    let selector: LabelSelector | null;
    try {
      selector = text === null ? null : parseSelector(text, FLEET_SELECTOR_ANNOTATION);
    } catch {
      selector = null; // a selector nobody can read selects no cluster; add and list say so
    }
    selectors.set(name, text === null || selector === null ? null : { text, selector });
  }
  const folderText = await fleet.files.text(FLEET_FOLDER_FILE);
  const folder = folderText === null ? null : { outside: outsideFolder(folderText, names) };
  for (const cluster of clusters) {
    const file = windowsKustomizationFile(cluster);
    const text = await fleet.files.text(file);
    const entries = clusterFleetEntries(cluster, text);
    if (folder !== null || (await fleet.files.text(identityFile(cluster))) !== null)
      out.push(...(await identityFindings(fleet, cluster, text, folder, now, repo)));
    // Every patch of a window counts: one left behind after its fleet window went is a patch that no longer applies.
    const fleetPatches = entries.patches;
    if (fleetPatches.length > 0) {
      const rendered = await fleet.of(cluster, now);
      for (const p of fleetPatches) {
        if (rendered.error !== null) {
          out.push(
            finding(
              "fleet-patch-not-applied",
              cluster,
              file,
              p.name,
              `the patch of ${names.includes(p.name) ? "fleet window" : "window"} ${p.name} in ${file} does not apply: kustomize cannot build the cluster's windows: ${cause(rendered.error, fleet.files.root)}`,
            ),
          );
        } else if (!rendered.windows.some((w) => w.name === p.name)) {
          out.push(
            finding(
              "fleet-patch-not-applied",
              cluster,
              file,
              p.name,
              `${file} patches ReconciliationWindow ${p.name}, but the cluster's windows render none of that name (${rendered.windows.map((w) => w.name).join(", ") || "no windows"}): the patch changes nothing; include ${fleetResourceEntry(cluster, p.name)} in resources, or remove the patch`,
            ),
          );
        }
      }
    }
    for (const name of entries.includes) {
      const s = selectors.get(name);
      if (s === undefined || s === null || clusterMatches(cluster, s.selector)) continue;
      out.push(
        finding(
          "fleet-window-unselected",
          cluster,
          file,
          name,
          `cluster ${cluster.name} includes fleet window ${name}, whose selector ${s.text} its ${labelsText(cluster)} in fluxgate.yaml do not match: remove ${fleetResourceEntry(cluster, name)} from ${file}, or change the cluster's labels`,
        ),
      );
    }
    for (const name of names) {
      const s = selectors.get(name);
      if (s === undefined || s === null || entries.includes.includes(name) || !clusterMatches(cluster, s.selector)) continue;
      out.push(
        finding(
          "fleet-window-not-included",
          cluster,
          file,
          name,
          `cluster ${cluster.name} matches the selector ${s.text} of fleet window ${name} (${labelsText(cluster)}) but does not include it: add ${fleetResourceEntry(cluster, name)} to resources in ${file}, or change the cluster's labels`,
        ),
      );
    }
  }
  return out;
}
