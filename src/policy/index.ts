// The domain rules every surface shares (controller, CLI, Config Service, dashboard, check): pure, no I/O, time passed in.

export * from "./select.ts";
export * from "./override.ts";
export * from "./decision.ts";
export * from "./wording.ts";
export * from "./revision.ts";
export * from "./instant.ts";
export * from "./tenancy.ts";
export * from "./views.ts";
export * from "./selector-text.ts";
export * from "./observed.ts";
export * from "./notice.ts";
export * from "./recurrences.ts";
export * from "./fleet.ts";
export * from "./cluster-identity.ts";
