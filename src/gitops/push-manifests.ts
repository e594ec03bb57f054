// The manifests that make a cluster push fluxgate's events to the Config Service: a generic-hmac Provider and an Alert (and the Secret they read).

/** The name of the Secret, Provider and Alert in the cluster's flux-system namespace. */
export const PUSH_OBJECT_NAME = "fluxgate-status";

/** Stands for the service's address where none was given. */
export const URL_PLACEHOLDER = "https://FLUXGATE_SERVE_URL";

/** The receiver's address for a cluster: `<url>/api/v1/clusters/<cluster>/events`. */
export function eventsAddress(url: string, cluster: string): string {
  return `${url.replace(/\/+$/, "")}/api/v1/clusters/${cluster}/events`;
}

/**
 * The Provider and Alert to commit for a cluster (no secret in them): notification-controller signs
 * each event of the cluster's Kustomizations and HelmReleases with the key in the Secret
 * `fluxgate-status` (field `token`) and posts it to the Config Service.
 *
 * @example providerAndAlert("edge-berlin", "https://fluxgate.example.com")
 */
export function providerAndAlert(cluster: string, url: string, namespace = "flux-system"): string {
  return `apiVersion: notification.toolkit.fluxcd.io/v1beta3
kind: Provider
metadata:
  name: ${PUSH_OBJECT_NAME}
  namespace: ${namespace}
spec:
  type: generic-hmac
  address: ${eventsAddress(url, cluster)}
  # The key: create this Secret in the cluster with the key "fluxgate serve cluster-key add" printed (never commit it unencrypted).
  secretRef:
    name: ${PUSH_OBJECT_NAME}
---
apiVersion: notification.toolkit.fluxcd.io/v1beta3
kind: Alert
metadata:
  name: ${PUSH_OBJECT_NAME}
  namespace: ${namespace}
spec:
  providerRef:
    name: ${PUSH_OBJECT_NAME}
  eventSeverity: info
  eventSources:
    - kind: Kustomization
      name: "*"
    - kind: HelmRelease
      name: "*"
`;
}

/** The command that creates the Secret holding the key, for the cluster's operator to run. */
export function secretCommand(key: string, namespace = "flux-system"): string {
  return `kubectl -n ${namespace} create secret generic ${PUSH_OBJECT_NAME} --from-literal=token=${key}`;
}

/** The file `fluxgate init --status-url` writes in a cluster's directory. */
export const PUSH_FILE = `${PUSH_OBJECT_NAME}.yaml`;

/**
 * The file to commit in a cluster's directory: the Provider and Alert, and the Secret they read as
 * a comment only. The key never goes into Git: a Secret manifest here would be applied by Flux
 * (a directory without kustomization.yaml is applied whole) and would overwrite the real Secret
 * with a placeholder.
 */
export function pushManifestFile(cluster: string, url: string, namespace = "flux-system"): string {
  return `# ${cluster} pushes fluxgate's events, signed, to the Config Service at ${url} (docs/config-service.md).
# The key is not in Git. Get it with "fluxgate serve cluster-key add --cluster ${cluster}" and create the
# Secret the Provider reads in the cluster:
#   ${secretCommand("KEY", namespace)}
# or commit it encrypted (SOPS) as its own file:
#   apiVersion: v1
#   kind: Secret
#   metadata:
#     name: ${PUSH_OBJECT_NAME}
#     namespace: ${namespace}
#   stringData:
#     token: KEY
${providerAndAlert(cluster, url, namespace)}`;
}

/** Checks the address clusters reach the Config Service at; returns the problem, or null. */
export function statusUrlProblem(url: string): string | null {
  return /^https?:\/\/[^/\s]+[^\s]*$/.test(url) ? null : "must be the http(s) address clusters reach fluxgate serve at, e.g. https://fluxgate.example.com";
}
