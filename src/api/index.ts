// fluxgate's API types and their validation.

export * from "./window.ts";
export * from "./validate.ts";
