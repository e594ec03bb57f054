// Names that reach file paths: checked against Kubernetes' DNS-1123 rules, so no name can leave its cluster's directory.

import { InputError } from "../../errors.ts";

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** True for a DNS-1123 subdomain: what Kubernetes accepts as the name of a window or an override. */
export function isObjectName(name: string): boolean {
  return name.length <= 253 && DNS_SUBDOMAIN.test(name);
}

/** Throws an InputError unless `name` is a valid object name; `what` names it in the message ("window name"). */
export function checkObjectName(name: string, what: string): string {
  if (!isObjectName(name)) {
    throw new InputError(
      `${what} "${name.slice(0, 80)}" is not a valid Kubernetes name: lower-case letters, digits, '-' and '.', starting and ending with a letter or digit, at most 253 characters`,
      { reason: "InvalidName", problems: [] },
    );
  }
  return name;
}

/**
 * Window and override names whose files would collide with what the layout keeps in a cluster's
 * windows directory: `kustomization.yaml` (the list kustomize builds) and `overrides/`.
 */
export const RESERVED_NAMES: readonly string[] = ["kustomization", "overrides"];

/** Throws an InputError unless `name` is a valid object name that the layout does not reserve. */
export function checkFileName(name: string, what: string): string {
  checkObjectName(name, what);
  if (RESERVED_NAMES.includes(name)) {
    throw new InputError(
      `${what} "${name}" is reserved: the file ${name}.yaml would collide with the layout's own ${name === "overrides" ? "overrides/ directory" : "kustomization.yaml"} (reserved: ${RESERVED_NAMES.join(", ")}); choose another name`,
      {
        reason: "InvalidName",
        problems: [{ path: "name", message: `"${name}" is reserved by the repository layout` }],
      },
    );
  }
  return name;
}
