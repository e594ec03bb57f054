// Older Flux API versions read as v1: a Kustomization of kustomize.toolkit.fluxcd.io/v1beta1 or v1beta2, a source of source.toolkit.fluxcd.io/v1beta2.
//
// Repositories set up before Flux 2.0 keep manifests of the beta APIs, and Flux still serves
// them. Their spec differs from v1 in a few fields that change what a Kustomization renders:
// `patchesStrategicMerge` (inline objects) and `patchesJson6902` (a target and a list of
// operations), both folded into v1's `patches` by Flux's own conversion. Every other field the
// repository tooling reads (path, sourceRef, suspend, targetNamespace, namePrefix, images,
// postBuild, ref) has the same shape in every version.

import { stringify } from "yaml";
import { isJson, type Json } from "./objects.ts";

/**
 * The spec of a Flux Kustomization of any read version, as v1 has it: the beta patch fields
 * become entries of `patches` (after the ones v1beta2 already had there). A v1 spec is returned
 * as it is.
 *
 * @example v1KustomizationSpec({ patchesStrategicMerge: [{ kind: "Deployment", metadata: { name: "web" }, spec: { replicas: 2 } }] })
 *   // → { patches: [{ patch: "kind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 2\n" }] }
 */
export function v1KustomizationSpec(spec: Json): Json {
  const strategic = Array.isArray(spec.patchesStrategicMerge) ? spec.patchesStrategicMerge : [];
  const json6902 = Array.isArray(spec.patchesJson6902) ? spec.patchesJson6902 : [];
  if (strategic.length === 0 && json6902.length === 0) return spec;
  const { patchesStrategicMerge: _s, patchesJson6902: _j, ...rest } = spec;
  const patches: unknown[] = Array.isArray(spec.patches) ? [...(spec.patches as unknown[])] : [];
  for (const p of strategic) if (isJson(p)) patches.push({ patch: stringify(p) });
  for (const p of json6902) {
    if (!isJson(p) || !Array.isArray(p.patch)) continue;
    patches.push({ ...(isJson(p.target) ? { target: p.target } : {}), patch: stringify(p.patch) });
  }
  return { ...rest, patches };
}
