// The fleet timeline's compact form, expanded in the browser by the very code the service documents it with (served from src/ by assets.ts).

export { expandClusterTimeline } from "../../views/timeline-format.ts";
