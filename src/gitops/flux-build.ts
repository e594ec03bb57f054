// What kustomize-controller does around `kustomize build`, for the renderer (render.ts): the wrapper
// kustomization that carries a Flux Kustomization's spec, the origin of each built object, and postBuild substitution.

import { field, isJson, str, type Json } from "./objects.ts";

/** The annotation kustomize sets (buildMetadata: originAnnotations) naming the file an object came from. */
const ORIGIN = "config.kubernetes.io/origin";

/** The wrapper kustomization's content, with paths relative to the Flux path. */
export function wrapperSpec(spec: Json, entries: readonly string[]): Json {
  const out: Json = { apiVersion: "kustomize.config.k8s.io/v1beta1", kind: "Kustomization", resources: [...entries] };
  const targetNamespace = str(spec.targetNamespace);
  if (targetNamespace !== undefined) out.namespace = targetNamespace;
  if (typeof spec.namePrefix === "string") out.namePrefix = spec.namePrefix;
  if (typeof spec.nameSuffix === "string") out.nameSuffix = spec.nameSuffix;
  if (Array.isArray(spec.patches) && spec.patches.length > 0) out.patches = spec.patches;
  if (Array.isArray(spec.images) && spec.images.length > 0) out.images = spec.images;
  if (Array.isArray(spec.components) && spec.components.length > 0) out.components = spec.components.filter((c) => typeof c === "string");
  const labels = field(spec, "commonMetadata", "labels");
  if (isJson(labels)) out.labels = [{ pairs: labels, includeSelectors: false }];
  const annotations = field(spec, "commonMetadata", "annotations");
  if (isJson(annotations)) out.commonAnnotations = annotations;
  return out;
}

/** Removes kustomize's origin annotation from a built object and returns the file it came from, when it is a file of the repository. */
export function takeOrigin(body: Json): string | null {
  const annotations = field(body, "metadata", "annotations");
  if (!isJson(annotations)) return null;
  const origin = str(annotations[ORIGIN]);
  delete annotations[ORIGIN];
  if (Object.keys(annotations).length === 0 && isJson(body.metadata)) delete body.metadata.annotations;
  if (origin === undefined) return null;
  const m = /^path: (.*)$/m.exec(origin) ?? /^configuredIn: (.*)$/m.exec(origin);
  if (m === null || /^repo: /m.test(origin)) return null;
  return (m[1] as string).trim().replace(/^["']|["']$/g, "");
}

/** The variables of `spec.postBuild.substitute`, or null when the Kustomization has no postBuild. */
export function substitutions(spec: Json): Map<string, string> | null {
  const postBuild = spec.postBuild;
  if (!isJson(postBuild)) return null;
  const vars = new Map<string, string>();
  if (isJson(postBuild.substitute)) for (const [k, v] of Object.entries(postBuild.substitute)) vars.set(k, String(v));
  // Variables from ConfigMaps and Secrets live in the cluster: leave their references as they are.
  if (Array.isArray(postBuild.substituteFrom) && postBuild.substituteFrom.length > 0) vars.set("\0partial", "");
  return vars;
}

/** Flux's variable substitution: `${var}`, `${var:=default}`, `${var:-default}`; `$${var}` stays literal. */
export function substitute(text: string, vars: Map<string, string>): string {
  const partial = vars.has("\0partial");
  return text.replace(
    /\$(\$)?\{([A-Za-z_][A-Za-z0-9_]*)(?::?[=-]([^}]*))?\}/g,
    (all, escaped: string | undefined, name: string, fallback: string | undefined) => {
      if (escaped !== undefined) return all.slice(1);
      const value = vars.get(name);
      if (value !== undefined) return value;
      if (fallback !== undefined) return fallback;
      return partial ? all : "";
    },
  );
}
