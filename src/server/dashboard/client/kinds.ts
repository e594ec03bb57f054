// The kinds a window may target, for the editor. The server serves this module generated from src/api/kinds.ts (assets.ts), so the browser never fetches
// outside client/.

export { TARGET_KINDS } from "../../../api/kinds.ts";
