// Where the Config Service's API lives: every route, message and document names its paths under API_PREFIX.

/** The API's prefix: the routes of routes/ are mounted under it. */
export const API_PREFIX = "/api/v1";
