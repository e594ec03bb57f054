// Installs CustomResourceDefinitions from YAML files with server-side apply and waits until they are Established.
import { Connection, PatchStrategy } from "../kube/connection.ts";
import { loadAllYaml, type KubeConfig, type KubernetesObject, type V1CustomResourceDefinition } from "../kube/types.ts";
import { readFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { StartupError } from "./errors.ts";

/** The field manager the local control plane (and the test harness) applies its own objects with. */
export const harnessFieldManager = "fluxgate-harness";

function established(crd: V1CustomResourceDefinition): boolean {
  return (crd.status?.conditions ?? []).some((c) => c.type === "Established" && c.status === "True");
}

/** Applies every CRD in `files` and waits (up to 30 s) until each is Established. */
export async function installCrds(kc: KubeConfig, files: readonly string[]): Promise<string[]> {
  const connection = new Connection(kc);
  const objects = connection.objects;
  const names: string[] = [];
  for (const file of files) {
    // loadAllYaml maps wire names (x-kubernetes-preserve-unknown-fields) to the client's typed models;
    // a plain YAML parse would have those fields silently dropped when the client serializes the object.
    for (const loaded of loadAllYaml(await readFile(file, "utf8")) as (KubernetesObject | null)[]) {
      const crd = loaded;
      if (crd === null || crd.kind !== "CustomResourceDefinition") continue;
      await objects.patch(crd, undefined, undefined, harnessFieldManager, true, PatchStrategy.ServerSideApply);
      if (crd.metadata?.name !== undefined) names.push(crd.metadata.name);
    }
  }
  const api = connection.apiextensions;
  const deadline = Date.now() + 30_000;
  for (const name of names) {
    while (!established(await api.readCustomResourceDefinition({ name }))) {
      if (Date.now() > deadline) throw new StartupError(`CRD ${name} was not Established within 30s`);
      await sleep(100);
    }
  }
  return names;
}
