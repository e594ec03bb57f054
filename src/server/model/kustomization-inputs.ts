// The files a kustomization reads other than as resources (patch files, generators' files, components...), so that such a file is never taken for a window.

import { posix } from "node:path";
import { isJson, type Json } from "../../gitops/objects.ts";

/** Calls `add` with every path a kustomization names outside `resources` (relative to its folder). */
export function collectInputPaths(k: Json, add: (path: string) => void): void {
  const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);
  for (const key of ["bases", "components", "crds", "configurations", "generators", "transformers", "validators", "patchesStrategicMerge"])
    for (const p of strings(k[key])) add(p);
  for (const key of ["patches", "patchesJson6902", "replacements"]) {
    for (const item of Array.isArray(k[key]) ? (k[key] as unknown[]) : []) if (isJson(item) && typeof item.path === "string") add(item.path);
  }
  for (const key of ["configMapGenerator", "secretGenerator"]) {
    for (const g of Array.isArray(k[key]) ? (k[key] as unknown[]) : []) {
      if (!isJson(g)) continue;
      for (const f of strings(g.files)) add(f.includes("=") ? f.slice(f.indexOf("=") + 1) : f);
      for (const f of strings(g.envs)) add(f);
      if (typeof g.env === "string") add(g.env);
    }
  }
}

/** Repository paths a kustomization in `dir` names outside `resources` (e.g. `patches: - path: zone-patch.yaml`). */
export function inputPaths(k: Json, dir: string): Set<string> {
  const out = new Set<string>();
  collectInputPaths(k, (p) => out.add(posix.normalize(posix.join(dir, p))));
  return out;
}
