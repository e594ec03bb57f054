// A request's cluster and window in the fleet as read from Git: found, or a NotFoundError naming what there is.

import { NotFoundError, ConflictError } from "./errors.ts";
import { clusterOf, type ClusterModel, type Fleet, type WindowRecord } from "./model.ts";
import { checkObjectName } from "./names.ts";
import { API_PREFIX } from "../paths.ts";

/** A cluster of the fleet; a NotFoundError naming the clusters there are. */
export function cluster(fleet: Fleet, name: string): ClusterModel {
  const found = clusterOf(fleet, name);
  if (found === null) {
    const known = fleet.clusters.map((c) => c.entry.name).join(", ") || "none";
    throw new NotFoundError(`cluster "${name.slice(0, 80)}" is not in fluxgate.yaml (clusters: ${known})`);
  }
  return found;
}

/** A window of a cluster; a NotFoundError naming its windows. */
export function windowRecord(c: ClusterModel, name: string): WindowRecord {
  checkObjectName(name, "window name");
  const record = c.windows.find((w) => w.name === name);
  if (record === undefined)
    throw new NotFoundError(`cluster ${c.entry.name} has no window "${name}" (windows: ${c.windows.map((w) => w.name).join(", ") || "none"})`);
  return record;
}

/** Refuses to change a fleet window as if it were the cluster's own file: a ConflictError saying where it is edited. */
export function checkOwnWindow(k: ClusterModel, record: WindowRecord | null): void {
  if (record === null || record.fleet === null) return;
  throw new ConflictError(
    `window ${record.name} of cluster ${k.entry.name} is fleet window ${record.fleet.window} (${record.fleet.base}): change it for every cluster with PUT ${API_PREFIX}/fleet/windows/${record.fleet.window}, or for this cluster alone with PUT ${API_PREFIX}/clusters/${k.entry.name}/windows/${record.name}/patch`,
  );
}
