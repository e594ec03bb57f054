// The example fleet `fluxgate serve` shows when started bare: three clusters in three zones, laid out as `fluxgate init` does, in a real Git repository.

import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rename, rm, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { stringify } from "yaml";
import {
  entryDir,
  FLUX_NAMESPACE,
  kustomizationFile,
  kustomizationName,
  REPOSITORY_FILE,
  SOURCE_NAME,
  TYPE_LABEL,
  windowFile,
  windowsKustomizationFile,
} from "../../gitops/layout.ts";
import { windowText } from "../git/edits.ts";
import { Git } from "../git/git.ts";

/** Where fluxgate keeps its data: $XDG_DATA_HOME/fluxgate, else ~/.local/share/fluxgate. */
export function dataDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_DATA_HOME !== undefined && env.XDG_DATA_HOME !== "" ? env.XDG_DATA_HOME : join(homedir(), ".local", "share");
  return join(base, "fluxgate");
}

interface ExampleCluster {
  name: string;
  timeZone: string;
  windows: Record<string, Record<string, unknown>>;
}

const rw = [{ kind: "Kustomization", name: "apps-rw" }];

/** The clusters of the example, with windows whose holiday freeze is the coming one (20 Dec to 5 Jan). */
function clusters(now: number): ExampleCluster[] {
  const d = new Date(now);
  // The freeze of this year while it has not ended, else next year's.
  const year = d.getUTCMonth() === 0 && d.getUTCDate() < 5 ? d.getUTCFullYear() - 1 : d.getUTCFullYear();
  const holiday = { from: `${year}-12-20T00:00`, to: `${year + 1}-01-05T00:00`, reason: "Holiday freeze" };
  return [
    {
      name: "edge-berlin",
      timeZone: "Europe/Berlin",
      windows: {
        "apps-rw": {
          timeZone: "Europe/Berlin",
          schedules: [{ start: "0 8 * * MON", end: "0 17 * * THU" }],
          freezes: [{ start: "0 0 * * FRI", duration: "24h", reason: "No deploys on Fridays" }, holiday],
          targets: rw,
        },
        // A second window for the same Kustomization, by its type label: changes may also go in at night.
        nightly: {
          timeZone: "Europe/Berlin",
          schedules: [{ start: "0 22 * * *", duration: "2h" }],
          freezes: [holiday],
          targets: [{ kind: "Kustomization", labelSelector: { matchLabels: { [TYPE_LABEL]: "rw" } } }],
        },
      },
    },
    {
      name: "edge-newyork",
      timeZone: "America/New_York",
      windows: {
        "apps-rw": {
          timeZone: "America/New_York",
          schedules: [{ start: "0 9 * * MON-THU", end: "0 16 * * MON-THU" }],
          freezes: [holiday],
          targets: rw,
        },
      },
    },
    {
      name: "edge-tokyo",
      timeZone: "Asia/Tokyo",
      windows: {
        "apps-rw": {
          timeZone: "Asia/Tokyo",
          schedules: [{ start: "0 2 * * TUE,THU", duration: "4h" }],
          freezes: [{ start: "0 0 * * SAT", duration: "48h", reason: "Weekend: nobody on site" }, holiday],
          targets: rw,
        },
      },
    },
  ];
}

const yaml = (value: unknown): string => stringify(value, { lineWidth: 0 });

/** Every file of the example repository, by path. */
export function exampleFleetFiles(now: number): Record<string, string> {
  const list = clusters(now);
  const files: Record<string, string> = {};
  files[REPOSITORY_FILE] = `# The repository file of fluxgate: clusters and types. Never applied to a cluster.\n${yaml({
    apiVersion: "fluxgate.io/v1alpha1",
    kind: "Repository",
    types: [
      { name: "rt", window: false },
      { name: "rw", window: true },
    ],
    clusters: list.map((c) => ({ name: c.name, path: `clusters/${c.name}`, timeZone: c.timeZone })),
  })}`;
  files["README.md"] =
    `# Example fleet\n\nAn example GitOps repository made by \`fluxgate serve\`: three edge clusters in three zones, a real-time type (\`rt\`: a ConfigMap) and a window type (\`rw\`: a Deployment). Edit the windows in the dashboard and watch the commits appear here (\`git log\`).\n`;
  files["apps/shop-rt/kustomization.yaml"] = yaml({ apiVersion: "kustomize.config.k8s.io/v1beta1", kind: "Kustomization", resources: ["configmap.yaml"] });
  files["apps/shop-rt/configmap.yaml"] = yaml({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "shop-config", namespace: "shop" },
    data: { "nginx.conf": "worker_processes 2;\n" },
  });
  files["apps/shop-rw/kustomization.yaml"] = yaml({ apiVersion: "kustomize.config.k8s.io/v1beta1", kind: "Kustomization", resources: ["deployment.yaml"] });
  files["apps/shop-rw/deployment.yaml"] = yaml({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "shop", namespace: "shop" },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: "shop" } },
      template: { metadata: { labels: { app: "shop" } }, spec: { containers: [{ name: "shop", image: "nginx:1.27" }] } },
    },
  });
  for (const c of list) {
    const root = `clusters/${c.name}`;
    const entry = { name: c.name, path: root, timeZone: c.timeZone };
    for (const type of ["rt", "rw"]) {
      files[kustomizationFile(entry, type)] = yaml({
        apiVersion: "kustomize.toolkit.fluxcd.io/v1",
        kind: "Kustomization",
        metadata: { name: kustomizationName(type), namespace: FLUX_NAMESPACE, labels: { [TYPE_LABEL]: type } },
        spec: {
          interval: "10m",
          path: `./${entryDir(entry, type)}`,
          prune: true,
          sourceRef: { kind: "GitRepository", name: SOURCE_NAME },
          ...(type === "rw" ? { dependsOn: [{ name: kustomizationName("rt") }] } : {}),
        },
      });
      files[`${entryDir(entry, type)}/kustomization.yaml`] = yaml({
        apiVersion: "kustomize.config.k8s.io/v1beta1",
        kind: "Kustomization",
        resources: [`../../../apps/shop-${type}`],
      });
    }
    const names = Object.keys(c.windows);
    files[windowsKustomizationFile(entry)] = `# Windows and overrides of ${c.name}; fluxgate serve keeps this list in sync.\n${yaml({
      apiVersion: "kustomize.config.k8s.io/v1beta1",
      kind: "Kustomization",
      resources: names.map((n) => `${n}.yaml`),
    })}`;
    for (const [name, spec] of Object.entries(c.windows)) {
      const manifest = { apiVersion: "fluxgate.io/v1alpha1", kind: "ReconciliationWindow", metadata: { name, namespace: FLUX_NAMESPACE }, spec };
      files[windowFile(entry, name)] = windowText(null, manifest);
    }
  }
  return files;
}

/**
 * The example repository at `dir`, created (as one commit) when it is not there yet. It is built in a
 * temporary directory and renamed into place, so a crash never leaves half a repository.
 */
export async function ensureExampleFleet(dir: string, now: number): Promise<{ created: boolean }> {
  if (existsSync(join(dir, ".git"))) return { created: false };
  await mkdir(dirname(dir), { recursive: true });
  const work = await mkdtemp(`${dir}.tmp-`);
  try {
    for (const [path, text] of Object.entries(exampleFleetFiles(now))) {
      await mkdir(dirname(join(work, path)), { recursive: true });
      await writeFile(join(work, path), text);
    }
    const git = new Git(work);
    await git.run(["init", "--quiet", "--initial-branch=main"]);
    await git.run(["add", "--all"]);
    await git.run(["commit", "--quiet", "--no-verify", "-m", "Example fleet: three clusters, windows, a holiday freeze"], {
      env: Git.identity({ name: "fluxgate", email: "serve@fluxgate.invalid" }, now),
    });
    await rename(work, dir);
    return { created: true };
  } catch (e) {
    await rm(work, { recursive: true, force: true });
    throw e;
  }
}
