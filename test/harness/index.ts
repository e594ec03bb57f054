// The test harness API: a real control plane (src/devenv), optionally with Flux and a Git server, and helpers for tests.
export { startControlPlane, stopControlPlane } from "../../src/devenv/control-plane.ts";
export type { ControlPlane, ControlPlaneOptions, RestartableComponent } from "../../src/devenv/control-plane.ts";
export { harnessFieldManager, installCrds } from "../../src/devenv/crds.ts";
export { HarnessError, PrerequisiteError, StartupError, ToolBuildError, WaitTimeoutError } from "../../src/devenv/errors.ts";
export { fluxNamespace } from "../../src/devenv/flux.ts";
export { applyManifests, controllerServiceAccount, fluxgateNamespace, installFluxgate, kustomizeBuild } from "../../src/devenv/install.ts";
export { createRepository, pushCommit } from "../../src/devenv/git.ts";
export { freshNamespace, statusOf, waitFor } from "./kube.ts";
export { serviceAccountKubeconfig, serviceAccountToken } from "../../src/devenv/service-accounts.ts";
export type { ServiceAccountAccess, ServiceAccountAccessOptions } from "../../src/devenv/service-accounts.ts";
export { sharedControlPlane } from "./shared.ts";
export type { WaitOptions } from "./kube.ts";
export { allTools, builtImageAutomationCrd, ensureFluxCrds, ensureTool, ensureTools } from "../../src/devenv/tools.ts";
export type { Tool, ToolName } from "../../src/devenv/tools.ts";
