// fluxgate's API types and their validation.

export * from "./window.ts";
export * from "./override.ts";
export * from "./status.ts";
export * from "./validate.ts";
export * from "./crd.ts";
export * from "./conditions.ts";
export * from "./constants.ts";
export * from "./kinds.ts";
export * from "./reason.ts";
