// The fleet demo's repository and requests: every place the demo depends on the fleet folder layout (docs/gitops.md "The fleet folder") and its API, in one file.

import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { readFiles, writeChanges } from "../../gitops/changes.ts";
import { initPaths, planInit, planRepositoryFile } from "../../gitops/init.ts";
import { FLUX_NAMESPACE, REPOSITORY_FILE, ROOT_KUSTOMIZATION, SOURCE_NAME, entryDir, windowFile, windowsKustomizationFile } from "../../gitops/layout.ts";
import type { KubernetesObject } from "../../kube/types.ts";
import { RT, RW } from "../scenario.ts";

/** One cluster of the demo's fleet: its name, zone, city and labels in fluxgate.yaml. */
export interface FleetCluster {
  readonly name: string;
  readonly city: string;
  readonly timeZone: string;
  readonly labels: Readonly<Record<string, string>>;
}

/** Three zones, three rings: New York is the canary. */
export const FLEET: readonly FleetCluster[] = [
  { name: "edge-berlin", city: "Berlin", timeZone: "Europe/Berlin", labels: { region: "eu", ring: "prod", site: "berlin" } },
  { name: "edge-newyork", city: "New York", timeZone: "America/New_York", labels: { region: "us", ring: "canary", site: "newyork" } },
  { name: "edge-tokyo", city: "Tokyo", timeZone: "Asia/Tokyo", labels: { region: "apac", ring: "prod", site: "tokyo" } },
];

/** The selector of every cluster of the demo (each has a ring), of the canary ring, and the clusters it matches. */
export const EVERY_CLUSTER = "ring";
export const CANARY = "ring=canary";
export function isCanary(c: FleetCluster): boolean {
  return c.labels.ring === "canary";
}

/** The repository on the Git server, and the Flux objects and window the story watches. */
export const FLEET_REPOSITORY = "fleet";
export const WINDOW = "fleet-changes";
export const FREEZE = "canary-hold";
export const WINDOW_TYPE = "rw";
export { FLUX_NAMESPACE };
/** The Kustomizations of the two types, as in the single-cluster demo: apps-rt (real time) and apps-rw (windowed). */
export { RT, RW };
/** The application's ConfigMaps: shop-config (real time, apps-rt) and shop-release (apps-rw, governed by the fleet window). */
export const CONFIG = "shop-config";
export const RELEASE = "shop-release";
export const APP_NAMESPACE = "default";
/** The bootstrap source and root Kustomization poll this often: the fleet's commits reach the clusters within seconds. */
export const ROOT_INTERVAL = "2s";

function configMap(name: string, version: string): string {
  return `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: ${APP_NAMESPACE}\ndata:\n  version: "${version}"\n`;
}

/** The application at `version`: apps/shop-rt (real time) and apps/shop-rw (taken in the fleet window). */
export function appFiles(version: string): Record<string, string> {
  const kustomization = "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - configmap.yaml\n";
  return {
    "apps/shop-rt/kustomization.yaml": kustomization,
    "apps/shop-rt/configmap.yaml": configMap(CONFIG, version),
    "apps/shop-rw/kustomization.yaml": kustomization,
    "apps/shop-rw/configmap.yaml": configMap(RELEASE, version),
  };
}

function repositoryFile(): string {
  const clusters = FLEET.map((c) =>
    [
      `  - name: ${c.name}`,
      `    path: clusters/${c.name}`,
      `    timeZone: ${c.timeZone}`,
      "    labels:",
      ...Object.entries(c.labels).map(([k, v]) => `      ${k}: ${v}`),
    ].join("\n"),
  );
  return [
    "# The demo's fleet: three clusters in three zones (fluxgate demo --fleet).",
    "apiVersion: fluxgate.io/v1alpha1",
    "kind: Repository",
    "types:",
    "  - name: rt",
    "    window: false",
    `  - name: ${WINDOW_TYPE}`,
    "    window: true",
    "clusters:",
    ...clusters,
    "",
  ].join("\n");
}

/**
 * Lays the fleet out in `dir` in the fleet folder layout (docs/gitops.md "The fleet folder"):
 * fluxgate.yaml with the three clusters and their labels, then what `fluxgate init --fleet-folder
 * --status-url URL` writes for each cluster of fluxgate.yaml (fleet/kustomization.yaml with no
 * fleet window yet, first; each cluster includes ../../../fleet once and its identity), with
 * the application at `version` in each cluster's entry directories. init's placeholder window of
 * each cluster is left out: the fleet window, added through the API, is the only window of the story.
 */
export async function layOut(dir: string, statusUrl: string, version: string): Promise<void> {
  await writeFile(join(dir, REPOSITORY_FILE), repositoryFile());
  for (const cluster of FLEET) {
    const before = (await readFiles(dir, [REPOSITORY_FILE])).get(REPOSITORY_FILE) ?? null;
    const plan = planRepositoryFile(before, { cluster: cluster.name, statusUrl, fleetFolder: true });
    await writeChanges(dir, planInit(plan, await readFiles(dir, initPaths(plan)), before));
    await rm(join(dir, windowFile(plan.cluster, RW)));
    const windows = windowsKustomizationFile(plan.cluster);
    const text = (await readFiles(dir, [windows])).get(windows) ?? "";
    // The fleet folder and the cluster's identity stay listed.
    await writeFile(join(dir, windows), text.replace(`  - ${RW}.yaml\n`, ""));
    for (const type of ["rt", WINDOW_TYPE]) {
      const entry = `${entryDir(plan.cluster, type)}/kustomization.yaml`;
      const current = (await readFiles(dir, [entry])).get(entry) ?? "";
      await writeFile(join(dir, entry), current.replace("resources: []\n", `resources:\n  - ../../../apps/shop-${type}\n`));
    }
  }
  for (const [path, content] of Object.entries(appFiles(version))) {
    await writeChanges(dir, [{ path, before: null, after: content }]);
  }
}

/** What `flux bootstrap` would create in a cluster: the source of the fleet repository and the root Kustomization of the cluster's path. */
export function bootstrapObjects(cluster: FleetCluster, repoUrl: string): KubernetesObject[] {
  return [
    {
      apiVersion: "source.toolkit.fluxcd.io/v1",
      kind: "GitRepository",
      metadata: { name: SOURCE_NAME, namespace: FLUX_NAMESPACE },
      spec: { url: repoUrl, interval: ROOT_INTERVAL, ref: { branch: "main" } },
    } as KubernetesObject,
    {
      apiVersion: "kustomize.toolkit.fluxcd.io/v1",
      kind: "Kustomization",
      metadata: { name: ROOT_KUSTOMIZATION, namespace: FLUX_NAMESPACE },
      spec: {
        interval: ROOT_INTERVAL,
        retryInterval: ROOT_INTERVAL,
        path: `./clusters/${cluster.name}`,
        prune: true,
        sourceRef: { kind: "GitRepository", name: SOURCE_NAME },
      },
    } as KubernetesObject,
  ];
}

/** The Secret holding the cluster's key, which fluxgate-status.yaml names (never in Git). */
export function statusSecret(key: string): KubernetesObject {
  return { apiVersion: "v1", kind: "Secret", metadata: { name: "fluxgate-status", namespace: FLUX_NAMESPACE }, stringData: { token: key } } as KubernetesObject;
}

/** A request to the Config Service's API. */
export interface ApiRequest {
  readonly method: "GET" | "POST" | "PUT" | "DELETE";
  readonly path: string;
  readonly body?: unknown;
}

/** Where a cluster's window opens: a local time in its zone, every day, for `seconds`. */
export interface LocalOpening {
  readonly cluster: FleetCluster;
  /** The instant (epoch ms, a whole minute). */
  readonly at: number;
  /** The local time, `08:52`. */
  readonly local: string;
  readonly cron: string;
  readonly seconds: number;
}

/** The local wall-clock time of `at` in `timeZone`, as hour and minute. */
function localTime(at: number, timeZone: string): { hour: number; minute: number } {
  const parts = new Intl.DateTimeFormat("en-GB", { timeZone, hour: "2-digit", minute: "2-digit", hourCycle: "h23" }).formatToParts(at);
  const part = (type: string): number => Number(parts.find((p) => p.type === type)?.value);
  return { hour: part("hour"), minute: part("minute") };
}

/** The opening of `cluster` at instant `at`, as a daily local time in its zone. */
export function localOpening(cluster: FleetCluster, at: number, seconds: number): LocalOpening {
  const { hour, minute } = localTime(at, cluster.timeZone);
  return {
    cluster,
    at,
    local: `${String(hour).padStart(2, "0")}:${String(minute).padStart(2, "0")}`,
    cron: `${minute} ${hour} * * *`,
    seconds,
  };
}

function schedules(o: LocalOpening): { start: string; duration: string }[] {
  return [{ start: o.cron, duration: `${o.seconds}s` }];
}

/** The fleet window, added for every cluster in one commit: its base opens at `base`'s local time in `base`'s zone. */
export function addFleetWindow(base: LocalOpening): ApiRequest {
  return {
    method: "POST",
    path: "/api/v1/fleet/windows",
    body: {
      name: WINDOW,
      selector: EVERY_CLUSTER,
      spec: { timeZone: base.cluster.timeZone, schedules: schedules(base), targets: [{ kind: "Kustomization", name: RW }] },
      reason: "one change slot a day for the whole fleet",
    },
  };
}

/** A cluster's patch of the fleet window: its own zone and local time. */
export function patchFleetWindow(o: LocalOpening): ApiRequest {
  return {
    method: "PUT",
    path: `/api/v1/clusters/${o.cluster.name}/windows/${WINDOW}/patch`,
    body: { timeZone: o.cluster.timeZone, schedules: schedules(o), reason: `${o.cluster.city} takes changes at ${o.local} local time` },
  };
}

/** The freeze of the canary ring, and its end. */
export function freezeCanary(seconds: number): ApiRequest {
  return {
    method: "POST",
    path: "/api/v1/fleet/overrides",
    body: { selector: CANARY, duration: `${seconds}s`, reason: "canary under investigation", name: FREEZE },
  };
}
export function endFreeze(): ApiRequest {
  return { method: "DELETE", path: `/api/v1/fleet/overrides/${FREEZE}?reason=${encodeURIComponent("canary checked")}` };
}
