// The fleet rules of `fluxgate check`: a cluster's patch of a fleet window that no longer applies, and clusters whose labels and fleet windows disagree.

import { RULES, type Finding, type RuleId } from "../check.ts";
import { FLUX_NAMESPACE, windowsKustomizationFile, type ClusterEntry } from "../layout.ts";
import { parseSelector, type LabelSelector } from "../../policy/index.ts";
import type { FleetWindows } from "./effective.ts";
import { FLEET_SELECTOR_ANNOTATION, FLEET_WINDOWS_DIR, fleetResourceEntry, fleetWindowFile } from "./layout.ts";
import { clusterLabels, clusterMatches } from "./select.ts";
import { clusterFleetEntries, selectorOfFleetWindow } from "./windows.ts";

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
 * match its selector, and a cluster that matches it must include it.
 */
export async function checkFleet(fleet: FleetWindows, clusters: readonly ClusterEntry[], now: number): Promise<Finding[]> {
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
  for (const cluster of clusters) {
    const file = windowsKustomizationFile(cluster);
    const entries = clusterFleetEntries(cluster, await fleet.files.text(file));
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
