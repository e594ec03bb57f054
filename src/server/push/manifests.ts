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
