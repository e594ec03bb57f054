// The demo's scenario as data: the nginx application split into nginx-rt and nginx-rw, its Flux objects, and the window.

import type { KubernetesObject } from "../kube/types.ts";
import { API_VERSION } from "../api/index.ts";
import { DEFAULT_TIME_ZONE } from "../api/window.ts";

/** How the window holds apps-rw: Suspend (spec.suspend) or Gate (a pinned source). */
export type DemoMode = "Suspend" | "Gate";
export const DEMO_MODES: readonly DemoMode[] = ["Suspend", "Gate"];

/** One state of the application in Git: the nginx.conf version and the Deployment's image. */
export interface AppVersion {
  readonly conf: string;
  readonly image: string;
}

/** The first commit, and the one commit that changes both parts. */
export const FIRST: AppVersion = { conf: "v1", image: "nginx:1.27" };
export const SECOND: AppVersion = { conf: "v2", image: "nginx:1.28" };

/** Flux intervals, short so that the story takes seconds, not minutes. */
export const FLUX_INTERVAL = "2s";
export const FLUX_INTERVAL_MS = 2_000;

export const UPSTREAM_SOURCE = "gitops";
export const GATED_SOURCE = "gitops-gated";
export const WINDOW_NAME = "nginx-window";
export const RT = "apps-rt";
export const RW = "apps-rw";
export const CONFIGMAP = "nginx-conf";
export const DEPLOYMENT = "nginx";

/** The namespace a mode plays in: each mode has its own repository, Flux objects and window. */
export function namespaceOf(mode: DemoMode): string {
  return `demo-${mode.toLowerCase()}`;
}

/** The first line of nginx.conf names its version, so the demo can tell which one the cluster has. */
export function confVersionOf(nginxConf: string | undefined): string | undefined {
  return nginxConf === undefined ? undefined : /^# (\S+)/.exec(nginxConf)?.[1];
}

/** The repository's files for `v`: apps/nginx-rt (real time) and apps/nginx-rw (governed by the window). */
export function repositoryFiles(v: AppVersion): Record<string, string> {
  return {
    "apps/nginx-rt/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - configmap.yaml\n",
    "apps/nginx-rt/configmap.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: ${CONFIGMAP}
data:
  nginx.conf: |
    # ${v.conf}
    events {}
    http { server { listen 8080; location / { return 200 "${v.conf}\\n"; } } }
`,
    "apps/nginx-rw/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - deployment.yaml\n  - service.yaml\n",
    "apps/nginx-rw/deployment.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${DEPLOYMENT}
spec:
  replicas: 1
  selector:
    matchLabels: {app: nginx}
  template:
    metadata:
      labels: {app: nginx}
    spec:
      containers:
        - name: nginx
          image: ${v.image}
          ports:
            - containerPort: 8080
          volumeMounts:
            - {name: conf, mountPath: /etc/nginx/nginx.conf, subPath: nginx.conf}
      volumes:
        - name: conf
          configMap: {name: ${CONFIGMAP}}
`,
    "apps/nginx-rw/service.yaml": `apiVersion: v1
kind: Service
metadata:
  name: ${DEPLOYMENT}
spec:
  selector: {app: nginx}
  ports:
    - port: 80
      targetPort: 8080
`,
  };
}

/** The upstream GitRepository, tracking the branch. */
export function gitRepository(namespace: string, url: string): KubernetesObject {
  return {
    apiVersion: "source.toolkit.fluxcd.io/v1",
    kind: "GitRepository",
    metadata: { name: UPSTREAM_SOURCE, namespace },
    spec: { url, interval: FLUX_INTERVAL, ref: { branch: "main" } },
  } as KubernetesObject;
}

/** apps-rt (real time) or apps-rw (depends on apps-rt; its source is `source`). */
export function kustomization(namespace: string, name: typeof RT | typeof RW, source: string): KubernetesObject {
  const path = name === RT ? "./apps/nginx-rt" : "./apps/nginx-rw";
  return {
    apiVersion: "kustomize.toolkit.fluxcd.io/v1",
    kind: "Kustomization",
    metadata: { name, namespace },
    spec: {
      interval: FLUX_INTERVAL,
      retryInterval: FLUX_INTERVAL,
      path,
      prune: true,
      targetNamespace: namespace,
      sourceRef: { kind: "GitRepository", name: source },
      ...(name === RW ? { dependsOn: [{ name: RT }] } : {}),
    },
  } as KubernetesObject;
}

/** When the demo's window opens: a whole minute, then every `everyMinutes` minutes, for `durationSeconds`. */
export interface Opening {
  /** The first opening (epoch ms, a whole minute). */
  readonly at: number;
  /** Cron (UTC) for that minute and every `everyMinutes` minutes after it in the hour. */
  readonly cron: string;
  readonly durationSeconds: number;
  readonly everyMinutes: number;
}

/**
 * The first whole minute at least `marginMs` after `now`, as a compressed schedule: a window that
 * opens then and every `everyMinutes` minutes, for `durationSeconds` each time.
 *
 * @example nextOpening(Date.parse("2026-11-22T11:21:40Z"), 30_000, 30, 5) // at 11:23:00, cron "3-59/5 * * * *"
 */
export function nextOpening(now: number, marginMs: number, durationSeconds: number, everyMinutes: number): Opening {
  const at = Math.ceil((now + marginMs) / 60_000) * 60_000;
  const minute = new Date(at).getUTCMinutes();
  return { at, cron: `${minute % everyMinutes}-59/${everyMinutes} * * * *`, durationSeconds, everyMinutes };
}

/** The ReconciliationWindow governing apps-rw, in `mode`. */
export function reconciliationWindow(namespace: string, mode: DemoMode, opening: Opening): KubernetesObject {
  return {
    apiVersion: API_VERSION,
    kind: "ReconciliationWindow",
    metadata: { name: WINDOW_NAME, namespace },
    spec: {
      timeZone: DEFAULT_TIME_ZONE,
      schedules: [{ start: opening.cron, duration: `${opening.durationSeconds}s` }],
      targets: [{ kind: "Kustomization", name: RW }],
      mode,
      ...(mode === "Gate" ? { gate: { upstream: { kind: "GitRepository", name: UPSTREAM_SOURCE }, gatedName: GATED_SOURCE } } : {}),
    },
  } as KubernetesObject;
}
