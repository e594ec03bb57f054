// The Kubernetes names the rest of fluxgate uses from the client library, so that only src/kube imports it.

export type {
  CoreV1Event,
  KubernetesListObject,
  KubernetesObject,
  V1CustomResourceDefinition,
  V1ManagedFieldsEntry,
  V1PolicyRule,
} from "@kubernetes/client-node";
export { KubeConfig, loadAllYaml } from "@kubernetes/client-node";
