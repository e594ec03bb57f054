// Where the fleet lives in a window-enabled repository: fleet windows as kustomize bases, and the names that tie a fleet's pieces together.
// Two layouts: the fleet folder (fleet/kustomization.yaml exists: every cluster includes fleet/ once, see folder.ts), and the per-cluster layout below, which
// keeps working and which `fluxgate fleet migrate` converts.
//
// repo/
//   fleet/windows/<window>/              one fleet window: a kustomize base
//     kustomization.yaml                 lists <window>.yaml
//     <window>.yaml                      the ReconciliationWindow, labelled fluxgate.io/fleet-window
//   clusters/<cluster>/windows/
//     kustomization.yaml                 resources: ../../../fleet/windows/<window> (each fleet window it takes)
//                                        patches: target ReconciliationWindow <window> (where the cluster differs)
//     overrides/<freeze>-<window>.yaml   a fleet freeze: one WindowOverride per window, labelled fluxgate.io/fleet-override

import { posix } from "node:path";
import { parse } from "yaml";
import { windowsDir, type ClusterEntry } from "../layout.ts";
import { field, isJson } from "../objects.ts";
import { formatSelector } from "../../policy/index.ts";

/** Directory of every fleet window. */
export const FLEET_WINDOWS_DIR = "fleet/windows";

/** Label on a fleet window's ReconciliationWindow: the fleet window's name (so `kubectl get rwin -l fluxgate.io/fleet-window` finds them). */
export const FLEET_WINDOW_LABEL = "fluxgate.io/fleet-window";

/** Annotation on a fleet window: the label selector (text) of the clusters that should include it; check compares it with fluxgate.yaml. */
export const FLEET_SELECTOR_ANNOTATION = "fluxgate.io/fleet-selector";

/** Label on each WindowOverride of a fleet freeze (or fleet open): its name, shared by all its overrides, so they are listed and ended as one. */
export const FLEET_OVERRIDE_LABEL = "fluxgate.io/fleet-override";

/** The base directory of a fleet window. */
export function fleetWindowDir(name: string): string {
  return `${FLEET_WINDOWS_DIR}/${name}`;
}

/** The ReconciliationWindow file of a fleet window. */
export function fleetWindowFile(name: string): string {
  return `${fleetWindowDir(name)}/${name}.yaml`;
}

/** The kustomization.yaml of a fleet window's base. */
export function fleetKustomizationFile(name: string): string {
  return `${fleetWindowDir(name)}/kustomization.yaml`;
}

/** The `resources` entry by which a cluster's windows/kustomization.yaml includes a fleet window: a path relative to it. */
export function fleetResourceEntry(cluster: ClusterEntry, name: string): string {
  return posix.relative(windowsDir(cluster), fleetWindowDir(name));
}

/** The fleet window a `resources` entry of a cluster's windows/kustomization.yaml includes, or null. */
export function fleetWindowOfEntry(cluster: ClusterEntry, entry: unknown): string | null {
  if (typeof entry !== "string") return null;
  const path = posix.normalize(posix.join(windowsDir(cluster), entry.replace(/\/+$/, "")));
  const m = /^fleet\/windows\/([^/]+)$/.exec(path);
  return m === null ? null : (m[1] as string);
}

/** The fleet folder: with it, every cluster includes fleet/ once (fleet/folder.ts). */
export const FLEET_DIR = "fleet";

/** True when a `resources` entry of the cluster's windows/kustomization.yaml is the fleet folder. */
export function isFleetFolderEntry(cluster: ClusterEntry, entry: unknown): boolean {
  return typeof entry === "string" && posix.normalize(posix.join(windowsDir(cluster), entry.replace(/\/+$/, ""))) === FLEET_DIR;
}

/** The clusterSelector of a fleet window file (spec.clusterSelector), as selector text; null when it has none or the file cannot be read. */
export function clusterSelectorOfWindow(text: string | null): string | null {
  if (text === null) return null;
  try {
    const v: unknown = parse(text);
    const s = field(v, "spec", "clusterSelector");
    return isJson(s) ? formatSelector(s) : null;
  } catch {
    return null;
  }
}
