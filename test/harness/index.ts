// The test harness API: a real control plane, optionally with Flux and a Git server, and helpers for tests.
export { startControlPlane, stopControlPlane } from "./control-plane.ts";
export type { ControlPlane, ControlPlaneOptions } from "./control-plane.ts";
export { harnessFieldManager, installCrds } from "./crds.ts";
export { HarnessError, PrerequisiteError, StartupError, ToolBuildError, WaitTimeoutError } from "./errors.ts";
export { fluxNamespace } from "./flux.ts";
export { applyManifests, controllerServiceAccount, fluxgateNamespace, installFluxgate, kustomizeBuild } from "./fluxgate.ts";
export { createRepository, pushCommit } from "./git.ts";
export { freshNamespace, serviceAccountKubeconfig, serviceAccountToken, waitFor } from "./kube.ts";
export { sharedControlPlane } from "./shared.ts";
export type { ServiceAccountAccess, ServiceAccountAccessOptions, WaitOptions } from "./kube.ts";
export { allTools, ensureFluxCrds, ensureTool, ensureTools } from "./tools.ts";
export type { Tool, ToolName } from "./tools.ts";
