// The defaults of src/api the dashboard falls back on (a cluster's time zone). The server serves this module generated from src/api (assets.ts), so the browser
// never fetches outside client/.

export { DEFAULT_TIME_ZONE } from "../../../api/window.ts";
