// Label selectors in the dashboard: read and matched by the same code as the API and the CLI (served from src/ by assets.ts).

export { parseSelector } from "../../../policy/selector-text.ts";
export { matchesSelector } from "../../../policy/select.ts";
